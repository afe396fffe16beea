"""Background work of the webhooks area (huey, see portal/service/platform/jobs.py).

Publishing an event wakes `run_webhooks` after its commit (debounced per process by eventos.publishing:
at most one scheduled run per WEBHOOKS_DEBOUNCE_SECONDS). A run fans out the new events and sends the due
deliveries, batch after batch, until none is left; then it schedules itself for the next retry that falls
due within a minute. The periodic sweep every minute catches what a lost wake-up left behind.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

from flask import current_app, has_app_context
from huey import crontab
from sqlalchemy import func, select

from portal.service.platform import db, jobs, readcache
from portal.service.webhooks import delivery
from portal.service.webhooks.models import PENDING, WebhookDelivery, WebhookEndpoint

readcache.watch(WebhookEndpoint)

DEFAULT_DEBOUNCE = 0.5
_scheduled_until = 0.0  # this process's scheduled run starts then (monotonic clock)
_lock = threading.Lock()
MAX_ROUNDS = 50  # a run hands over to the next one after this many batches, so one run never holds the worker


@jobs.huey.task(name="webhooks.run")
@jobs.in_app_context
def run_webhooks() -> int:
    """Fan out the new events and deliver what is due; returns how many attempts were made."""
    sent = 0
    for _ in range(MAX_ROUNDS):
        created = delivery.fan_out()
        attempted = delivery.deliver_due()
        sent += attempted
        if not created and not attempted:
            break
    else:
        wake_delivery()
        return sent
    _schedule_next_retry()
    return sent


def _schedule_next_retry() -> None:
    with db.new_session() as session:
        soonest = session.scalar(
            select(func.min(WebhookDelivery.next_attempt_at)).where(WebhookDelivery.state == PENDING)
        )
    if soonest is None:
        return
    wait = (soonest - datetime.now(UTC)).total_seconds()
    if 0 < wait < 60:
        jobs.enqueue_safely(lambda: run_webhooks.schedule(delay=wait + 0.1), "next webhook retry")


@jobs.huey.periodic_task(crontab(minute="*"), name="webhooks.sweep")
@jobs.in_app_context
def sweep_webhooks() -> int:
    return run_webhooks.call_local()


def wake_delivery() -> None:
    jobs.enqueue_safely(lambda: run_webhooks(), "webhook delivery")


def listening_companies() -> frozenset[int]:
    """The companies with an active webhook, kept per process for a moment (readcache; a change of an
    endpoint in this process empties it at once)."""

    def load() -> frozenset[int]:
        with db.new_session() as session:
            return frozenset(
                session.scalars(select(WebhookEndpoint.company_id).where(WebhookEndpoint.active.is_(True)).distinct())
            )

    return readcache.get("webhooks.listening", load)


def wake_fan_out(companies: set[int]) -> None:
    """Called after a commit that published events of `companies` (eventos.publishing). A company with no
    webhook wakes nothing (its events are marked dispatched by the next run or sweep). While a run scheduled
    by this process has not started yet, that run will see these events too: no task of their own (1,000
    receipts a second enqueue about two tasks a second)."""
    if not has_app_context():
        delay = DEFAULT_DEBOUNCE
    elif not companies & listening_companies():
        return
    else:
        delay = float(current_app.config["WEBHOOKS_DEBOUNCE_SECONDS"])
    if delay <= 0:
        wake_delivery()
        return
    now = time.monotonic()
    global _scheduled_until
    with _lock:
        if _scheduled_until > now:
            return
        _scheduled_until = now + delay
    jobs.enqueue_safely(lambda: run_webhooks.schedule(delay=delay), "webhook fan-out")


# 04:30 UTC: after the daily reports and the watch's run, before the working day.
@jobs.huey.periodic_task(crontab(minute="30", hour="4"), name="webhooks.purge")
@jobs.in_app_context
def purge_old_events() -> int:
    return delivery.purge()
