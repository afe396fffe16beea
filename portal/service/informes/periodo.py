"""A period at a glance for the portal's "Informes": what the sales book adds up (totals by type, currency,
branch and day or month, net and IVA by rate, the top customers) and the DGI states of every receipt of the
period. One pass over the book's rows: the same numbers the book files, never a second way to add them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.service.comprobante.models import IssuedCfe
from portal.service.informes.ventas import ZERO, BookRow, BookSummary, book_rows

# A period up to two months is drawn day by day; a longer one month by month.
DAILY_UP_TO_DAYS = 62
TOP_CUSTOMERS = 10


@dataclass
class Bucket:
    count: int = 0
    total: Decimal = ZERO  # in pesos

    def add(self, row: BookRow) -> None:
        self.count += 1
        self.total += row.amounts_uyu.get("total", ZERO)


@dataclass
class Parties:
    """The book's other parties (customers, suppliers) ranked by what they add up in pesos. A party is its
    document: the name it was given can change from one CFE to the next (a typo put right, "S.A." added), and
    the period shows the latest (the book goes by date)."""

    buckets: dict[str, Bucket] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def add(self, row: BookRow) -> None:
        if not row.receptor_doc:
            return
        self.buckets.setdefault(row.receptor_doc, Bucket()).add(row)
        if row.receptor_nombre or row.receptor_doc not in self.names:
            self.names[row.receptor_doc] = row.receptor_nombre or ""

    def top(self, count: int = TOP_CUSTOMERS) -> list[tuple[str, str, Bucket]]:
        ranked = sorted(self.buckets.items(), key=lambda item: item[1].total, reverse=True)
        return [(doc, self.names[doc], bucket) for doc, bucket in ranked[:count]]


@dataclass
class PeriodReport:
    desde: date
    hasta: date
    by_day: bool
    book: BookSummary = field(default_factory=BookSummary)
    timeline: dict[date, Bucket] = field(default_factory=dict)
    branches: dict[int | None, Bucket] = field(default_factory=dict)
    customers: Parties = field(default_factory=Parties)
    dgi_states: dict[str, int] = field(default_factory=dict)

    def add(self, row: BookRow) -> None:
        self.book.add(row)
        if row.rejected:
            return
        self.timeline[self.slot(row.fecha)].add(row)
        self.branches.setdefault(row.sucursal, Bucket()).add(row)
        self.customers.add(row)

    def slot(self, day: date) -> date:
        return day if self.by_day else day.replace(day=1)

    def top_customers(self) -> list[tuple[str, str, Bucket]]:
        return self.customers.top()


def _slots(desde: date, hasta: date, by_day: bool) -> list[date]:
    """Every day (or first of month) of the period, so a chart shows the quiet days as zero, not as gaps. Counted
    by ordinal and by month number, never by computing the day after the last one (there is none after
    31/12/9999)."""
    if by_day:
        return [date.fromordinal(ordinal) for ordinal in range(desde.toordinal(), hasta.toordinal() + 1)]
    first, last = desde.year * 12 + desde.month - 1, hasta.year * 12 + hasta.month - 1
    return [date(number // 12, number % 12 + 1, 1) for number in range(first, last + 1)]


def period_report(session: Session, read_session: Session, company_id: int, desde: date, hasta: date) -> PeriodReport:
    """The period's figures: the sales book's rows read from `read_session` (closed at the end), the DGI states
    of all its receipts (e-Remitos and e-Resguardos included) from `session`."""
    by_day = (hasta - desde).days < DAILY_UP_TO_DAYS
    report = PeriodReport(desde=desde, hasta=hasta, by_day=by_day)
    report.timeline = {slot: Bucket() for slot in _slots(desde, hasta, by_day)}
    for row in book_rows(read_session, company_id, desde, hasta, branches=True):
        report.add(row)
    states = session.execute(
        select(IssuedCfe.dgi_status, func.count())
        .where(IssuedCfe.company_id == company_id, IssuedCfe.fch_emis >= desde, IssuedCfe.fch_emis <= hasta)
        .group_by(IssuedCfe.dgi_status)
    )
    report.dgi_states = dict(Counter({state: count for state, count in states}).most_common())
    return report
