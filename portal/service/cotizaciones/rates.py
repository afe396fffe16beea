"""The rates kept by day: storing what the BCU published (or an operator's correction), and the rate that applies
to a day. The UI of 31 December also becomes the next year's value of the 5,000 UI rule (indices.ui)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Final

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.cotizaciones import bcu
from portal.service.cotizaciones.models import ExchangeRate, RateSource
from portal.service.indices.models import UiValue
from portal.service.indices.ui import set_ui_value

OPERATOR: Final = "operador"
STANDIN: Final = "simulador"
# Which source may replace which: a row is overwritten only by a source at least as trusted. The BCU's figures
# replace the stand-in's (an installation that starts asking the BCU), never an operator's correction; the
# stand-in's replace nothing but its own.
_TRUST: dict[str, int] = {STANDIN: 0, "bcu": 1, OPERATOR: 2}
# What the UI of 31 December set as the next year's value says it comes from.
_UI_ORIGIN = {"bcu": "BCU", STANDIN: "Simulador del BCU (no oficial)", OPERATOR: "Operador"}
# How far back a rate may be to still be "the day's": the BCU publishes none on weekends and holidays, and
# Carnival and Tourism week close it for days at a time.
MAX_AGE_DAYS = 10


def _source_of(rate: bcu.PublishedRate) -> RateSource:
    return STANDIN if rate.standin else "bcu"


def store(session: Session, published: Iterable[bcu.PublishedRate], source: RateSource | None = None) -> int:
    """Adds or updates the published rates, each with its source (`source`, else the BCU's or the stand-in's as
    the rate says), never over a more trusted one (_TRUST: an operator's correction, a BCU row under the stand-in's
    figures); the caller commits. A UI of 31 December sets the UI of the year after for the e-Ticket threshold.
    Returns how many rows changed."""
    changed = 0
    for rate in published:
        rate_source = source or _source_of(rate)
        row = session.get(ExchangeRate, (rate.day, rate.currency))
        if row is not None and _TRUST.get(row.source, 0) > _TRUST[rate_source]:
            continue
        if row is None:
            row = ExchangeRate(day=rate.day, currency=rate.currency)
            session.add(row)
        elif (row.buy, row.sell, row.source) == (rate.buy, rate.sell, rate_source):
            continue
        row.buy, row.sell, row.source = rate.buy, rate.sell, rate_source
        changed += 1
        if rate.currency == "UI" and (rate.day.month, rate.day.day) == (12, 31):
            _next_years_ui(session, rate, rate_source)
    return changed


def _next_years_ui(session: Session, rate: bcu.PublishedRate, source: RateSource) -> None:
    kept = session.get(UiValue, rate.day.year + 1)
    if source == STANDIN and kept is not None and not kept.source.startswith(_UI_ORIGIN[STANDIN]):
        return  # an invented UI never replaces the threshold's value that someone set or the BCU gave
    origin = f"{_UI_ORIGIN[source]}, UI al 31/12/{rate.day.year}"
    set_ui_value(session, rate.day.year + 1, rate.sell.quantize(Decimal("0.0001")), origin, verified=source != STANDIN)


def rate_on(session: Session, currency: str, day: date) -> ExchangeRate | None:
    """The rate of `currency` for a receipt of `day`: the latest published on or before it, at most
    MAX_AGE_DAYS old; None when there is none that recent."""
    row = session.scalars(
        select(ExchangeRate)
        .where(ExchangeRate.currency == currency, ExchangeRate.day <= day)
        .order_by(ExchangeRate.day.desc())
        .limit(1)
    ).first()
    if row is None or (day - row.day).days > MAX_AGE_DAYS:
        return None
    return row


@dataclass(frozen=True)
class RateDay:
    """A day of a period: the rate published that day (None on weekends and holidays) and the one a receipt of that
    day takes (rate_on's: the same, or the latest before it; None when none is MAX_AGE_DAYS recent)."""

    day: date
    published: ExchangeRate | None
    applied: ExchangeRate | None


def days(session: Session, currency: str, start: date, end: date) -> list[RateDay]:
    """Every day from `end` back to `start`, newest first, with rate_on's rule applied to one read of the rows."""
    # The days whose rate a day of the period may take, from MAX_AGE_DAYS before it (none before year 1).
    earliest = date.min if (start - date.min).days < MAX_AGE_DAYS else start - timedelta(days=MAX_AGE_DAYS)
    rows = session.scalars(
        select(ExchangeRate)
        .where(ExchangeRate.currency == currency, ExchangeRate.day >= earliest, ExchangeRate.day <= end)
        .order_by(ExchangeRate.day)
    ).all()
    by_day = {row.day: row for row in rows}
    found, latest = [], None
    for offset in range((end - earliest).days + 1):  # counted, not stepped: a period may end on date.max
        day = earliest + timedelta(days=offset)
        latest = by_day.get(day, latest)
        if day >= start:
            applied = latest if latest is not None and (day - latest.day).days <= MAX_AGE_DAYS else None
            found.append(RateDay(day, by_day.get(day), applied))
    return found[::-1]


def refresh(session: Session, start: date, end: date) -> int:
    """Asks the configured source (the BCU or the stand-in) for every currency from `start` to `end` and stores
    what it published, the stand-in's figures as such (STANDIN); the caller commits. Raises bcu.BcuUnavailable
    when the BCU does not answer."""
    if current_app.config["RATES_SOURCE"] == "bcu":
        published = bcu.fetch_rates(
            current_app.config["BCU_URL"], bcu.CURRENCIES, start, end, current_app.config["BCU_TIMEOUT_SECONDS"]
        )
    else:
        published = bcu.standin_rates(bcu.CURRENCIES, start, end)
    return store(session, published)
