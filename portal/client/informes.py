"""Reports (GET /informes/*), typed: a period's sales and its purchases at a glance, and the IVA books as files."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from portal.client import errors
from portal.client.models import JsonObject
from portal.client.transport import Transport

BASE = "/api/v1/informes"


def _day(value: str) -> date:
    return date.fromisoformat(value[:10])


BookFormat = Literal["csv", "xlsx"]  # also the receipt list's (ComprobantesApi.export_receipts)
BookName = Literal["ventas", "compras"]  # the sales book, the purchases book (received CFEs)
FILE_MEDIA: dict[str, str] = {
    "csv": "text/csv",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


@dataclass(frozen=True)
class Count:
    """How many receipts, and what they add up to in pesos."""

    key: str
    count: int
    total_uyu: Decimal


@dataclass(frozen=True)
class CurrencyCount:
    currency: str
    count: int
    total: Decimal  # in the currency
    total_uyu: Decimal


@dataclass(frozen=True)
class DayCount:
    day: date  # the first of the month when the period is grouped by month
    count: int
    total_uyu: Decimal


@dataclass(frozen=True)
class Customer:
    """The other party of a book: a customer of the sales, a supplier of the purchases."""

    document: str
    name: str
    count: int
    total_uyu: Decimal


@dataclass(frozen=True)
class PeriodReport:
    """A period's sales as the sales book adds them up (DGI's rejections left out), and its DGI states."""

    start: date
    end: date
    by_day: bool
    count: int
    total_uyu: Decimal
    rejected: int
    iva: tuple[tuple[str, Decimal], ...]  # the IVA return's figures, in pesos, by the service's key
    by_type: tuple[Count, ...]  # key: the CFE type code
    by_currency: tuple[CurrencyCount, ...]
    by_branch: tuple[Count, ...]  # key: DGI's branch code ("" when unknown)
    timeline: tuple[DayCount, ...]
    top_customers: tuple[Customer, ...]
    dgi_states: tuple[tuple[str, int], ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> PeriodReport:
        return cls(
            start=_day(data["desde"]),
            end=_day(data["hasta"]),
            by_day=data["agrupacion"] == "dia",
            count=int(data["cantidad"]),
            total_uyu=Decimal(data["totalPesos"]),
            rejected=int(data["rechazados"]),
            iva=tuple((key, Decimal(value)) for key, value in data["iva"].items()),
            by_type=tuple(
                Count(str(t["tipoCFE"]), int(t["cantidad"]), Decimal(t["totalPesos"])) for t in data["porTipo"]
            ),
            by_currency=tuple(
                CurrencyCount(c["moneda"], int(c["cantidad"]), Decimal(c["total"]), Decimal(c["totalPesos"]))
                for c in data["porMoneda"]
            ),
            by_branch=tuple(
                Count(str(b["cdgDGISucur"] or ""), int(b["cantidad"]), Decimal(b["totalPesos"]))
                for b in data["porSucursal"]
            ),
            timeline=tuple(
                DayCount(_day(d["fecha"]), int(d["cantidad"]), Decimal(d["totalPesos"])) for d in data["serie"]
            ),
            top_customers=tuple(
                Customer(c["docRecep"], c["rznSocRecep"], int(c["cantidad"]), Decimal(c["totalPesos"]))
                for c in data["principalesClientes"]
            ),
            dgi_states=tuple((s["estado"], int(s["cantidad"])) for s in data["estadosDgi"]),
        )


@dataclass(frozen=True)
class RateLine:
    """Net, IVA and total of one IVA rate of the purchases book, in pesos."""

    rate: str  # "basica", "minima", "otra" or "exento"
    percent: Decimal | None  # None for "otra" and "exento"
    net_uyu: Decimal
    iva_uyu: Decimal
    total_uyu: Decimal

    @classmethod
    def from_json(cls, data: JsonObject, rate: str = "") -> RateLine:
        percent = data.get("porcentaje")
        return cls(
            rate=data.get("tasa", rate),
            percent=None if percent is None else Decimal(percent),
            net_uyu=Decimal(data["netoPesos"]),
            iva_uyu=Decimal(data["ivaPesos"]),
            total_uyu=Decimal(data["totalPesos"]),
        )


@dataclass(frozen=True)
class PurchasesReport:
    """A period's purchases as the purchases book adds them up (received CFEs and the company's e-Boletas de
    entrada; the ones DGI or the company rejected counted apart, never added)."""

    start: date
    end: date
    count: int
    total_uyu: Decimal
    rejected_by_dgi: int
    rejected_by_company: int
    by_rate: tuple[RateLine, ...]  # always the four rates, in the book's order
    rates_total: RateLine  # the sum of by_rate (rate "total")
    iva: tuple[tuple[str, Decimal], ...]  # the IVA return's purchases figures, in pesos, by the service's key
    by_type: tuple[Count, ...]  # key: the CFE type code
    top_suppliers: tuple[Customer, ...]

    @property
    def empty(self) -> bool:
        return not self.count and not self.rejected_by_dgi and not self.rejected_by_company

    @classmethod
    def from_json(cls, data: JsonObject) -> PurchasesReport:
        return cls(
            start=_day(data["desde"]),
            end=_day(data["hasta"]),
            count=int(data["cantidad"]),
            total_uyu=Decimal(data["totalPesos"]),
            rejected_by_dgi=int(data["rechazadosDgi"]),
            rejected_by_company=int(data["rechazadosEmpresa"]),
            by_rate=tuple(RateLine.from_json(line) for line in data["porTasa"]),
            rates_total=RateLine.from_json(data["totalTasas"], "total"),
            iva=tuple((key, Decimal(value)) for key, value in data["iva"].items()),
            by_type=tuple(
                Count(str(t["tipoCFE"]), int(t["cantidad"]), Decimal(t["totalPesos"])) for t in data["porTipo"]
            ),
            top_suppliers=tuple(
                Customer(s["docEmisor"], s["nombreEmisor"], int(s["cantidad"]), Decimal(s["totalPesos"]))
                for s in data["principalesProveedores"]
            ),
        )


class InformesApi(Transport):
    def period_report(self, start: date, end: date) -> PeriodReport:
        """GET informes/periodo: the period's sales at a glance."""
        with errors.fields_named({"desde": "start", "hasta": "end"}):
            params = {"desde": start.isoformat(), "hasta": end.isoformat()}
            return PeriodReport.from_json(self._json("GET", f"{BASE}/periodo", params=params))

    def purchases_report(self, start: date, end: date) -> PurchasesReport:
        """GET informes/compras/resumen: the period's purchases at a glance, as the purchases book adds them."""
        with errors.fields_named({"desde": "start", "hasta": "end"}):
            params = {"desde": start.isoformat(), "hasta": end.isoformat()}
            return PurchasesReport.from_json(self._json("GET", f"{BASE}/compras/resumen", params=params))

    def sales_book(self, start: date, end: date, file_format: BookFormat) -> bytes:
        """GET informes/ventas: the IVA sales book of the period as CSV or XLSX."""
        return self.book("ventas", start, end, file_format)

    def purchases_book(self, start: date, end: date, file_format: BookFormat) -> bytes:
        """GET informes/compras: the IVA purchases book (the received CFEs) of the period as CSV or XLSX."""
        return self.book("compras", start, end, file_format)

    def book(self, name: BookName, start: date, end: date, file_format: BookFormat) -> bytes:
        """GET informes/ventas or informes/compras as CSV or XLSX."""
        with errors.fields_named({"desde": "start", "hasta": "end"}):
            params = {"desde": start.isoformat(), "hasta": end.isoformat()}
            return self._request("GET", f"{BASE}/{name}", params=params, accept=FILE_MEDIA[file_format]).content

    def period_summary_pdf(self, start: date, end: date) -> bytes:
        """GET informes/periodo/pdf: the period's summary as a PDF (the figures of period_report and
        purchases_report, and the IVA position they give)."""
        with errors.fields_named({"desde": "start", "hasta": "end"}):
            params = {"desde": start.isoformat(), "hasta": end.isoformat()}
            return self._request("GET", f"{BASE}/periodo/pdf", params=params, accept="application/pdf").content
