"""The Unidad Indexada of DGI's Tabla E (e-Ticket identification and sending threshold), picked by the
receipt's issue date from the `ui_value` table. `CFE_UI_VALUE_UYU` is only the fallback for a year the
table does not hold yet; operators add years with `python -m portal.service ui-value set YEAR VALUE`."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from flask import current_app
from sqlalchemy.orm import Session

from portal.service.indices.models import UiValue
from portal.service.platform import db, readcache

readcache.watch(UiValue)

# The quote has 4 decimals (INE publishes it so); a value outside this range is a typing mistake.
MIN_VALUE, MAX_VALUE = Decimal("0.0001"), Decimal("999999.9999")


def ui_value_in(session: Session, year: int, fallback: Decimal) -> Decimal:
    """The UI for receipts issued in `year`, or `fallback` when the table lacks that year."""
    row = session.get(UiValue, year)
    return Decimal(row.value) if row is not None else fallback


def ui_value_on(fch_emis: date, session: Session | None = None) -> Decimal:
    """The UI Tabla E uses for a receipt issued on `fch_emis` (31 December of the year before), in the
    current app; `session` defaults to the request's. The table's row is kept per process for a moment
    (readcache: a value set through another process is used within CFE_READ_CACHE_SECONDS)."""

    def table_value() -> Decimal | None:
        row = (session if session is not None else db.session()).get(UiValue, fch_emis.year)
        return Decimal(row.value) if row is not None else None

    value = readcache.get(("ui_value", fch_emis.year), table_value)
    return value if value is not None else current_app.config["UI_VALUE_UYU"]


def set_ui_value(session: Session, year: int, value: Decimal, source: str, verified: bool = True) -> UiValue:
    """Add or correct the UI of `year` (the caller commits)."""
    if not MIN_VALUE <= value <= MAX_VALUE or value != value.quantize(MIN_VALUE):
        raise ValueError(f"valor de UI inválido: {value} (pesos, hasta 4 decimales)")
    if not 2002 <= year <= 2100:
        raise ValueError(f"año inválido: {year}")
    row = session.get(UiValue, year)
    if row is None:
        row = UiValue(year=year)
        session.add(row)
    row.value, row.source, row.verified = value, source[:300], verified
    return row
