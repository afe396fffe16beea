"""Idempotency-Key with Stripe's semantics, for any endpoint that creates something.

Issuing a receipt looks the key up and records it in the very transaction that stores the receipt
(`requested_key`, `lookup`, `record`): there is no separate claim, so a process killed mid-issue leaves
nothing behind, and a retry with the same key gets the receipt or issues it afresh at once. Two requests with
one key at the same moment: the second waits on the first's row (unique constraint) and then replays it.

The two-step form below (`claim`, `complete`, `release`) serves endpoints whose work spans several
transactions:
- The first request with a key claims it (state in_progress) in a short transaction of its own.
- Same key, same body (as the client sent it, not as a model completed it), finished: the stored answer is
  replayed (`Idempotent-Replayed: true`).
- Same key, other body: 422 `idempotency_key_reused`. Same key while the first is running: 409.
- A claim left behind by a crashed worker is taken over after `STALE_AFTER`.
- A request that fails validation releases its claim, so the caller can fix the body and retry.
Keys are kept at least 24 hours; each new claim, and each `record` at most once a minute per process, deletes
the company's older ones (`purge_expired` does it for every company).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple, Protocol

from flask import Response, request
from sqlalchemy import bindparam, delete, select
from sqlalchemy.exc import IntegrityError

from portal.service.platform import db
from portal.service.platform.errors import ApiError, Conflict
from portal.service.platform.i18n import _
from portal.service.platform.models import IdempotencyRecord

STALE_AFTER = timedelta(seconds=120)
# The codes `lookup` answers with when the key, not the request, is the problem (nothing was attempted).
KEY_ERRORS = frozenset({"idempotency_key_reused", "idempotency_in_progress"})
KEEP_FOR = timedelta(hours=24)
SWEEP_EVERY = timedelta(minutes=1)
MAX_KEY_LENGTH = 255

_TABLE = IdempotencyRecord.metadata.tables[IdempotencyRecord.__tablename__]  # typed Table, not __table__
# The statements every issue runs, built once (building a statement costs about as much as running it).
_FIND_KEY = select(IdempotencyRecord).where(
    IdempotencyRecord.company_id == bindparam("company_id"),
    IdempotencyRecord.scope == bindparam("scope"),
    IdempotencyRecord.key == bindparam("key"),
)
# The same look-up as plain columns on the write transaction's DBAPI cursor (no ORM object: cheaper).
_KEYS = _TABLE
_FIND_KEY_ROW = db.Prepared(
    select(
        _KEYS.c.id,
        _KEYS.c.request_hash,
        _KEYS.c.state,
        _KEYS.c.response_status,
        _KEYS.c.response_body,
        _KEYS.c.created_at,
    ).where(
        _KEYS.c.company_id == bindparam("company_id"),
        _KEYS.c.scope == bindparam("scope"),
        _KEYS.c.key == bindparam("key"),
    )
)


class _KeyRow(NamedTuple):
    """A row of _FIND_KEY_ROW."""

    id: int
    request_hash: str
    state: str
    response_status: int | None
    response_body: dict[str, Any] | None
    created_at: datetime


_DELETE_KEY = delete(_KEYS).where(_KEYS.c.id == bindparam("record_id"))
_SWEEP = delete(_TABLE).where(
    IdempotencyRecord.company_id == bindparam("company_id"), IdempotencyRecord.created_at < bindparam("before")
)
_INSERT_DONE = db.prepared_insert(_TABLE)
_last_sweep: dict[int, datetime] = {}
_sweeps_lock = threading.Lock()


@dataclass(frozen=True)
class Claim:
    """A claimed key (record_id set), a finished one to replay (`replay`), or no key at all."""

    record_id: int | None = None
    replay: Response | None = None


def request_fingerprint(payload: object) -> str:
    """A stable hash of the request body as parsed (key order and spacing do not matter)."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _sent_fingerprint(path: dict | None) -> str:
    """The fingerprint of what the client sent: its JSON body as parsed (numbers kept exactly as written), with
    the `path` parameters that name what the request acts on. Never the values a model fills in: a default
    such as fchEmis (today) moves at midnight, and the retry of a finished request must still replay."""
    raw = request.get_data(cache=True)
    body = json.loads(raw, parse_float=Decimal) if raw else {}
    return request_fingerprint(body if path is None else {"path": path, "body": body})


@dataclass(frozen=True)
class RequestedKey:
    """The request's Idempotency-Key, where it applies (`scope`) and the fingerprint of its body."""

    scope: str
    key: str
    fingerprint: str


def _header_key() -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and (not 1 <= len(key) <= MAX_KEY_LENGTH or not key.isprintable()):
        raise ApiError(
            _("Idempotency-Key debe tener entre 1 y {max} caracteres imprimibles.", max=MAX_KEY_LENGTH),
            code="idempotency_key_invalid",
            status=400,
        )
    return key


def requested_key(scope: str, *, path: dict | None = None) -> RequestedKey | None:
    """The request's Idempotency-Key (400 if malformed), or None when it sent none."""
    key = _header_key()
    return None if key is None else RequestedKey(scope, key, _sent_fingerprint(path))


class _Stored(Protocol):
    """A done key's stored answer: the ORM row or a plain row of the same columns."""

    @property
    def response_status(self) -> int | None: ...

    @property
    def response_body(self) -> dict[str, Any] | None: ...


def _replayed(done: _Stored) -> Response:
    assert done.response_status is not None and done.response_body is not None  # stored with state "done"
    return replay_response(done.response_status, done.response_body)


def replay_response(status: int, body: dict) -> Response:
    response = Response(json.dumps(body, ensure_ascii=False), status=status, mimetype="application/json")
    response.headers["Idempotent-Replayed"] = "true"
    return response


def recorded(company_id: int, requested: RequestedKey) -> Response | None:
    """Before any check of the request: the replay of the key's finished outcome, or None (a free key, or one
    still in progress: the caller's `lookup` in its write transaction decides those). Only reads. A retry of a
    request that succeeded gets its answer back even if the rules it passed have changed since (another regime,
    a CAE expired): an error would invite the caller to issue a duplicate. 422 if the key came with another
    body."""
    found = db.session().scalar(_FIND_KEY, {"company_id": company_id, "scope": requested.scope, "key": requested.key})
    if found is None or found.state != "done":
        return None
    if found.request_hash != requested.fingerprint:
        raise _reused()
    return _replayed(found)


def _reused() -> ApiError:
    return ApiError(
        _("Esta Idempotency-Key ya se usó con otro cuerpo de solicitud."), code="idempotency_key_reused", status=422
    )


def lookup(session, company_id: int, requested: RequestedKey) -> Response | None:
    """Inside the caller's write transaction: the replay of the key's first outcome, or None when the key is
    free (then the caller does its work and `record`s the outcome in the same transaction). 422 if the key
    came with another body; 409 while a two-step claim on it is younger than STALE_AFTER."""
    connection = db.connection_of(session)
    rows = _FIND_KEY_ROW.rows(connection, {"company_id": company_id, "scope": requested.scope, "key": requested.key})
    if not rows:
        return None
    record = _KeyRow(*rows[0])
    if record.request_hash != requested.fingerprint:
        raise _reused()
    if record.state == "done":
        return _replayed(record)
    if datetime.now(UTC) - record.created_at < STALE_AFTER:
        raise _in_progress()
    connection.execute(_DELETE_KEY, {"record_id": record.id})  # a two-step claim abandoned by a crashed worker
    return None


def record(session, company_id: int, requested: RequestedKey, status: int, body: dict) -> None:
    """Store the outcome under the key in the caller's transaction (which, once a minute per process, also
    sweeps the company's keys older than KEEP_FOR). On PostgreSQL a concurrent first request with the same
    key makes this wait for it and then raise IntegrityError: look the key up again (in a new transaction)
    to replay its outcome."""
    now = datetime.now(UTC)
    connection = db.connection_of(session)
    if _sweep_due(company_id, now):
        connection.execute(_SWEEP, {"company_id": company_id, "before": now - KEEP_FOR})
    # Prepared once and run on the DBAPI cursor: nothing reads the row back in this transaction, so the ORM's
    # unit of work (and Core's per-statement work) adds only cost.
    db.insert_values(
        connection,
        _INSERT_DONE,
        {
            "company_id": company_id,
            "scope": requested.scope,
            "key": requested.key,
            "request_hash": requested.fingerprint,
            "state": "done",
            "response_status": status,
            "response_body": body,
            "created_at": now,
        },
    )


def _sweep_due(company_id: int, now: datetime) -> bool:
    """Whether `record` sweeps the company's old keys now: at most once per SWEEP_EVERY per process (keys
    still live at least KEEP_FOR; the sweep only keeps the table small)."""
    with _sweeps_lock:
        if _last_sweep.get(company_id, datetime.min.replace(tzinfo=UTC)) > now - SWEEP_EVERY:
            return False
        _last_sweep[company_id] = now
        return True


def claim(company_id: int, scope: str, *, path: dict | None = None) -> Claim:
    """Claim the request's Idempotency-Key (if any) or produce the replay of its first outcome. `path`: the
    path parameters the body does not carry (the receipt a request acts on)."""
    key = _header_key()
    if key is None:
        return Claim()
    fingerprint = _sent_fingerprint(path)
    try:
        return _claim(company_id, scope, key, fingerprint)
    except IntegrityError:
        # Two first requests with this key: both looked and found nothing, and the other one's INSERT won the
        # unique constraint (PostgreSQL; SQLite's BEGIN IMMEDIATE queues the look-ups instead). Its claim is
        # committed now, so looking again gives the right answer: 409 while it runs, its replay, or 422.
        pass
    try:
        return _claim(company_id, scope, key, fingerprint)
    except IntegrityError as exc:  # claimed, released and claimed again in between: still someone else's
        raise _in_progress() from exc


def _in_progress() -> Conflict:
    return Conflict(
        _("Una solicitud con esta Idempotency-Key todavía está en curso; reintentá en unos segundos."),
        code="idempotency_in_progress",
    )


def _claim(company_id: int, scope: str, key: str, fingerprint: str) -> Claim:
    now = datetime.now(UTC)
    with db.write_transaction() as session:
        record = session.scalar(
            select(IdempotencyRecord)
            .where(
                IdempotencyRecord.company_id == company_id,
                IdempotencyRecord.scope == scope,
                IdempotencyRecord.key == key,
            )
            .with_for_update()
        )
        if record is not None and record.request_hash != fingerprint:
            raise _reused()
        if record is not None and record.state == "done":
            return Claim(replay=_replayed(record))
        if record is not None and now - record.created_at < STALE_AFTER:
            raise _in_progress()
        if record is None:
            # Keys live at least KEEP_FOR; each new claim sweeps the company's older ones (created_at is indexed),
            # so the table stays small without a scheduled job.
            session.execute(
                delete(IdempotencyRecord).where(
                    IdempotencyRecord.company_id == company_id, IdempotencyRecord.created_at < now - KEEP_FOR
                )
            )
            record = IdempotencyRecord(
                company_id=company_id,
                scope=scope,
                key=key,
                request_hash=fingerprint,
                state="in_progress",
                created_at=now,
            )
            session.add(record)
        else:
            record.created_at = now  # take over an abandoned claim
        session.flush()
        return Claim(record_id=record.id)


def complete(session, claim_: Claim, status: int, body: dict) -> None:
    """Store the outcome in the caller's transaction, so the receipt and its key commit together."""
    if claim_.record_id is None:
        return
    record = session.get(IdempotencyRecord, claim_.record_id)
    record.state, record.response_status, record.response_body = "done", status, body


def release(claim_: Claim) -> None:
    """Forget a claim whose request failed before creating anything."""
    if claim_.record_id is None:
        return
    with db.write_transaction() as session:
        session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id == claim_.record_id))


def purge_expired() -> int:
    """Delete keys older than KEEP_FOR; returns how many."""
    with db.write_transaction() as session:
        return db.rows_affected(
            session, delete(IdempotencyRecord).where(IdempotencyRecord.created_at < datetime.now(UTC) - KEEP_FOR)
        )
