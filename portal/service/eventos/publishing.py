"""`publish`: record an event in the caller's transaction (one INSERT, nothing else), and wake the fan-out
after that transaction commits.

The wake-up is a SQLAlchemy `after_commit` hook on sessions that published, so a publisher writes one line
and never enqueues anything itself; a rolled-back transaction (or savepoint) takes its events with it. The
fan-out task is debounced per process, as the envios packer is: while a run is scheduled and not started,
later events need no task of their own. A periodic sweep catches whatever a lost wake-up left behind.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session

from portal.service.eventos.catalogue import EVENTS
from portal.service.eventos.models import Event
from portal.service.platform import db

_PUBLISHED = "eventos.published"
_EVENT_TABLE = Event.metadata.tables[Event.__tablename__]  # the Table (__table__ is typed as a FromClause)
_INSERT_EVENT = db.prepared_insert(_EVENT_TABLE)

_waker: Callable[[set[int]], None] | None = None


def new_event_id() -> str:
    return f"evt_{uuid.uuid4().hex}"


def publish(session: Session, company_id: int, event_type: str, data: dict[str, Any]) -> str:
    """Record `event_type` for the company in `session`'s transaction; returns the event's id."""
    if event_type not in EVENTS:
        raise ValueError(f"unknown event type {event_type!r}")
    event_id = new_event_id()
    # Prepared once, on the transaction's DBAPI cursor: the issuing path runs it for every receipt.
    values = {
        "id": event_id,
        "company_id": company_id,
        "type": event_type,
        "data": data,
        "created_at": datetime.now(UTC),
    }
    db.insert_values(db.connection_of(session), _INSERT_EVENT, values)
    session.info.setdefault(_PUBLISHED, set()).add(company_id)
    return event_id


def configure(waker: Callable[[set[int]], None]) -> None:
    """Called by the webhooks area: what wakes the fan-out after a commit that published events of these
    companies (it debounces, and skips companies with no webhook)."""
    global _waker
    _waker = waker


@event.listens_for(Session, "after_commit")
def _wake_after_commit(session: Session) -> None:
    companies = session.info.pop(_PUBLISHED, None)
    if companies and _waker is not None:
        _waker(companies)


@event.listens_for(Session, "after_rollback")
def _forget_on_rollback(session: Session) -> None:
    # A savepoint's rollback also lands here; the flag only costs a fan-out run that finds nothing.
    if not session.in_transaction():
        session.info.pop(_PUBLISHED, None)
