"""Banco Central del Uruguay's exchange-rate web service (awsbcucotizaciones), and the stand-in that answers
the same messages in development and tests.

`fetch_rates(url, currencies, start, end)` asks the service through zeep, from the WSDL beside this file, and
returns the rates it published (business days only: none on weekends and holidays). The BCU codes its
currencies with numbers of its own (MONEDAS). The stand-in (`standin_rates`, and the SOAP endpoint in
routes.py that serves them) gives steady, plausible rates for any day, so `make run` and the tests go through
the same client and parsing as production. Its figures are invented: each PublishedRate says whether it is the
stand-in's (`standin`), also when the stand-in answered through SOAP (it names itself in `Emisor`), so that
nobody is told an invented rate is the BCU's."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

import requests
import zeep
import zeep.exceptions
from zeep.transports import Transport

log = logging.getLogger(__name__)

# The BCU service described as its WSDL (our own copy, not a DGI file; .xml so it is not taken for one).
WSDL = Path(__file__).with_name("awsbcucotizaciones-wsdl.xml")
BCU_URL = "https://cotizaciones.bcu.gub.uy/wscotizaciones/servlet/awsbcucotizaciones"
# The BCU's code of each currency the product uses (its "awsbcumonedas" list): the US dollar as bank notes
# ("DLS. USA BILLETE", the rate people mean by "el dólar"), the euro, the Argentine peso and the Brazilian real
# as bank notes, and the Unidad Indexada.
MONEDAS: dict[str, int] = {"USD": 2225, "EUR": 1111, "ARS": 501, "BRL": 1001, "UI": 9800}
CURRENCIES = tuple(MONEDAS)
_CODES = {code: currency for currency, code in MONEDAS.items()}
_SETTINGS = zeep.Settings(strict=False, forbid_dtd=True, forbid_entities=True, forbid_external=True)
# Groups of the service: 0 asks every group (foreign currencies and the local units such as the UI).
_EVERY_GROUP = 0
# What the stand-in's SOAP answer says in each rate's `Emisor` (the BCU writes its own name there): how a rate
# fetched from an address that turns out to be the stand-in (the tests, a development setting) is known for one.
STANDIN_ISSUER = "Simulador del BCU (no oficial)"


class BcuUnavailable(Exception):
    """The BCU did not answer, or answered an error; `str()` says which, for the operator."""


@dataclass(frozen=True)
class PublishedRate:
    day: date
    currency: str
    buy: Decimal
    sell: Decimal
    standin: bool = False  # invented by the stand-in, not published by the BCU


@lru_cache(maxsize=1)
def _document() -> zeep.wsdl.Document:
    # Parsed once per process; local file only: nothing is fetched.
    # zeep annotates `transport` as type[Transport] but uses (and its own Client passes) an instance
    return zeep.wsdl.Document(str(WSDL), Transport(timeout=10), settings=_SETTINGS)  # type: ignore[arg-type]


def fetch_rates(
    url: str, currencies: tuple[str, ...], start: date, end: date, timeout: float = 20
) -> list[PublishedRate]:
    """The rates the BCU published for `currencies` from `start` to `end` (both included)."""
    transport = Transport(session=requests.Session(), timeout=timeout, operation_timeout=timeout)
    client = zeep.Client(_document().location, transport=transport, settings=_SETTINGS)
    client.wsdl = _document()
    service = client.create_service("{Cotiza}wsbcucotizacionesSoapBinding", url)
    entrada = {
        "Moneda": {"item": [MONEDAS[c] for c in currencies]},
        "FechaDesde": start,
        "FechaHasta": end,
        "Grupo": _EVERY_GROUP,
    }
    try:
        salida = service.Execute(Entrada=entrada)
    except (requests.RequestException, zeep.exceptions.Error) as exc:
        raise BcuUnavailable(f"el BCU no respondió: {exc}") from exc
    status = salida.respuestastatus
    if status is None or int(status.status or 0) != 1:
        # The BCU answers status 0 with codigoerror 100 when it published nothing in the range (a weekend).
        if status is not None and int(status.codigoerror or 0) == 100:
            return []
        message = getattr(status, "mensaje", None) or "respuesta sin estado"
        raise BcuUnavailable(f"el BCU respondió un error: {message}")
    found = []
    for dato in (salida.datoscotizaciones and salida.datoscotizaciones["datoscotizaciones.dato"]) or []:
        currency = _CODES.get(int(dato.Moneda))
        if currency is None or not dato.Fecha:
            continue
        found.append(
            PublishedRate(
                day=date.fromisoformat(str(dato.Fecha)[:10]),
                currency=currency,
                buy=Decimal(str(dato.TCC)),
                sell=Decimal(str(dato.TCV)),
                standin=getattr(dato, "Emisor", None) == STANDIN_ISSUER,
            )
        )
    return found


# The stand-in's level of each currency in pesos, and how much it moves (a slow wave, the same every run).
_STANDIN_LEVEL = {
    "USD": Decimal("40.1"),
    "EUR": Decimal("43.6"),
    "ARS": Decimal("0.0351"),
    "BRL": Decimal("7.21"),
    "UI": Decimal("6.4"),
}


def standin_rates(currencies: tuple[str, ...], start: date, end: date) -> list[PublishedRate]:
    """What the stand-in publishes, steady and plausible: the currencies on business days (Monday to Friday), the
    UI every day (it is an index, one value a day, growing a little)."""
    rates, day = [], start
    while day <= end:
        wave = Decimal(str(round(math.sin(day.toordinal() / 9) / 100, 6)))
        for currency in currencies:
            level = _STANDIN_LEVEL[currency]
            if currency == "UI":
                value = (level * (1 + Decimal(day.toordinal() - 739000) / 36500)).quantize(Decimal("0.0001"))
                rates.append(PublishedRate(day, currency, value, value, standin=True))
            elif day.weekday() < 5:
                sell = (level * (1 + wave)).quantize(Decimal("0.001"))
                buy = (sell * Decimal("0.98")).quantize(Decimal("0.001"))
                rates.append(PublishedRate(day, currency, buy, sell, standin=True))
        day += timedelta(days=1)
    return rates
