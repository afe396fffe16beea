"""Exchange rates (GET /cotizaciones and /cotizaciones/dias), typed: the BCU's rate that applies to a receipt of a
day, and a currency's rates day by day over a period."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from portal.client import errors
from portal.client.transport import Transport

BASE = "/api/v1/cotizaciones"
# The currencies the service keeps rates of (the BCU's codes it asks for), the dollar first.
CURRENCIES = ("USD", "EUR", "ARS", "BRL", "UI")
# The longest period /cotizaciones/dias answers (both days included).
MAX_PERIOD_DAYS = 366


@dataclass(frozen=True)
class ExchangeRate:
    currency: str
    day: date  # the day it was published (before the one asked for on weekends and holidays)
    buy: Decimal
    sell: Decimal  # what a receipt's TpoCambio takes
    source: str  # "bcu", "simulador" (the BCU's stand-in: invented, not official) or "operador"


@dataclass(frozen=True)
class RateDay:
    """A day of a period: what was published that day (None on weekends and holidays) and the rate a receipt of
    that day takes (TpoCambio, 3 decimals) with the day it comes from (None: no rate in the days allowed)."""

    day: date
    buy: Decimal | None
    sell: Decimal | None
    source: str | None  # "bcu", "simulador", "operador", or None when nothing was published that day
    receipt_rate: Decimal | None
    receipt_rate_day: date | None

    @property
    def published(self) -> bool:
        return self.sell is not None


@dataclass(frozen=True)
class RateDays:
    """A currency's rates day by day, newest first, days without a rate included."""

    currency: str
    start: date
    end: date
    bcu_source: Literal["bcu", "simulador"]  # where the service loads rates from now: the BCU or its stand-in
    days_back: int  # how many days before a receipt's day its rate may be
    days: tuple[RateDay, ...]


def _decimal(value: str | None) -> Decimal | None:
    return Decimal(value) if value is not None else None


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value is not None else None


def _rate_day(item: Mapping[str, str | None]) -> RateDay:
    return RateDay(
        day=date.fromisoformat(str(item["fecha"])),
        buy=_decimal(item["compra"]),
        sell=_decimal(item["venta"]),
        source=item["fuente"],
        receipt_rate=_decimal(item["tipoCambio"]),
        receipt_rate_day=_day(item["fechaTipoCambio"]),
    )


class CotizacionesApi(Transport):
    def exchange_rate(self, currency: str, day: date | None = None) -> ExchangeRate | None:
        """The rate of `currency` for a receipt of `day` (today when None); None when none was published in the
        ten days before."""
        params = {"moneda": currency, **({"fecha": day.isoformat()} if day else {})}
        try:
            data = self._json("GET", BASE, params=params)
        except errors.NotFound:
            return None
        return ExchangeRate(
            currency=data["moneda"],
            day=date.fromisoformat(data["fecha"]),
            buy=Decimal(data["compra"]),
            sell=Decimal(data["venta"]),
            source=data["fuente"],
        )

    def exchange_rates(self, currency: str, start: date, end: date) -> RateDays:
        """GET cotizaciones/dias: every day from `start` to `end` (at most MAX_PERIOD_DAYS), newest first."""
        with errors.fields_named({"moneda": "currency", "desde": "start", "hasta": "end"}):
            params = {"moneda": currency, "desde": start.isoformat(), "hasta": end.isoformat()}
            data = self._json("GET", f"{BASE}/dias", params=params)
        return RateDays(
            currency=data["moneda"],
            start=date.fromisoformat(data["desde"]),
            end=date.fromisoformat(data["hasta"]),
            bcu_source=data["publicadas"],
            days_back=data["diasAtras"],
            days=tuple(_rate_day(item) for item in data["items"]),
        )
