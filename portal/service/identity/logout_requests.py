"""What an RP-initiated logout request asks for, checked as OpenID Connect RP-Initiated Logout 1.0 says.

- `id_token_hint`: an ID token this provider issued (signature and `iss`; an expired one is still a good hint,
  section 2: "the OP SHOULD accept ID Tokens ... when the RP session ... has expired"). Its `aud` names the client.
- `client_id`: needed when there is no hint and a `post_logout_redirect_uri` is asked for; with a hint it must be
  one of the token's audiences.
- `post_logout_redirect_uri`: only one registered for that client, compared exactly; otherwise the request is
  refused (never redirected to).
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwt import JWTClaimsRegistry
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from portal.service.platform import db
from portal.service.platform.models import OAuthClient, User


class LogoutRefused(Exception):
    def __init__(self, error: str, description: str):
        super().__init__(description)
        self.error = error
        self.description = description


@dataclass(frozen=True)
class LogoutRequest:
    client_id: str | None
    client_name: str | None
    redirect_uri: str | None
    state: str | None
    hinted_user_id: str | None  # the `sub` of a valid id_token_hint
    id_token_hint: str | None


def _hint_claims(hint: str) -> dict:
    keys = current_app.extensions["identity_keys"]
    try:
        decoded = jwt.decode(hint, keys.public_set, algorithms=["RS256"])
        # An expired ID token is still a good hint (its signature says who it was issued to): `exp` is left out.
        unexpired = {name: value for name, value in decoded.claims.items() if name != "exp"}
        JWTClaimsRegistry(
            iss={"essential": True, "value": current_app.config["ISSUER"]}, sub={"essential": True}
        ).validate(unexpired)
    except (JoseError, ValueError) as exc:
        raise LogoutRefused("invalid_request", "id_token_hint is not an ID token of this provider.") from exc
    if decoded.header.get("typ", "").lower() in ("at+jwt", "application/at+jwt"):
        raise LogoutRefused("invalid_request", "id_token_hint is an access token, not an ID token.")
    return decoded.claims


def read(params: MultiDict[str, str]) -> LogoutRequest:
    """The request's parameters, checked; LogoutRefused when one of them cannot be honoured."""
    hint = params.get("id_token_hint") or None
    client_id = params.get("client_id") or None
    target = params.get("post_logout_redirect_uri") or None
    sub = None
    if hint:
        claims = _hint_claims(hint)
        audiences = claims.get("aud") or []
        audiences = [audiences] if isinstance(audiences, str) else list(audiences)
        if client_id and client_id not in audiences:
            raise LogoutRefused("invalid_request", "client_id is not an audience of id_token_hint.")
        client_id = client_id or (audiences[0] if audiences else None)
        sub = str(claims["sub"])
    client = db.session().scalar(select(OAuthClient).where(OAuthClient.client_id == client_id)) if client_id else None
    if target:
        allowed = client.client_metadata.get("post_logout_redirect_uris", []) if client else []
        if target not in allowed:
            raise LogoutRefused(
                "invalid_request", "post_logout_redirect_uri is not registered for this client (client_id)."
            )
    return LogoutRequest(
        client_id=client.client_id if client else None,
        client_name=(client.client_metadata.get("client_name") or client.client_id) if client else None,
        redirect_uri=target,
        state=params.get("state") or None,
        hinted_user_id=sub,
        id_token_hint=hint,
    )


def hinted_by_this_user(request: LogoutRequest, signed_in: User | None) -> bool:
    """True when the hint names the browser's signed-in user (or nobody is signed in): no need to ask."""
    if request.hinted_user_id is None:
        return False
    return signed_in is None or str(signed_in.id) == request.hinted_user_id
