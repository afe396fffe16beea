"""authlib's authorization server wired to our tables: code flow + PKCE (S256 required), OpenID Connect,
RFC 9068 JWT access tokens, refresh tokens with rotation, and RFC 7009 revocation."""

from __future__ import annotations

import secrets
import time

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc6749.errors import InvalidRequestError
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc9068 import JWTBearerTokenGenerator
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from flask import Flask, current_app
from sqlalchemy import select

from portal.service.identity.claims import access_token_claims, userinfo
from portal.service.identity.keys import load_signing_keys
from portal.service.identity.revocation import revoke_access_token
from portal.service.platform import db
from portal.service.platform.models import OAuthAuthorizationCode, OAuthClient, OAuthToken, User

SCOPES = ["openid", "profile", "email", "cfe"]


class RequiredS256Challenge(CodeChallenge):
    """PKCE for every client, confidential ones included, and only S256 (plain leaks the verifier)."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        if not data.get("code_challenge") or data.get("code_challenge_method") != "S256":
            raise InvalidRequestError(
                "PKCE is required: send code_challenge with code_challenge_method=S256.", redirect_uri=redirect_uri
            )
        return super().validate_code_challenge(grant, redirect_uri)


class AccessTokenGenerator(JWTBearerTokenGenerator):
    """RS256 JWT access tokens (typ at+jwt) for our API audience, carrying the user's companies."""

    def get_jwks(self):
        return current_app.extensions["identity_keys"].private_set

    def get_audiences(self, client, user, scope):
        return current_app.config["API_AUDIENCE"]

    def get_extra_claims(self, client, grant_type, user, scope):
        return access_token_claims(db.session(), user)


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def save_authorization_code(self, code, request):
        payload = request.payload
        item = OAuthAuthorizationCode(
            code=code,
            client_id=request.client.client_id,
            redirect_uri=payload.redirect_uri,
            scope=payload.scope,
            user_id=request.user.id,
            nonce=payload.data.get("nonce"),
            code_challenge=payload.data.get("code_challenge"),
            code_challenge_method=payload.data.get("code_challenge_method"),
            auth_time=int(time.time()),
        )
        session = db.session()
        session.add(item)
        session.commit()
        return item

    def query_authorization_code(self, code, client):
        item = db.session().scalar(
            select(OAuthAuthorizationCode).where(
                OAuthAuthorizationCode.code == code, OAuthAuthorizationCode.client_id == client.client_id
            )
        )
        # Codes live 5 minutes: long enough for a redirect, too short to be worth stealing. A code of a user
        # deactivated since is an invalid grant (RFC 6749 5.2), not a malformed request.
        if item and not item.is_expired() and _active(item.user_id):
            return item
        return None

    def delete_authorization_code(self, authorization_code):
        session = db.session()
        session.delete(authorization_code)
        session.commit()

    def authenticate_user(self, authorization_code):
        return db.session().get(User, authorization_code.user_id)


def _active(user_id: int) -> bool:
    user = db.session().get(User, user_id)
    return bool(user and user.active)


class OpenIDCodeExtension(OpenIDCode):
    def exists_nonce(self, nonce, request):
        return (
            db.session().scalar(
                select(OAuthAuthorizationCode.id).where(
                    OAuthAuthorizationCode.client_id == request.payload.client_id, OAuthAuthorizationCode.nonce == nonce
                )
            )
            is not None
        )

    def resolve_client_private_key(self, client):
        return current_app.extensions["identity_keys"].private_set

    def get_client_algorithm(self, client):
        return "RS256"

    def get_encode_header(self, client):
        return {"alg": "RS256", "kid": current_app.extensions["identity_keys"].kid}

    def get_client_claims(self, client):
        return {"iss": current_app.config["ISSUER"], "aud": [client.get_client_id()], "exp": int(time.time()) + 3600}

    def generate_user_info(self, user, scope):
        return UserInfo(userinfo(db.session(), user))


class RefreshTokenGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation: a stolen refresh token works once at most

    def authenticate_refresh_token(self, refresh_token):
        token = db.session().scalar(select(OAuthToken).where(OAuthToken.refresh_token == refresh_token))
        # A deactivated user's refresh token is a grant no longer valid: `invalid_grant` (RFC 6749 5.2). Left to
        # authenticate_user, authlib would answer `invalid_request`, which tells a client to fix its request.
        if token and token.is_refresh_token_active() and _active(token.user_id):
            return token
        return None

    def authenticate_user(self, refresh_token):
        user = db.session().get(User, refresh_token.user_id)
        return user if user and user.active else None

    def revoke_old_credential(self, refresh_token):
        refresh_token.refresh_token_revoked_at = int(time.time())
        refresh_token.access_token_revoked_at = int(time.time())
        db.session().commit()


class TokenRevocation(RevocationEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

    def query_token(self, token_string, token_type_hint):
        column = OAuthToken.access_token if token_type_hint == "access_token" else OAuthToken.refresh_token  # noqa: S105
        found = db.session().scalar(select(OAuthToken).where(column == token_string))
        if found is None and token_type_hint is None:
            found = db.session().scalar(select(OAuthToken).where(OAuthToken.access_token == token_string))
        return found

    def revoke_token(self, token, request):
        now = int(time.time())
        token.access_token_revoked_at = now
        token.refresh_token_revoked_at = now
        # The access token is a JWT the API would go on accepting until it expires: list it as revoked.
        revoke_access_token(db.session(), token.access_token)
        db.session().commit()


def _query_client(client_id):
    return db.session().scalar(select(OAuthClient).where(OAuthClient.client_id == client_id))


def _save_token(token, request):
    item = OAuthToken(
        client_id=request.client.client_id,
        user_id=request.user.id,
        refresh_token_lifetime=current_app.config["REFRESH_TOKEN_SECONDS"],
        **{
            k: v
            for k, v in token.items()
            if k in ("token_type", "access_token", "refresh_token", "scope", "expires_in")
        },
    )
    session = db.session()
    session.add(item)
    session.commit()


def init_app(app: Flask) -> None:
    app.extensions["identity_keys"] = load_signing_keys(app.config["JWT_PRIVATE_KEY_PEM"])
    app.config.setdefault("OAUTH2_SCOPES_SUPPORTED", SCOPES)
    server = AuthorizationServer(app, query_client=_query_client, save_token=_save_token)
    generator = AccessTokenGenerator(
        issuer=app.config["ISSUER"], refresh_token_generator=lambda **_: secrets.token_urlsafe(48)
    )
    generator.DEFAULT_EXPIRES_IN = app.config["ACCESS_TOKEN_SECONDS"]
    generator.GRANT_TYPES_EXPIRES_IN = {}
    server.register_token_generator("default", generator)
    server.register_grant(
        AuthorizationCodeGrant, [RequiredS256Challenge(required=True), OpenIDCodeExtension(require_nonce=True)]
    )
    server.register_grant(RefreshTokenGrant)
    server.register_endpoint(TokenRevocation)
    app.extensions["authorization_server"] = server
