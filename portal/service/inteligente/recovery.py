"""Requests a killed process left `confirmed`: the confirmation is committed first, then the receipt is issued in a
transaction of its own that also marks the request `issued` (workflow._issue). A process killed in between leaves
the request `confirmed` for ever: refused on every further confirmation, polled as still moving, never explained.

The worker's minute sweep (tasks.py) settles every request confirmed longer than INTELIGENTE_CONFIRMED_MINUTES ago:
`issued` with its receipt when one was stored for it (`cfe_id`, written in the receipt's own transaction), else
`failed` saying the issue was cut off and nothing was issued, so the user previews and issues again.

Never both: each request is settled under its row lock (`SKIP LOCKED`: one that an issue or another sweep holds
is left for the next minute; on SQLite the write transaction is the lock), and only if it is still `confirmed`.
An issue that finishes after the sweep failed its request finds it no longer `confirmed` under the same lock and
stores nothing (workflow._issue), so a request marked failed has no receipt, then or later."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from flask import current_app
from sqlalchemy import select

from portal.service.comprobante.models import IssuedCfe
from portal.service.inteligente import workflow
from portal.service.inteligente.models import SmartRequest
from portal.service.platform import db
from portal.service.platform.i18n import _

log = logging.getLogger(__name__)

ACTOR = "sistema"
CODE = "emision_interrumpida"
MESSAGE = _("La emisión se interrumpió antes de terminar y no se emitió ningún comprobante. Previsualizá de nuevo.")
BATCH = 500  # a sweep's share; what is left waits a minute


def settle_unfinished(now: datetime | None = None) -> dict[str, int]:
    """Settle the requests confirmed before the bound and still `confirmed`: how many became issued and failed."""
    now = now or datetime.now(UTC)
    cutoff = now - timedelta(minutes=int(current_app.config["INTELIGENTE_CONFIRMED_MINUTES"]))
    with db.new_session() as session:
        stuck = list(
            session.scalars(
                select(SmartRequest.id)
                .where(SmartRequest.state == "confirmed", SmartRequest.updated_at <= cutoff)
                .order_by(SmartRequest.updated_at)
                .limit(BATCH)
            )
        )
    settled = {"issued": 0, "failed": 0}
    for request_id in stuck:
        outcome = _settle(request_id, cutoff)
        if outcome is not None:
            settled[outcome] += 1
    return settled


def _settle(request_id: str, cutoff: datetime) -> str | None:
    with db.write_transaction() as session:
        request = session.scalar(
            select(SmartRequest)
            .where(
                SmartRequest.id == request_id,
                SmartRequest.state == "confirmed",
                SmartRequest.updated_at <= cutoff,
            )
            .with_for_update(skip_locked=True)
        )
        if request is None:  # settled meanwhile (its issue finished, another sweep), or held by one now
            return None
        if request.cfe_id is not None:
            receipt = session.get(IssuedCfe, request.cfe_id)
            if receipt is None or receipt.company_id != request.company_id:
                # A link to no receipt of its company: never marked failed on a guess; support looks at it.
                log.warning("smart request %s is linked to a missing receipt %s", request.id, request.cfe_id)
                return None
            workflow.mark_issued(session, request, receipt, ACTOR)
            return "issued"
        workflow.mark_failed(session, request, CODE, MESSAGE, ACTOR)
        return "failed"
