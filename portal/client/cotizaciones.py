"""Exchange rates (GET /cotizaciones), typed: the BCU's rate that applies to a receipt of a day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from portal.client import errors
from portal.client.transport import Transport


@dataclass(frozen=True)
class ExchangeRate:
    currency: str
    day: date  # the day it was published (before the one asked for on weekends and holidays)
    buy: Decimal
    sell: Decimal  # what a receipt's TpoCambio takes
    source: str  # "bcu" or "operador"


class CotizacionesApi(Transport):
    def exchange_rate(self, currency: str, day: date | None = None) -> ExchangeRate | None:
        """The rate of `currency` for a receipt of `day` (today when None); None when none was published in the
        ten days before."""
        params = {"moneda": currency, **({"fecha": day.isoformat()} if day else {})}
        try:
            data = self._json("GET", "/api/v1/cotizaciones", params=params)
        except errors.NotFound:
            return None
        return ExchangeRate(
            currency=data["moneda"],
            day=date.fromisoformat(data["fecha"]),
            buy=Decimal(data["compra"]),
            sell=Decimal(data["venta"]),
            source=data["fuente"],
        )
