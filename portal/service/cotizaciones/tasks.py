"""Background work of the cotizaciones area: the BCU's rates of the last days, every weekday evening after its
close and every morning (a missed evening, a correction the BCU made), so the day's rate is there before
anyone issues in dollars."""

from __future__ import annotations

import logging
from datetime import timedelta

from huey import crontab

from portal.domain.uruguay_time import today_montevideo
from portal.service.cotizaciones import bcu, rates
from portal.service.platform import db, jobs

log = logging.getLogger(__name__)
# Days asked each time: a long weekend or a week the worker was down is filled in at the next run.
DAYS_BACK = 10


# 07:15 and 18:15 in Montevideo (the queue's clock is UTC).
@jobs.huey.periodic_task(crontab(minute="15", hour="10,21"), name="cotizaciones.refresh_rates")
@jobs.in_app_context
def refresh_rates() -> None:
    today = today_montevideo()
    try:
        with db.write_transaction() as session:
            changed = rates.refresh(session, today - timedelta(days=DAYS_BACK), today)
    except bcu.BcuUnavailable as exc:
        log.warning("exchange rates not refreshed: %s", exc)
        return
    log.info("exchange rates refreshed: %d changed", changed)
