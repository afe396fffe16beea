"""Tables of the cotizaciones area: one exchange rate per day and currency."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from sqlalchemy import Date, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime

# The BCU's publication, its stand-in's invented figures (development, demo, tests: never official), or an
# operator's correction.
RateSource = Literal["bcu", "simulador", "operador"]


class ExchangeRate(Base):
    """The BCU's closing rate of `currency` in pesos on `day` (interbank: buy TCC, sell TCV), its stand-in's
    figure for that day, or an operator's correction of it."""

    __tablename__ = "cotizacion"

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    currency: Mapped[str] = mapped_column(String(3), primary_key=True)  # USD, EUR, ARS, BRL, UI (ISO-like)
    buy: Mapped[Decimal] = mapped_column(Numeric(14, 6))
    sell: Mapped[Decimal] = mapped_column(Numeric(14, 6))
    source: Mapped[RateSource] = mapped_column(String(20))  # "bcu", "simulador", "operador"
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
