"""Background work of the exchange area (huey, see portal/service/jobs.py): the daily refresh of the directory
of electronic issuers (and one when the worker starts and the directory was never refreshed)."""

from __future__ import annotations

from huey import crontab

from portal.service import db, jobs
from portal.service.intercambio import consultas, refresh


@jobs.huey.task(retries=3, retry_delay=600, name="intercambio.refresh_directory")
@jobs.in_app_context
def refresh_directory() -> int:
    """Refresh the directory; DGI unavailable: recorded, and retried by huey in ten minutes (three times)."""
    try:
        return refresh.refresh().count
    except consultas.DirectoryUnavailable:
        raise  # huey's retry; the refresh row says why


# 04:40 UTC is 01:40 in Montevideo: after DGI's own nightly work, before the working day.
@jobs.huey.periodic_task(crontab(minute="40", hour="4"), name="intercambio.daily_directory")
@jobs.in_app_context
def daily_directory() -> None:
    refresh_directory()


@jobs.huey.task(name="intercambio.startup")
@jobs.in_app_context
def startup() -> None:
    with db.new_session() as session:
        never = refresh.last_refresh(session) is None
    if never:
        refresh_directory()


@jobs.huey.on_startup()
def _on_start() -> None:
    jobs.enqueue_safely(lambda: startup(), "intercambio startup")
