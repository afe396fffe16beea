"""The portal's webhooks area: admins register the URLs that hear the company's events."""
