"""Background tasks of the recibidos area (see portal/service/jobs.py): delivering our answers."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from huey import crontab

from portal.service import jobs
from portal.service.recibidos import sending


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


def wake(answer_ids: Iterable[int]) -> None:
    """Enqueue the first attempt of answers just committed, in order (ACKSobre first)."""
    for answer_id in answer_ids:
        jobs.enqueue_safely(lambda answer_id=answer_id: send_answer(answer_id), f"exchange answer {answer_id}")
