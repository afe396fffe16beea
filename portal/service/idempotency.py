"""Idempotency-Key with Stripe's semantics, for any endpoint that creates something.

- The first request with a key claims it (state in_progress) in a short transaction of its own.
- Same key, same body, finished: the stored answer is replayed (`Idempotent-Replayed: true`).
- Same key, other body: 422 `idempotency_key_reused`. Same key while the first is running: 409.
- A claim left behind by a crashed worker is taken over after `STALE_AFTER`.
- A request that fails validation releases its claim, so the caller can fix the body and retry.
Keys are kept at least 24 hours; each new claim deletes the company's older ones (`purge_expired` does it
for every company).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from flask import Response, request
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from portal.service import db
from portal.service.comprobante.models import IdempotencyRecord
from portal.service.errors import ApiError, Conflict

STALE_AFTER = timedelta(seconds=120)
KEEP_FOR = timedelta(hours=24)
MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Claim:
    """A claimed key (record_id set), a finished one to replay (`replay`), or no key at all."""

    record_id: int | None = None
    replay: Response | None = None


def request_fingerprint(payload: object) -> str:
    """A stable hash of the request body as parsed (key order and spacing do not matter)."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def claim(company_id: int, scope: str, payload: object) -> Claim:
    """Claim the request's Idempotency-Key (if any) or produce the replay of its first outcome."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return Claim()
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not key.isprintable():
        raise ApiError("Idempotency-Key debe tener entre 1 y 255 caracteres imprimibles.",
                       code="idempotency_key_invalid", status=400)
    fingerprint = request_fingerprint(payload)
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
    return Conflict("Una solicitud con esta Idempotency-Key todavía está en curso; reintente en unos segundos.",
                    code="idempotency_in_progress")


def _claim(company_id: int, scope: str, key: str, fingerprint: str) -> Claim:
    now = datetime.now(UTC)
    with db.write_transaction() as session:
        record = session.scalar(select(IdempotencyRecord).where(
            IdempotencyRecord.company_id == company_id, IdempotencyRecord.scope == scope,
            IdempotencyRecord.key == key).with_for_update())
        if record is not None and record.request_hash != fingerprint:
            raise ApiError("Esta Idempotency-Key ya se usó con otro cuerpo de solicitud.",
                           code="idempotency_key_reused", status=422)
        if record is not None and record.state == "done":
            response = Response(json.dumps(record.response_body, ensure_ascii=False),
                                status=record.response_status, mimetype="application/json")
            response.headers["Idempotent-Replayed"] = "true"
            return Claim(replay=response)
        if record is not None and now - _aware(record.created_at) < STALE_AFTER:
            raise _in_progress()
        if record is None:
            # Keys live at least KEEP_FOR; each new claim sweeps the company's older ones (created_at is indexed),
            # so the table stays small without a scheduled job.
            session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.company_id == company_id,
                                                            IdempotencyRecord.created_at < now - KEEP_FOR))
            record = IdempotencyRecord(company_id=company_id, scope=scope, key=key, request_hash=fingerprint,
                                       state="in_progress", created_at=now)
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
        result = session.execute(delete(IdempotencyRecord).where(
            IdempotencyRecord.created_at < datetime.now(UTC) - KEEP_FOR))
        return result.rowcount or 0
