"""The audit trail of the company's settings: every change by whom, when, and the values around it."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.empresa.models import AuditEvent
from portal.service.empresa.schemas import AuditEventOut, AuditList
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.paging import PageQuery, keyset


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{field: {"antes": old, "despues": new}} for each field whose value changed."""
    return {
        name: {"antes": _plain(before.get(name)), "despues": _plain(value)}
        for name, value in after.items()
        if before.get(name) != value
    }


def record(
    session: Session, principal: Principal, action: str, changes: dict[str, Any], target: str | None = None
) -> None:
    """Add an event to the caller's transaction. `changes` must never hold a secret or key material."""
    record_by(session, principal.company_id, principal.actor, action, changes, target)


def record_by(
    session: Session, company_id: int, actor: str, action: str, changes: dict[str, Any], target: str | None = None
) -> None:
    """`record` for a change made by someone other than a request's caller (an operator's command)."""
    session.add(AuditEvent(company_id=company_id, actor=actor, action=action, target=target, changes=changes))


def list_events(principal: Principal, page: PageQuery) -> AuditList:
    query = select(AuditEvent).where(AuditEvent.company_id == principal.company_id)
    rows, following = keyset(db.session(), query, (AuditEvent.id,), page.cursor, page.limite, lambda r: (r[0].id,))
    return AuditList(
        items=[
            AuditEventOut(fecha=e.at, actor=e.actor, accion=e.action, objeto=e.target, cambios=e.changes)
            for (e,) in rows
        ],
        siguiente_cursor=following,
    )
