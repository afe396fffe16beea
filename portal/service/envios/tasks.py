"""Background work of the envios area (huey, see portal/service/platform/jobs.py).

Tasks only wake work already recorded in the database and are idempotent. Issuing wakes the packer of its
company through `wake_packer`, debounced per company and process: while a packer run is scheduled and not
yet started, later receipts need no task of their own (that run reads the database after they committed),
so 1,000 receipts a second enqueue about one task a second. A periodic sweep every minute (and one when
the worker starts) picks up whatever a lost wake-up, a crash or a kill left behind; a periodic task after
midnight in Montevideo builds and sends the daily reports.

While DGI does not answer (outage.py), every send waits and one probe task calls DGI with the oldest thing
waiting, backing off; the first answer wakes everything that waits, oldest first (`resume`).
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from flask import current_app
from huey import crontab
from sqlalchemy import or_, select

from portal.domain.uruguay_time import today_montevideo
from portal.service.envios import outage, reports, sending
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiSubmission
from portal.service.envios.states import ROUTE_ENVELOPE
from portal.service.platform import db, jobs
from portal.service.platform.models import Company

_scheduled: dict[int, float] = {}  # company id -> when its scheduled packer run starts (this process)
_scheduled_lock = threading.Lock()
# Built envelopes, answers and reports this old without progress are taken up by the sweep.
SWEEP_MARGIN = timedelta(seconds=30)


def wake_packer(company_id: int) -> None:
    """Make sure a packer run for the company starts within `ENVIOS_DEBOUNCE_SECONDS`. Called after the
    issuing transaction committed."""
    delay = float(current_app.config["ENVIOS_DEBOUNCE_SECONDS"])
    if delay <= 0:  # no debounce (tests): one task per receipt
        pack_company(company_id)
        return
    now = time.time()
    with _scheduled_lock:
        if _scheduled.get(company_id, 0.0) > now:
            return
        _scheduled[company_id] = now + delay
    pack_company.schedule((company_id,), delay=delay)


def _follow(step: sending.Next | None) -> None:
    if step is None:
        return
    if step.step == "probe":
        _schedule_probe(step.delay)
        return
    task = {"deliver": deliver_envelope, "fetch": fetch_answers, "report": deliver_report, "pack": pack_company}[
        step.step
    ]
    task.schedule((step.envelope_id,), delay=step.delay)


def _schedule_probe(delay: float) -> None:
    """A probe task at the probe's time. Several may be scheduled (failures at once, the sweep): the first to
    take the slot (outage.take_probe) calls DGI, the others end."""
    probe_dgi.schedule(delay=delay)


def _stepping(run) -> None:
    """Run a sending step and what follows it; when DGI answered after an outage, wake everything waiting."""
    was_down = outage.is_down()
    _follow(run())
    if was_down and not outage.is_down():
        resume()


@jobs.huey.task()
@jobs.in_app_context
def pack_company(company_id: int) -> None:
    """Pack the company's pending receipts into envelopes and send them."""
    for envelope_id in sending.pack(company_id):
        _stepping(lambda envelope_id=envelope_id: sending.deliver(envelope_id))


@jobs.huey.task()
@jobs.in_app_context
def deliver_envelope(envelope_id: int) -> None:
    _stepping(lambda: sending.deliver(envelope_id))


@jobs.huey.task()
@jobs.in_app_context
def fetch_answers(envelope_id: int) -> None:
    _stepping(lambda: sending.fetch(envelope_id))


@jobs.huey.task()
@jobs.in_app_context
def deliver_report(report_id: int) -> None:
    _stepping(lambda: reports.deliver(report_id))


@jobs.huey.task()
@jobs.in_app_context
def mirror_report(report_id: int) -> None:
    """The receipts a report just recorded show "en_reporte" in the list too (reports.mirror_states)."""
    reports.mirror_states(report_id)


def recent_reports(session, days: int = 3) -> list[int]:
    """Reports built in the last `days`: the startup sweep mirrors their receipts' state again, in case the
    process died between a report's recording and the end of its mirror (mirror_states is idempotent)."""
    since = datetime.now(UTC) - timedelta(days=days)
    return list(session.scalars(select(DgiDailyReport.id).where(DgiDailyReport.created_at >= since)))


def oldest_waiting(session) -> tuple[str, int] | None:
    """What the probe sends: the oldest envelope not yet acknowledged, else the oldest answer to fetch, else
    the oldest daily report not yet answered."""
    envelope_id = session.scalar(select(DgiEnvelope.id).where(DgiEnvelope.state == "armado").order_by(DgiEnvelope.id))
    if envelope_id is not None:
        return "deliver", envelope_id
    envelope_id = session.scalar(select(DgiEnvelope.id).where(DgiEnvelope.state == "recibido").order_by(DgiEnvelope.id))
    if envelope_id is not None:
        return "fetch", envelope_id
    report_id = session.scalar(
        select(DgiDailyReport.id)
        .where(DgiDailyReport.state == "armado")
        .order_by(DgiDailyReport.fecha, DgiDailyReport.sec_envio)
    )
    return ("report", report_id) if report_id is not None else None


@jobs.huey.task()
@jobs.in_app_context
def probe_dgi() -> None:
    """While DGI is down: when the probe's time has come, call DGI with the oldest thing waiting. A failure
    schedules the next probe (backing off); an answer wakes everything waiting."""
    with db.new_session() as session:
        if not outage.is_down(session):
            return
        wait = outage.probe_delay(session)
        item = oldest_waiting(session)
    if wait > 0:
        _schedule_probe(wait)
        return
    if item is None or not outage.take_probe():
        return
    kind, item_id = item
    step = {
        "deliver": lambda: sending.deliver(item_id, probe=True),
        "fetch": lambda: sending.fetch(item_id, probe=True),
        "report": lambda: reports.deliver(item_id, probe=True),
    }[kind]
    _follow(step())
    if not outage.is_down():
        resume()


def resume() -> dict[str, int]:
    """DGI answers again: wake every envelope, answer and report that waits, oldest first (the queue runs
    them in the order they are enqueued)."""
    with db.new_session() as session:
        companies = list(
            session.scalars(
                select(DgiSubmission.company_id)
                .where(DgiSubmission.route == ROUTE_ENVELOPE, DgiSubmission.state == "pendiente")
                .distinct()
            )
        )
        envelopes = session.execute(
            select(DgiEnvelope.id, DgiEnvelope.state)
            .where(DgiEnvelope.state.in_(("armado", "recibido")))
            .order_by(DgiEnvelope.id)
        ).all()
        report_ids = list(
            session.scalars(
                select(DgiDailyReport.id)
                .where(DgiDailyReport.state == "armado")
                .order_by(DgiDailyReport.fecha, DgiDailyReport.sec_envio)
            )
        )
    for envelope_id, state in envelopes:
        (deliver_envelope if state == "armado" else fetch_answers)(envelope_id)
    for report_id in report_ids:
        deliver_report(report_id)
    for company_id in companies:
        pack_company(company_id)
    return {"sobres": len(envelopes), "reportes": len(report_ids), "empresas": len(companies)}


def sweep(margin: timedelta = SWEEP_MARGIN, *, restarting: bool = False) -> dict[str, int]:
    """Wake whatever is overdue: pending receipts, built envelopes not yet acknowledged, answers not yet
    fetched, reports not yet answered. Returns how many of each it woke.

    `restarting` (the worker's first sweep): an envelope whose lease a killed sender still holds, or whose
    answers are not due yet, is also scheduled for the moment it falls due (`programados`). Without that it
    waits for a periodic sweep, up to SWEEP_MARGIN plus a minute after the lease ends."""
    now = datetime.now(UTC)
    cutoff = now - margin
    with db.new_session() as session:
        if outage.is_down(session):  # only the probe calls DGI: make sure one is on its way
            if not margin:  # an operator's sweep, or a restart: probe now
                outage.probe_now()
            _schedule_probe(0.0 if not margin else outage.probe_delay(session))
        companies = set(
            session.scalars(
                select(DgiSubmission.company_id)
                .where(
                    DgiSubmission.route == ROUTE_ENVELOPE,
                    DgiSubmission.state == "pendiente",
                    DgiSubmission.created_at <= cutoff,
                )
                .distinct()
            )
        )
        due = or_(DgiEnvelope.next_attempt_at.is_(None), DgiEnvelope.next_attempt_at <= cutoff)
        to_deliver = list(
            session.scalars(
                select(DgiEnvelope.id).where(DgiEnvelope.state == "armado", DgiEnvelope.created_at <= cutoff, due)
            )
        )
        to_fetch = list(session.scalars(select(DgiEnvelope.id).where(DgiEnvelope.state == "recibido", due)))
        to_report = list(
            session.scalars(
                select(DgiDailyReport.id).where(DgiDailyReport.state == "armado", DgiDailyReport.created_at <= cutoff)
            )
        )
        mirror = recent_reports(session) if restarting else []
        later = (
            session.execute(
                select(DgiEnvelope.id, DgiEnvelope.state, DgiEnvelope.next_attempt_at).where(
                    DgiEnvelope.state.in_(("armado", "recibido")), DgiEnvelope.next_attempt_at > cutoff
                )
            ).all()
            if restarting
            else []
        )
    for company_id in companies:
        pack_company(company_id)
    for envelope_id in to_deliver:
        deliver_envelope(envelope_id)
    for envelope_id in to_fetch:
        fetch_answers(envelope_id)
    for report_id in to_report:
        deliver_report(report_id)
    for report_id in mirror:
        mirror_report(report_id)
    for envelope_id, state, due_at in later:
        assert due_at is not None  # the query asked for next_attempt_at > cutoff
        task = deliver_envelope if state == "armado" else fetch_answers
        task.schedule((envelope_id,), delay=max((due_at - now).total_seconds(), 0.0))
    return {
        "empresas": len(companies),
        "sobres": len(to_deliver),
        "respuestas": len(to_fetch),
        "reportes": len(to_report),
        "programados": len(later),
    }


@jobs.huey.periodic_task(crontab(minute="*"))
@jobs.in_app_context
def periodic_sweep() -> None:
    sweep()


@jobs.huey.task()
@jobs.in_app_context
def startup_sweep() -> None:
    """After a restart, nothing recorded waits for the next minute: everything unfinished is woken now, or
    scheduled for when it falls due."""
    sweep(timedelta(0), restarting=True)


# Named: huey keeps one startup hook per name (by default the function's), and envios' and recibidos' hooks were
# both `_sweep_on_start`, so recibidos' replaced envios' and a restarted worker left DGI's work for the next minute.
@jobs.huey.on_startup("envios.startup")
def _sweep_on_start() -> None:
    jobs.enqueue_safely(lambda: startup_sweep(), "envios startup sweep")


def daily_reports(until=None) -> list[int]:
    """Build and send, oldest day first, the report of every closed day with activity that has none yet (DGI
    wants one per day: after an outage every missing day goes), and a corrected one (the next SecEnvio,
    built again from the day's receipts) for every day whose last report DGI rejected."""
    until = until or today_montevideo() - timedelta(days=1)
    built = []
    with db.new_session() as session:
        companies = list(session.scalars(select(Company.id)))
        days = {
            company_id: sorted(
                set(reports.pending_days(session, company_id, until))
                | set(reports.rejected_days(session, company_id, until))
            )
            for company_id in companies
        }
    for company_id, pending in days.items():
        for fecha in pending:
            report_id = reports.build(company_id, fecha, "sistema")
            built.append(report_id)
            mirror_report(report_id)
            deliver_report(report_id)
    return built


# 03:10 UTC is 00:10 in Montevideo (UTC-3 all year since 2015): the day has closed.
@jobs.huey.periodic_task(crontab(minute="10", hour="3"))
@jobs.in_app_context
def periodic_daily_reports() -> None:
    daily_reports()
