"""Background tasks of the recibidos area (see portal/service/platform/jobs.py): delivering our answers."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from huey import crontab
from sqlalchemy.exc import IntegrityError

from portal.service.platform import db, jobs
from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _
from portal.service.platform.models import Company
from portal.service.recibidos import (
    checks,
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
    """One envelope (the web service's): `receive_all_and_answer` of it alone."""
    [result] = receive_all_and_answer(company_id, [(source_name, envelope_bytes)], channel, reply_to=reply_to)
    return result


def receive_all_and_answer(
    company_id: int, envelopes: Sequence[tuple[str | None, bytes]], channel: str, *, reply_to: str | None = None
) -> list[intake.IntakeResult]:
    """Every envelope (its file's name, its bytes) examined outside the write lock, then all of them stored and
    answered in one write transaction, committed, then the answers woken (every channel uses it). All or none: an
    upload whose third envelope cannot be taken in stores nothing, so sending it again is no duplicate (S20) to
    its supplier of what was stored the first time."""
    with db.new_session() as session:
        rut = session.get_one(Company, company_id).rut
    now = datetime.now(UTC)
    for attempt in (1, 2):
        examined = [_examined(name, data, rut, now) for name, data in envelopes]
        try:
            with db.write_transaction() as session:
                company = session.get_one(Company, company_id)
                results = [
                    intake.record(session, company, checked, channel, reply_to=reply_to, source_name=name, now=now)
                    for (name, _data), checked in zip(envelopes, examined, strict=True)
                ]
            break
        except IntegrityError:
            # PostgreSQL: the same envelope or CFE stored by a concurrent intake between our check and our insert.
            # Once more (examined afresh: recording marks what it found), the duplicate is now seen (S20, E02) and
            # answered as such.
            if attempt == 2:
                raise
    wake(answer_id for result in results for answer_id in result.answer_ids)
    return results


def _examined(name: str | None, data: bytes, company_rut: str, now: datetime) -> checks.Envelope:
    """`intake.examine_bounded`; what refuses an envelope that came with a file's name names it, and says that
    nothing of its upload was received."""
    try:
        return intake.examine_bounded(data, company_rut, now)
    except ApiError as exc:
        if name is None:
            raise
        reason = _("«{name}»: {reason} No se recibió ningún sobre de esta carga.", name=name, reason=exc.message)
        raise ApiError(reason, code=exc.code, status=exc.status, headers=exc.headers) from exc
