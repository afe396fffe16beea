"""API key secrets: making them, hashing them, and recognising one on a request (`X-API-Key`).

A key is `cfe_live_` + 256 random bits (URL-safe base64). Only HMAC-SHA256(pepper, key) is stored: a
database leak alone does not yield usable keys, and since the key carries 256 bits of entropy a fast
keyed hash is enough (a slow password hash on every request would only cost CPU). The hash is looked up
through a unique index and compared once more in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import string
from datetime import UTC, datetime, timedelta

from flask import current_app, request
from sqlalchemy import or_, select, update

from portal.service.apikeys import limiting
from portal.service.apikeys.models import ApiKey
from portal.service.platform import db
from portal.service.platform.auth import API_KEY, Principal
from portal.service.platform.errors import Forbidden, Unauthorized
from portal.service.platform.i18n import _
from portal.service.platform.models import Role

log = logging.getLogger("portal.service.apikeys")

KEY_PREFIX = "cfe_live_"
SHOWN_PREFIX_LENGTH = len(KEY_PREFIX) + 7
_MAX_KEY_LENGTH = 100
_ID_ALPHABET = string.ascii_letters + string.digits
LAST_USED_GRANULARITY = timedelta(minutes=1)


def new_secret() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def new_public_id() -> str:
    return "ak_" + "".join(secrets.choice(_ID_ALPHABET) for _ in range(12))


def shown_prefix(secret: str) -> str:
    return secret[:SHOWN_PREFIX_LENGTH]


def key_hash(secret: str) -> str:
    pepper = current_app.config["API_KEY_PEPPER"]
    return hmac.new(pepper.encode(), secret.encode(), hashlib.sha256).hexdigest()


def _invalid() -> Unauthorized:
    return Unauthorized(_("La clave de API no es válida."), code="invalid_api_key")


def verify(raw_key: str) -> Principal:
    """The principal of a request that sent `X-API-Key: raw_key` (registered as the app's verifier).

    401 for an unknown or revoked key, 403 when the request names another company, 429 over the key's
    limit. The key acts as a `usuario` of its company: it may issue and look up, never manage keys.
    """
    raw_key = raw_key.strip()
    if not raw_key.startswith(KEY_PREFIX) or len(raw_key) > _MAX_KEY_LENGTH or not raw_key.isascii():
        raise _invalid()
    digest = key_hash(raw_key)
    key = db.session().scalar(select(ApiKey).where(ApiKey.key_hash == digest))
    if key is None or not hmac.compare_digest(key.key_hash, digest):
        raise _invalid()
    if not key.active:
        raise Unauthorized(_("La clave de API fue revocada."), code="revoked_api_key")
    _refuse_other_company(key)
    limiting.consume(key)
    _touch(key)
    return Principal(API_KEY, key.company_id, Role.USUARIO, api_key_id=key.public_id)


def _refuse_other_company(key: ApiKey) -> None:
    """A key works for its own company only, whatever the request says (X-Empresa-Id, idEmpresa)."""
    for named in (request.headers.get("X-Empresa-Id"), request.args.get("idEmpresa")):
        if named is not None and named.strip() != str(key.company_id):
            raise Forbidden(_("La clave de API es de otra empresa."), code="empresa_ajena")


def _touch(key: ApiKey) -> None:
    """Record the last use, at most once a minute per key: not a database write per request."""
    now = datetime.now(UTC)
    last = key.last_used_at
    if last is not None and now - last < LAST_USED_GRANULARITY:
        return
    try:
        with db.new_session() as session:
            session.execute(
                update(ApiKey)
                .where(
                    ApiKey.id == key.id,
                    or_(ApiKey.last_used_at.is_(None), ApiKey.last_used_at < now - LAST_USED_GRANULARITY),
                )
                .values(last_used_at=now)
            )
            session.commit()
    except Exception:  # noqa: BLE001 - bookkeeping must never fail the caller's request
        log.warning("could not record the last use of api key %s", key.public_id, exc_info=True)
