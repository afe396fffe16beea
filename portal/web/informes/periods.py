"""The periods an accountant picks: a month, a quarter, a year, or a range of days. Pure, so it is tested without
Flask. A period is written in the URL as `m2026-11`, `q2026-4`, `y2026` or `rango` (with `desde` and `hasta`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

_CODE = re.compile(r"^(?:m(?P<m_year>\d{4})-(?P<month>\d{2})|q(?P<q_year>\d{4})-(?P<quarter>[1-4])|y(?P<year>\d{4}))$")
RANGE = "rango"
MONTHS_OFFERED, QUARTERS_OFFERED, YEARS_OFFERED = 18, 6, 3


@dataclass(frozen=True)
class Period:
    code: str
    start: date
    end: date

    @property
    def kind(self) -> str:
        return {"m": "month", "q": "quarter", "y": "year"}.get(self.code[:1], "range")


def _month_end(year: int, month: int) -> date:
    following = date(year + month // 12, month % 12 + 1, 1)
    return following - timedelta(days=1)


def month(year: int, number: int) -> Period:
    return Period(f"m{year:04d}-{number:02d}", date(year, number, 1), _month_end(year, number))


def quarter(year: int, number: int) -> Period:
    first = 3 * (number - 1) + 1
    return Period(f"q{year:04d}-{number}", date(year, first, 1), _month_end(year, first + 2))


def year(number: int) -> Period:
    return Period(f"y{number:04d}", date(number, 1, 1), date(number, 12, 31))


def parse(code: str) -> Period | None:
    """The period a code names, or None for a code that is not one (or names no real month, or one the calendar
    cannot hold: year 0, or a December of 9999 whose end is computed from the January after it)."""
    found = _CODE.match(code or "")
    if not found:
        return None
    try:
        if found["month"]:
            number = int(found["month"])
            return month(int(found["m_year"]), number) if 1 <= number <= 12 else None
        if found["quarter"]:
            return quarter(int(found["q_year"]), int(found["quarter"]))
        return year(int(found["year"]))
    except ValueError:
        return None


def offered(today: date) -> tuple[list[Period], list[Period], list[Period]]:
    """The months, quarters and years a person picks from, the current one first."""
    months, (y, m) = [], (today.year, today.month)
    for _ in range(MONTHS_OFFERED):
        months.append(month(y, m))
        y, m = (y - 1, 12) if m == 1 else (y, m - 1)
    quarters, (y, q) = [], (today.year, (today.month - 1) // 3 + 1)
    for _ in range(QUARTERS_OFFERED):
        quarters.append(quarter(y, q))
        y, q = (y - 1, 4) if q == 1 else (y, q - 1)
    years = [year(today.year - back) for back in range(YEARS_OFFERED)]
    return months, quarters, years
