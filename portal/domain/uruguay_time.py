"""Uruguay's clock. Fiscal dates (a receipt's date, a CAE's expiry, a daily report's day) are Montevideo's,
whatever the server's time zone: between 21:00 and midnight in Uruguay, UTC is already tomorrow."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

MONTEVIDEO = ZoneInfo("America/Montevideo")


def today_montevideo() -> date:
    """Today's date in Uruguay."""
    return datetime.now(MONTEVIDEO).date()
