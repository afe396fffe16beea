"""Background tasks of the Correo area (see portal/service/platform/jobs.py).

SMTP's own temporary failures are retried by `sending.attempt`, which records each attempt and schedules
the next one with a growing delay; huey's `retries` covers the unexpected (the database briefly locked, the
worker stopped mid-task).
"""

from __future__ import annotations

from datetime import UTC, datetime

from huey import crontab

from portal.service.correo import sending
from portal.service.platform import jobs


@jobs.huey.task(retries=3, retry_delay=60, name="correo.send_receipt_mail")
@jobs.in_app_context
def send_receipt_mail(send_id: str) -> str | None:
    """Deliver one recorded send; schedule the next attempt after a temporary failure."""
    outcome = sending.attempt(send_id)
    retry_in = outcome.retry_in
    if retry_in is not None:
        jobs.enqueue_safely(
            lambda: send_receipt_mail.schedule(args=(send_id,), delay=retry_in.total_seconds()),
            f"the next attempt of mail send {send_id}",
        )
    return outcome.state


@jobs.huey.periodic_task(crontab(minute="*"), name="correo.sweep_mail_sends")
@jobs.in_app_context
def sweep_mail_sends() -> int:
    """Wake every send that is due and not being attempted (a lost wake-up, a worker that died)."""
    due = sending.due_sends(datetime.now(UTC))
    for send_id in due:
        send_receipt_mail(send_id)
    return len(due)


def wake(send_id: str) -> None:
    """Enqueue the first attempt of a send just committed."""
    jobs.enqueue_safely(lambda: send_receipt_mail(send_id), f"mail send {send_id}")
