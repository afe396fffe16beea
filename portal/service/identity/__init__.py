"""The service's OpenID Connect provider (authlib): discovery, JWKS, code flow with PKCE, RS256 JWT access
tokens, refresh tokens, userinfo, revocation, its own sign-in page and logout."""

from portal.service.identity.provider import init_app

__all__ = ["init_app"]
