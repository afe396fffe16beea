"""The service's OpenID Connect provider (authlib): discovery, JWKS, code flow with PKCE, RS256 JWT access
tokens, refresh tokens, userinfo, revocation, its own sign-in page and logout."""

from flask import Flask

from portal.service.identity import account, password_change, provider, routes


def init_app(app: Flask) -> None:
    """The authorization server (provider) and its endpoints (routes, which build on the provider), and the
    signed-in user's own settings (account) and password (password_change)."""
    provider.init_app(app)
    app.register_blueprint(routes.bp)
    app.register_blueprint(account.bp)
    app.register_blueprint(password_change.bp)


__all__ = ["init_app"]
