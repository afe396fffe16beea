"""Access tokens revoked before they expire (sign-out at the portal, RFC 7009 revocation).

Access tokens are JWTs the API checks by signature, so revoking one means remembering its `jti` until its
`exp`. The API reads the list in the same query that reads the caller's memberships on every request
(auth.py), so a revocation holds at once in every process that shares the database.
"""

from __future__ import annotations

import time

from flask import current_app
from joserfc import jwt
from joserfc.errors import JoseError
from sqlalchemy import BindParameter, Exists, delete, or_, select
from sqlalchemy.orm import Session

from portal.service.identity.models import RevokedAccessToken
from portal.service.platform.models import OAuthAuthorizationCode, OAuthToken


def revoke_access_token(store: Session, access_token: str) -> None:
    """Remember `access_token` (one of ours, read from the token table) as revoked until it expires."""
    try:
        claims = jwt.decode(access_token, current_app.extensions["identity_keys"].public_set).claims
    except (JoseError, ValueError):
        return
    jti, exp = claims.get("jti"), claims.get("exp")
    if not isinstance(jti, str) or not isinstance(exp, int) or exp <= time.time():
        return
    store.execute(delete(RevokedAccessToken).where(RevokedAccessToken.expires_at < int(time.time())))
    if store.get(RevokedAccessToken, jti) is None:
        store.add(RevokedAccessToken(jti=jti, expires_at=exp))


def revoke_user_grants(store: Session, user_id: int) -> int:
    """End everything the provider has handed out for `user_id` (a password change): every refresh token, every
    access token not yet expired (listed as revoked, as sign-out does) and every code not yet exchanged. Returns
    how many tokens were revoked. Nothing is committed: the caller commits it with the change that calls for it."""
    now = int(time.time())
    tokens = store.scalars(
        select(OAuthToken).where(
            OAuthToken.user_id == user_id,
            or_(OAuthToken.refresh_token_revoked_at == 0, OAuthToken.access_token_revoked_at == 0),
        )
    ).all()
    for token in tokens:
        if token.access_token_revoked_at == 0 and not token.is_expired():
            revoke_access_token(store, token.access_token)
        token.access_token_revoked_at = token.access_token_revoked_at or now
        token.refresh_token_revoked_at = token.refresh_token_revoked_at or now
    store.execute(delete(OAuthAuthorizationCode).where(OAuthAuthorizationCode.user_id == user_id))
    return len(tokens)


def revoked_clause(jti: str | BindParameter[str]) -> Exists:
    """A boolean SQL expression: whether `jti` (a value, or the statement's parameter) is revoked (used inside
    auth's per-request query)."""
    return select(RevokedAccessToken.jti).where(RevokedAccessToken.jti == jti).exists()
