"""OpenID Connect with the service's identity provider: the one place the portal speaks OAuth.

    provider = OidcClient(issuer, client_id, client_secret)             # one per app
    start = provider.authorization(redirect_uri, ui_locales="es")       # keep start.state/nonce/code_verifier
    tokens = provider.exchange_code(code, redirect_uri=..., code_verifier=..., nonce=...)
    tokens = provider.refresh(tokens.refresh_token)
    provider.revoke(token, token_type_hint="refresh_token")
    url = provider.end_session_url(id_token_hint=..., post_logout_redirect_uri=...)
    url = provider.password_change_url(return_to=...)                  # the provider's own page, a link

The code flow with PKCE (S256), state and nonce; the ID token's signature checked against the provider's keys
and its claims (issuer, audience, nonce, expiry, at_hash) validated. Discovery and the key set are fetched
once per client. Failures are the client's errors: `ServiceUnavailable` when the provider does not answer,
`SignInRefused` when it answers with an OAuth error (an expired code, a revoked refresh token) or a token
that does not check out. Views never see `requests` or authlib.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass
from threading import Lock
from typing import Any
from urllib.parse import urlencode

import requests
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet, KeySetSerialization
from joserfc.jws import JWSRegistry

from portal.client.errors import ServiceUnavailable, SignInRefused
from portal.client.models import JsonObject

SCOPE = "openid profile email cfe"
# The ID token's moments may differ from ours by this much (clocks of two machines).
LEEWAY_SECONDS = 120


@dataclass(frozen=True)
class ProviderMetadata:
    """What the provider's discovery document says this client needs."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    revocation_endpoint: str | None = None
    end_session_endpoint: str | None = None
    signing_algorithms: tuple[str, ...] = ("RS256",)

    @classmethod
    def from_json(cls, data: JsonObject) -> ProviderMetadata:
        return cls(
            issuer=data["issuer"],
            authorization_endpoint=data["authorization_endpoint"],
            token_endpoint=data["token_endpoint"],
            jwks_uri=data["jwks_uri"],
            revocation_endpoint=data.get("revocation_endpoint"),
            end_session_endpoint=data.get("end_session_endpoint"),
            signing_algorithms=tuple(data.get("id_token_signing_alg_values_supported") or ("RS256",)),
        )


@dataclass(frozen=True)
class AuthorizationStart:
    """Where to send the browser, and the secrets to keep (server-side) until the callback comes back."""

    url: str
    state: str
    nonce: str
    code_verifier: str


@dataclass(frozen=True)
class Tokens:
    """The provider's tokens. `expires_at` is the access token's end, in seconds since the epoch; `subject` is
    the ID token's `sub` once it has been checked (None for a refresh, which brings no new ID token here)."""

    access_token: str
    expires_at: float
    refresh_token: str | None = None
    id_token: str | None = None
    subject: str | None = None

    @classmethod
    def from_json(cls, data: JsonObject, *, now: float | None = None) -> Tokens:
        moment = time.time() if now is None else now
        expires_at = data.get("expires_at") or moment + int(data.get("expires_in", 300))
        return cls(
            access_token=data["access_token"],
            expires_at=float(expires_at),
            refresh_token=data.get("refresh_token"),
            id_token=data.get("id_token"),
        )


def _pkce_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


class OidcClient:
    """This portal as a client of the provider at `issuer` (its `/.well-known/openid-configuration`)."""

    def __init__(self, issuer: str, client_id: str, client_secret: str | None, *, timeout: float = 10.0):
        self.issuer = issuer.rstrip("/")
        self.client_id = client_id
        self._auth = (client_id, client_secret or "")
        self.timeout = timeout
        self._session = requests.Session()
        self._lock = Lock()
        self._metadata: ProviderMetadata | None = None
        self._keys: KeySet | None = None

    # Discovery and keys -------------------------------------------------------------------------------------

    def metadata(self) -> ProviderMetadata:
        """The discovery document, fetched once (raises ServiceUnavailable while the provider does not answer)."""
        if self._metadata is None:
            document = self._call("GET", f"{self.issuer}/.well-known/openid-configuration")
            with self._lock:
                self._metadata = ProviderMetadata.from_json(document)
        return self._metadata

    def _key_set(self, *, fresh: bool = False) -> KeySet:
        if self._keys is None or fresh:
            document = self._call("GET", self.metadata().jwks_uri)
            keys = KeySet.import_key_set(KeySetSerialization(keys=document.get("keys") or []))
            with self._lock:
                self._keys = keys
        return self._keys

    # The code flow ------------------------------------------------------------------------------------------

    def authorization(self, redirect_uri: str, *, ui_locales: str | None = None) -> AuthorizationStart:
        """A new authorization request: the URL of the provider's sign-in page and the state, nonce and PKCE
        verifier that the callback must present again."""
        state, nonce, verifier = secrets.token_urlsafe(24), secrets.token_urlsafe(24), secrets.token_urlsafe(48)
        params = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": redirect_uri,
            "scope": SCOPE,
            "state": state,
            "nonce": nonce,
            "code_challenge": _pkce_challenge(verifier),
            "code_challenge_method": "S256",
        }
        if ui_locales:
            params["ui_locales"] = ui_locales
        url = f"{self.metadata().authorization_endpoint}?{urlencode(params)}"
        return AuthorizationStart(url=url, state=state, nonce=nonce, code_verifier=verifier)

    def exchange_code(self, code: str, *, redirect_uri: str, code_verifier: str, nonce: str) -> Tokens:
        """The callback's code for tokens; the ID token checked (signature, issuer, audience, nonce, expiry)."""
        data = self._token_request(
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": redirect_uri,
                "code_verifier": code_verifier,
            }
        )
        tokens = Tokens.from_json(data)
        if not tokens.id_token:
            raise SignInRefused("El proveedor no devolvió un id_token.", code="invalid_token")
        claims = self._checked_id_token(tokens.id_token, access_token=tokens.access_token, nonce=nonce)
        return Tokens(
            access_token=tokens.access_token,
            expires_at=tokens.expires_at,
            refresh_token=tokens.refresh_token,
            id_token=tokens.id_token,
            subject=str(claims["sub"]),
        )

    def refresh(self, refresh_token: str) -> Tokens:
        """New tokens for a refresh token (the provider rotates it). SignInRefused when it is revoked or expired."""
        return Tokens.from_json(self._token_request({"grant_type": "refresh_token", "refresh_token": refresh_token}))

    def revoke(self, token: str, *, token_type_hint: str) -> None:
        """Revoke a token (RFC 7009): a refresh token takes its access tokens with it."""
        endpoint = self.metadata().revocation_endpoint
        if endpoint:
            self._call("POST", endpoint, data={"token": token, "token_type_hint": token_type_hint}, auth=True)

    def end_session_url(
        self, *, post_logout_redirect_uri: str, id_token_hint: str | None, ui_locales: str | None = None
    ) -> str | None:
        """Where to send the browser to end the provider's own session (RP-initiated logout); None when the
        provider has no such endpoint."""
        endpoint = self.metadata().end_session_endpoint
        if not endpoint:
            return None
        params = {"client_id": self.client_id, "post_logout_redirect_uri": post_logout_redirect_uri}
        if id_token_hint:
            params["id_token_hint"] = id_token_hint
        if ui_locales:
            params["ui_locales"] = ui_locales
        return f"{endpoint}?{urlencode(params)}"

    def password_change_url(self, *, return_to: str, ui_locales: str | None = None) -> str:
        """The provider's own page where the person signed in there changes their password (the portal never sees
        one); its way back is `return_to`, which must be one of this client's post-logout URIs. No request."""
        params = {"client_id": self.client_id, "return_to": return_to}
        if ui_locales:
            params["ui_locales"] = ui_locales
        return f"{self.issuer}/cuenta/contrasena?{urlencode(params)}"

    # HTTP ---------------------------------------------------------------------------------------------------

    def _token_request(self, form: dict[str, str]) -> JsonObject:
        return self._call("POST", self.metadata().token_endpoint, data=form, auth=True)

    def _call(self, method: str, url: str, *, data: dict[str, str] | None = None, auth: bool = False) -> JsonObject:
        try:
            response = self._session.request(
                method, url, data=data, auth=self._auth if auth else None, timeout=self.timeout
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise ServiceUnavailable(f"identity provider unreachable: {exc}", status=503, code="unavailable") from exc
        if response.status_code >= 500:
            raise ServiceUnavailable(
                f"identity provider answered {response.status_code}", status=503, code="unavailable"
            )
        body = _json_or_none(response)
        if response.status_code >= 400 or body is None:
            error = body or {}
            raise SignInRefused(
                str(error.get("error_description") or error.get("error") or f"HTTP {response.status_code}"),
                status=response.status_code,
                code=str(error.get("error") or "invalid_response"),
            )
        return body

    def _checked_id_token(self, id_token: str, *, access_token: str, nonce: str) -> JsonObject:
        registry = JWSRegistry(algorithms=list(self.metadata().signing_algorithms), strict_check_header=False)
        try:
            try:
                token = jwt.decode(id_token, self._key_set(), registry=registry)
            except InvalidKeyIdError:  # the provider rotated its keys since we fetched them
                token = jwt.decode(id_token, self._key_set(fresh=True), registry=registry)
            claims = CodeIDToken(
                token.claims,
                token.header,
                {"iss": {"essential": True, "values": [self.metadata().issuer]}, "aud": {"values": [self.client_id]}},
                {"nonce": nonce, "client_id": self.client_id, "access_token": access_token},
            )
            claims.validate(leeway=LEEWAY_SECONDS)
        except (JoseError, ValueError) as exc:
            raise SignInRefused(f"id_token refused: {exc}", status=400, code="invalid_token") from exc
        result: JsonObject = dict(token.claims)
        return result


def _json_or_none(response: requests.Response) -> JsonObject | None:
    try:
        body: Any = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None
