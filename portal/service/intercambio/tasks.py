"""Background work of the exchange area (huey, see portal/service/platform/jobs.py): the daily refresh of the directory
of electronic issuers (and one when the worker starts and the directory was never refreshed); delivering
receipts to electronic receivers (woken after each issue, debounced per company), the notices of receipts DGI
rejected after delivery, and a sweep every minute that picks up whatever a lost wake-up or a kill left."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import current_app
from huey import crontab
from sqlalchemy import or_, select

from portal.service.envios import consultas
from portal.service.intercambio import (
    notices,
    refresh,
    sending,
    watch,  # noqa: F401 - registers the directory in the compliance watch
)
from portal.service.intercambio.models import DgiRejectionNotice, ExchangeCfe, ExchangeEnvelope
from portal.service.platform import db, jobs


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
    """When the worker starts: nothing recorded waits for the next minute (everything unfinished is woken now,
    or scheduled for when a killed sender's lease runs out), and a directory never refreshed is refreshed."""
    sweep(timedelta(0), restarting=True)
    with db.new_session() as session:
        never = refresh.last_refresh(session) is None
    if never:
        refresh_directory()


@jobs.huey.on_startup("intercambio.startup")
def _on_start() -> None:
    jobs.enqueue_safely(lambda: startup(), "intercambio startup")


# --- delivering receipts to electronic receivers ------------------------------------------------------------

_wakes = jobs.Debouncer()  # company id -> its scheduled packer run (this process)
SWEEP_MARGIN = timedelta(seconds=30)
WAIT_FOR_DGI_SECONDS = 5.0


def wake_exchange(company_id: int) -> None:
    """After an issue committed: make sure the company's exchange packer runs within INTERCAMBIO_DELAY_SECONDS
    (debounced per company and process, as envios' packer; the DGI envelope goes first)."""
    delay = float(current_app.config["INTERCAMBIO_DELAY_SECONDS"])
    if delay <= 0:
        pack_exchange(company_id)
        return
    if _wakes.claim(company_id, delay):
        pack_exchange.schedule((company_id,), delay=delay)


def _follow(step: sending.Next | None) -> None:
    if step is not None:
        deliver_exchange.schedule((step.target,), delay=step.delay)


@jobs.huey.task(name="intercambio.pack")
@jobs.in_app_context
def pack_exchange(company_id: int) -> None:
    """Pack the company's receipts for their electronic receivers and deliver the envelopes."""
    built, waiting = sending.pack(company_id)
    for envelope_id in built:
        _follow(sending.deliver(envelope_id))
    if waiting:  # their DGI envelope is not built yet: look again shortly (the sweep is the safety net)
        pack_exchange.schedule((company_id,), delay=WAIT_FOR_DGI_SECONDS)
    for notice_id in notices.notify_dgi_rejections(company_id):
        deliver_notice(notice_id)


@jobs.huey.task(name="intercambio.deliver")
@jobs.in_app_context
def deliver_exchange(envelope_id: int) -> None:
    _follow(sending.deliver(envelope_id))


@jobs.huey.task(name="intercambio.redeliver")
@jobs.in_app_context
def redeliver_exchange(envelope_id: int) -> None:
    """A retry someone asked for (a user, or support's command) of an envelope that was in error: the
    receiver's directory entry read afresh (it may have fixed its web service or address since the daily
    refresh; DGI not answering leaves the entry we have), then the same delivery as always."""
    with db.new_session() as session:
        rut = session.scalar(select(ExchangeEnvelope.receiver_rut).where(ExchangeEnvelope.id == envelope_id))
    if rut is None:
        return
    try:
        refresh.refresh_receiver(rut)
    except consultas.DirectoryUnavailable as exc:
        current_app.logger.warning("exchange envelope %s: directory entry not re-read (%s)", envelope_id, exc)
    except Exception:  # a defect must not keep the delivery from being tried
        current_app.logger.exception("exchange envelope %s: directory entry not re-read", envelope_id)
    _follow(sending.deliver(envelope_id))


@jobs.huey.task(name="intercambio.deliver_notice")
@jobs.in_app_context
def deliver_notice(notice_id: int) -> None:
    delay = notices.deliver(notice_id)
    if delay is not None:
        deliver_notice.schedule((notice_id,), delay=delay)


def sweep(margin: timedelta = SWEEP_MARGIN, *, restarting: bool = False) -> dict[str, int]:
    """Wake whatever is overdue: pending receipts, envelopes and notices not delivered (a lost wake-up, a killed
    worker whose lease ran out), receipts DGI rejected after they were delivered. `restarting`: an envelope
    whose lease (or backoff) still holds is also scheduled for the moment it ends."""
    now = datetime.now(UTC)
    cutoff = now - margin
    with db.new_session() as session:
        companies = set(
            session.scalars(
                select(ExchangeCfe.company_id)
                .where(ExchangeCfe.state == "pendiente", ExchangeCfe.created_at <= cutoff)
                .distinct()
            )
        ) | notices.companies_to_notify(session)
        due = or_(ExchangeEnvelope.next_attempt_at.is_(None), ExchangeEnvelope.next_attempt_at <= now)
        envelopes = list(
            session.scalars(
                select(ExchangeEnvelope.id).where(
                    ExchangeEnvelope.state == "armado", ExchangeEnvelope.created_at <= cutoff, due
                )
            )
        )
        later = (
            session.execute(
                select(ExchangeEnvelope.id, ExchangeEnvelope.next_attempt_at).where(
                    ExchangeEnvelope.state == "armado", ExchangeEnvelope.next_attempt_at > now
                )
            ).all()
            if restarting
            else []
        )
        notice_due = or_(DgiRejectionNotice.next_attempt_at.is_(None), DgiRejectionNotice.next_attempt_at <= now)
        pending_notices = list(
            session.scalars(
                select(DgiRejectionNotice.id).where(
                    DgiRejectionNotice.state == "armado", DgiRejectionNotice.created_at <= cutoff, notice_due
                )
            )
        )
    for company_id in companies:
        pack_exchange(company_id)
    for envelope_id in envelopes:
        deliver_exchange(envelope_id)
    for notice_id in pending_notices:
        deliver_notice(notice_id)
    for envelope_id, due_at in later:
        assert due_at is not None  # the query asked for next_attempt_at > now
        deliver_exchange.schedule((envelope_id,), delay=max((due_at - now).total_seconds(), 0.0))
    return {
        "empresas": len(companies),
        "sobres": len(envelopes),
        "avisos": len(pending_notices),
        "programados": len(later),
    }


@jobs.huey.periodic_task(crontab(minute="*"), name="intercambio.sweep")
@jobs.in_app_context
def periodic_sweep() -> None:
    sweep()
