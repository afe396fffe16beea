"""The facts behind each concern, read from the database, and the registry of checks.

A check is `fn(context) -> list[Concern]`. `CHECKS` holds the built-in ones in the order the page shows
them; another area adds its own with `register(fn)` at import (the exchange's directory and mailbox runs do,
intercambio/watch.py and recibidos/watch.py: kinds "intercambio_directorio" and "intercambio_buzon", each with its
last good time).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from flask import current_app
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe, VoidedRange
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiSubmission
from portal.service.envios.states import FINAL_STATES, ROUTE_ENVELOPE
from portal.service.platform.models import Certificate
from portal.service.salud import concerns
from portal.service.salud.concerns import Concern


@dataclass(frozen=True)
class Context:
    session: Session
    company_id: int
    now: datetime

    @property
    def today(self) -> date:
        return self.now.astimezone(MONTEVIDEO).date()


Check = Callable[[Context], list[Concern]]


def certificate(ctx: Context) -> list[Concern]:
    """The certificate expiring last among those not retired: the one issuing signs with (or will, once valid:
    keystore.signing_certificate), or the last that did (expired N days ago). A retired certificate signs
    nothing, however far its expiry."""
    cert = ctx.session.scalar(
        select(Certificate)
        .where(Certificate.company_id == ctx.company_id, Certificate.retired_at.is_(None))
        .order_by(Certificate.not_after.desc())
    )
    if cert is None:
        return [concerns.certificate(None, None)]
    not_after = cert.not_after.astimezone(MONTEVIDEO).date()
    return [concerns.certificate((not_after - ctx.today).days, not_after)]


def cae_ranges(ctx: Context) -> list[Concern]:
    """Every range still numbering, or run out or expired with no newer range of its type and serie."""
    ranges = list(
        ctx.session.scalars(
            select(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == ctx.company_id)
            .order_by(CaeRangeRecord.tipo_cfe, CaeRangeRecord.serie, CaeRangeRecord.dnro)
        )
    )
    since = ctx.now - timedelta(days=30)
    used = dict(
        ctx.session.execute(
            select(IssuedCfe.cae_range_id, func.count())
            .where(IssuedCfe.company_id == ctx.company_id, IssuedCfe.created_at >= since)
            .group_by(IssuedCfe.cae_range_id)
        ).all()
    )
    voided = {
        range_id
        for (range_id,) in ctx.session.execute(
            select(VoidedRange.cae_range_id).where(VoidedRange.company_id == ctx.company_id).distinct()
        )
    }
    live_types = {(r.tipo_cfe, r.serie) for r in ranges if r.remaining > 0 and r.vencimiento >= ctx.today}
    found = []
    for record in ranges:
        # A range with no number left says nothing once a newer one of its type numbers, or once it was retired
        # (its rest voided). One that expired with numbers left says so until they are voided, replaced or not,
        # and whatever few it voided before: voiding moves the counter, so `remaining` is what is still owed.
        if record.remaining == 0 and ((record.tipo_cfe, record.serie) in live_types or record.id in voided):
            continue
        found.append(
            concerns.cae_range(
                range_id=record.id,
                tipo_cfe=record.tipo_cfe,
                serie=record.serie,
                size=record.hnro - record.dnro + 1,
                remaining=record.remaining,
                used_last_30_days=int(used.get(record.id, 0)),
                days_to_expiry=(record.vencimiento - ctx.today).days,
            )
        )
    return found


def daily_report(ctx: Context) -> list[Concern]:
    day = ctx.today - timedelta(days=1)
    had_activity = (
        ctx.session.scalar(
            select(IssuedCfe.id)
            .join(DgiSubmission, DgiSubmission.cfe_id == IssuedCfe.id)
            .where(IssuedCfe.company_id == ctx.company_id, IssuedCfe.fch_emis == day)
            .limit(1)
        )
        is not None
        or ctx.session.scalar(
            select(VoidedRange.id).where(VoidedRange.company_id == ctx.company_id, VoidedRange.fecha == day).limit(1)
        )
        is not None
    )
    state = ctx.session.scalar(
        select(DgiDailyReport.state)
        .where(DgiDailyReport.company_id == ctx.company_id, DgiDailyReport.fecha == day)
        .order_by(DgiDailyReport.sec_envio.desc())
        .limit(1)
    )
    return [concerns.daily_report(day, had_activity, state)]


def waiting_on_dgi(ctx: Context) -> list[Concern]:
    limit = int(current_app.config["ENVIOS_OVERDUE_MINUTES"])
    count, oldest = ctx.session.execute(
        select(func.count(), func.min(DgiSubmission.created_at)).where(
            DgiSubmission.company_id == ctx.company_id,
            DgiSubmission.route == ROUTE_ENVELOPE,
            DgiSubmission.state.not_in(tuple(FINAL_STATES) + ("sobre_rechazado",)),
            DgiSubmission.created_at < ctx.now - timedelta(minutes=limit),
        )
    ).one()
    minutes = None if oldest is None else int((ctx.now - oldest).total_seconds() // 60)
    return [concerns.waiting_on_dgi(int(count), minutes, limit)]


def rejected_envelopes(ctx: Context) -> list[Concern]:
    receipts = ctx.session.scalar(
        select(func.count()).where(DgiSubmission.company_id == ctx.company_id, DgiSubmission.state == "sobre_rechazado")
    )
    in_error = ctx.session.scalar(
        select(func.count()).where(DgiEnvelope.company_id == ctx.company_id, DgiEnvelope.state == "error")
    )
    return [concerns.rejected_envelopes(int(receipts or 0), int(in_error or 0))]


CHECKS: list[Check] = [certificate, cae_ranges, daily_report, waiting_on_dgi, rejected_envelopes]


def register(check: Check) -> Check:
    """Add a check (another area's concern) to the watch; usable as a decorator."""
    if check not in CHECKS:
        CHECKS.append(check)
    return check


def evaluate(ctx: Context) -> list[Concern]:
    return [concern for check in CHECKS for concern in check(ctx)]
