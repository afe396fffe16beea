"""Background tasks of the recibidos area (see portal/service/platform/jobs.py): delivering our answers."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from datetime import UTC, datetime

from huey import crontab
from sqlalchemy.exc import IntegrityError

from portal.service.platform import db, jobs
from portal.service.platform.models import Company
from portal.service.recibidos import (
    intake,
    mailbox,
    sending,
    watch,  # noqa: F401 - registers the mailboxes in the compliance watch
)


@jobs.huey.task(retries=3, retry_delay=60, name="recibidos.send_answer")
@jobs.in_app_context
def send_answer(answer_id: int) -> str | None:
    """Deliver one recorded answer; schedule the next attempt after a temporary failure."""
    outcome = sending.attempt(answer_id)
    if outcome.retry_in is not None:
        delay = outcome.retry_in.total_seconds()
        jobs.enqueue_safely(
            lambda: send_answer.schedule(args=(answer_id,), delay=delay), f"the next attempt of answer {answer_id}"
        )
    return outcome.state


@jobs.huey.periodic_task(crontab(minute="*"), name="recibidos.sweep_answers")
@jobs.in_app_context
def sweep_answers() -> int:
    """Wake every answer that is due and not being attempted (a lost wake-up, a worker that died)."""
    due = sending.due_answers(datetime.now(UTC))
    for answer_id in due:
        send_answer(answer_id)
    return len(due)


@jobs.huey.task(name="recibidos.startup_sweep")
@jobs.in_app_context
def startup_sweep() -> int:
    """After a restart nothing waits for the next minute: each unsettled answer is attempted when it falls due
    (an answer a killed worker held, when its lease ends)."""
    now = datetime.now(UTC)
    pending = sending.unfinished()
    for answer_id, due in pending:
        delay = max((due - now).total_seconds(), 0.0) if due else 0.0
        send_answer.schedule(args=(answer_id,), delay=delay + 0.1)
    return len(pending)


@jobs.huey.on_startup("recibidos.startup")
def _sweep_on_start() -> None:
    jobs.enqueue_safely(lambda: startup_sweep(), "recibidos startup sweep")


def wake(answer_ids: Iterable[int]) -> None:
    """Enqueue the first attempt of answers just committed, in order (ACKSobre first)."""
    for answer_id in answer_ids:
        jobs.enqueue_safely(functools.partial(send_answer, answer_id), f"exchange answer {answer_id}")


@jobs.huey.periodic_task(crontab(minute="*"), name="recibidos.poll_mailboxes")
@jobs.in_app_context
def poll_mailboxes() -> int:
    """Read every company's exchange mailbox (and the development one, when configured)."""
    return sum(poll_mailbox.call_local(mailbox_id) or 0 for mailbox_id in mailbox.mailboxes())


@jobs.huey.task(name="recibidos.poll_mailbox")
@jobs.in_app_context
def poll_mailbox(mailbox_id: int) -> int:
    """Handle the new messages of one mailbox, and wake the answers they need."""
    return mailbox.poll(mailbox_id, wake=wake)


def receive_and_answer(
    company_id: int,
    envelope_bytes: bytes,
    channel: str,
    *,
    reply_to: str | None = None,
    source_name: str | None = None,
) -> intake.IntakeResult:
    """`receive` in a write transaction of its own, committed, then the answers woken (every channel uses it)."""
    with db.new_session() as session:
        rut = session.get_one(Company, company_id).rut
    now = datetime.now(UTC)
    examined = intake.examine_bounded(envelope_bytes, rut, now)
    for attempt in (1, 2):
        try:
            with db.write_transaction() as session:
                company = session.get_one(Company, company_id)
                result = intake.record(
                    session, company, examined, channel, reply_to=reply_to, source_name=source_name, now=now
                )
            break
        except IntegrityError:
            # PostgreSQL: the same envelope or CFE stored by a concurrent intake between our check and our insert.
            # Once more, the duplicate is now seen (S20, E02) and answered as such.
            if attempt == 2:
                raise
            examined = intake.examine_bounded(envelope_bytes, rut, now)
    wake(result.answer_ids)
    return result
