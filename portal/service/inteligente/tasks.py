"""Background work of smart issuance (huey, see portal/service/platform/jobs.py): the minute sweep that settles
requests a killed process left `confirmed` (recovery.py)."""

from __future__ import annotations

from huey import crontab

from portal.service.inteligente import recovery
from portal.service.platform import jobs


@jobs.huey.periodic_task(crontab(minute="*"), name="inteligente.settle_unfinished")
@jobs.in_app_context
def settle_unfinished() -> dict[str, int]:
    """Requests confirmed longer than INTELIGENTE_CONFIRMED_MINUTES ago: issued with their receipt, or failed."""
    return recovery.settle_unfinished()
