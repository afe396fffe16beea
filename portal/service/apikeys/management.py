"""What admins do with their company's keys: create, revoke, change the limit; each recorded as an event.

Every lookup is by (public id, company): another company's key is simply not found (404).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from portal.service.apikeys import credentials, limiting
from portal.service.apikeys.models import ApiKey, ApiKeyEvent
from portal.service.apikeys.schemas import (
    DEFAULT_LIMIT,
    DEFAULT_WINDOW_SECONDS,
    ApiKeyCreate,
    ApiKeyCreated,
    ApiKeyEventOut,
    ApiKeyList,
    ApiKeyOut,
    RateLimit,
    Usage,
)
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import Conflict, NotFound
from portal.service.platform.i18n import _
from portal.service.platform.paging import PageQuery, keyset

# Stored action -> the word the API shows (the endpoint's name).
_ACTIONS: dict[str, Literal["crear", "revocar", "rate-limit"]] = {
    "create": "crear",
    "revoke": "revocar",
    "rate_limit": "rate-limit",
}


def list_keys(principal: Principal, page: PageQuery) -> ApiKeyList:
    query = select(ApiKey).where(ApiKey.company_id == principal.company_id).options(selectinload(ApiKey.events))
    order = (ApiKey.created_at, ApiKey.id)
    rows, following = keyset(db.session(), query, order, page.cursor, page.limite, lambda r: (r[0].created_at, r[0].id))
    return ApiKeyList(items=[present(key) for (key,) in rows], siguiente_cursor=following)


def create_key(principal: Principal, body: ApiKeyCreate) -> ApiKeyCreated:
    secret = credentials.new_secret()
    limit = body.rateLimit or RateLimit(limite=DEFAULT_LIMIT, ventanaSegundos=DEFAULT_WINDOW_SECONDS)
    with db.write_transaction() as session:
        key = ApiKey(
            public_id=credentials.new_public_id(),
            company_id=principal.company_id,
            name=body.nombre,
            prefix=credentials.shown_prefix(secret),
            key_hash=credentials.key_hash(secret),
            rate_limit=limit.limite,
            rate_window_seconds=limit.ventanaSegundos,
            created_at=datetime.now(UTC),
            created_by=principal.actor,
        )
        session.add(key)
        session.flush()
        _record(session, key, principal, "create", None, {"nombre": key.name, "rateLimit": limit.as_dict()})
    shown = _present_committed(key.id)
    return ApiKeyCreated(**shown.model_dump(), clave=secret)


def revoke_key(principal: Principal, public_id: str) -> ApiKeyOut:
    """Revoke; revoking a revoked key changes nothing and answers it as it is."""
    with db.write_transaction() as session:
        key = _find(session, principal, public_id)
        if key.active:
            key.revoked_at = datetime.now(UTC)
            key.revoked_by = principal.actor
            _record(session, key, principal, "revoke", {"estado": "activa"}, {"estado": "revocada"})
    return _present_committed(key.id)


def set_rate_limit(principal: Principal, public_id: str, limit: RateLimit) -> ApiKeyOut:
    with db.write_transaction() as session:
        key = _find(session, principal, public_id)
        if not key.active:
            raise Conflict(_("La clave está revocada: su límite ya no se puede cambiar."), code="clave_revocada")
        old = {"limite": key.rate_limit, "ventanaSegundos": key.rate_window_seconds}
        if old != limit.as_dict():
            key.rate_limit, key.rate_window_seconds = limit.limite, limit.ventanaSegundos
            _record(session, key, principal, "rate_limit", old, limit.as_dict())
    return _present_committed(key.id)


def _find(session: Session, principal: Principal, public_id: str) -> ApiKey:
    key = session.scalar(select(ApiKey).where(ApiKey.public_id == public_id, ApiKey.company_id == principal.company_id))
    if key is None:
        raise NotFound(_("No existe esa clave de API en la empresa."), code="apikey_not_found")
    return key


def _present_committed(key_id: int) -> ApiKeyOut:
    # A session of its own: the request's may hold a read snapshot from before the write committed.
    with db.new_session() as session:
        return present(
            session.scalars(select(ApiKey).where(ApiKey.id == key_id).options(selectinload(ApiKey.events))).one()
        )


def _record(
    session: Session, key: ApiKey, principal: Principal, action: str, old: dict | None, new: dict | None
) -> None:
    session.add(
        ApiKeyEvent(
            api_key_id=key.id,
            company_id=key.company_id,
            action=action,
            actor=principal.actor,
            at=datetime.now(UTC),
            old_value=old,
            new_value=new,
        )
    )


def present(key: ApiKey) -> ApiKeyOut:
    window = limiting.usage(key) if key.active else None
    return ApiKeyOut(
        id=key.public_id,
        prefijo=key.prefix,
        nombre=key.name,
        estado="activa" if key.active else "revocada",
        creadaEn=key.created_at,
        creadaPor=key.created_by,
        ultimoUso=key.last_used_at,
        revocadaEn=key.revoked_at,
        revocadaPor=key.revoked_by,
        rateLimit=RateLimit(limite=key.rate_limit, ventanaSegundos=key.rate_window_seconds),
        uso=Usage(usados=window.used, restantes=window.remaining, reiniciaEn=window.reset_datetime())
        if window
        else None,
        eventos=[
            ApiKeyEventOut(
                accion=_ACTIONS[e.action],
                actor=e.actor,
                fecha=e.at,
                anterior=e.old_value,
                nuevo=e.new_value,
            )
            for e in key.events
        ],
    )
