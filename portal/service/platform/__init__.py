"""The platform the service's areas stand on: the database, the API decorator, authentication, errors,
background jobs, idempotency, rate limits, configuration, messages... It imports no area."""
