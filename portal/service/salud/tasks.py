"""The compliance watch runs every hour for every company, and once more after the daily reports went out
(03:40 UTC, 00:40 in Montevideo)."""

from __future__ import annotations

from huey import crontab

from portal.service.platform import jobs
from portal.service.salud import watch


@jobs.huey.periodic_task(crontab(minute="20"), name="salud.hourly")
@jobs.in_app_context
def hourly_watch() -> int:
    return watch.run_all()


@jobs.huey.periodic_task(crontab(minute="40", hour="3"), name="salud.after_reports")
@jobs.in_app_context
def watch_after_reports() -> int:
    return watch.run_all()
