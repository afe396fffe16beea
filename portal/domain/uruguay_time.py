"""Uruguay's clock. Fiscal dates (a receipt's date, a CAE's expiry, a daily report's day) are Montevideo's,
whatever the server's time zone: between 21:00 and midnight in Uruguay, UTC is already tomorrow."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

MONTEVIDEO = ZoneInfo("America/Montevideo")


def today_montevideo() -> date:
    """Today's date in Uruguay."""
    return datetime.now(MONTEVIDEO).date()


def day_in_uruguay(moment: datetime) -> date:
    """The date an instant falls on in Uruguay: a certificate that expires at 01:00 UTC on the 10th expired on
    the 9th for its owner."""
    return moment.astimezone(MONTEVIDEO).date()


def montevideo_time(moment: datetime) -> datetime:
    """`moment` on Uruguay's clock. A naive one is taken as Montevideo's wall-clock time already: DGI's
    documents (a CAE's TmstFirma, an ACKSobre's consulting time) may carry times without an offset, and those
    are Uruguay's. Stored moments are never naive (portal/sqltypes.UtcDateTime)."""
    return moment.replace(tzinfo=MONTEVIDEO) if moment.tzinfo is None else moment.astimezone(MONTEVIDEO)
