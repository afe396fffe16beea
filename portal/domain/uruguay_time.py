"""Uruguay's clock. Fiscal dates (a receipt's date, a CAE's expiry, a daily report's day) are Montevideo's,
whatever the server's time zone: between 21:00 and midnight in Uruguay, UTC is already tomorrow."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

MONTEVIDEO = ZoneInfo("America/Montevideo")


def today_montevideo() -> date:
    """Today's date in Uruguay."""
    return datetime.now(MONTEVIDEO).date()


def day_in_uruguay(moment: datetime) -> date:
    """The date an instant falls on in Uruguay (a naive datetime is UTC, as the database keeps them): a
    certificate that expires at 01:00 UTC on the 10th expired on the 9th for its owner."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(MONTEVIDEO).date()
