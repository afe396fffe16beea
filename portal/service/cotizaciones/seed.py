"""Demo exchange rates: the stand-in's figures of the last weeks (development only), so the issuing form
proposes a rate in dollars from the first `make run`; the worker keeps them current."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from sqlalchemy.orm import Session

from portal.domain.uruguay_time import today_montevideo
from portal.service.cotizaciones import bcu, rates


def seed_demo(session: Session, companies: list) -> Iterator[str]:
    today = today_montevideo()
    changed = rates.store(session, bcu.standin_rates(bcu.CURRENCIES, today - timedelta(days=20), today))
    if changed:
        yield f"cotizaciones: {changed} rates of the stand-in, last 20 days"
