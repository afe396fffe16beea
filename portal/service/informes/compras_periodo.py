"""A period's purchases at a glance for the portal's "Informes": what the purchases book (compras.py) adds up, its
received CFEs and the e-Boletas de entrada the company issued, the rejected ones apart and out of the sums: the
book's totals, net, IVA and total by IVA rate, by type, and the main suppliers. One pass over the book's rows,
the same ones its files are written from: never a second way to add them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from sqlalchemy.orm import Session

from portal.domain.cfe_types import IVA_BASIC_RATE, IVA_MINIMUM_RATE
from portal.service.informes.compras import PURCHASES, purchase_rows
from portal.service.informes.periodo import Parties
from portal.service.informes.ventas import SALES, ZERO, BookRow, BookSummary

# Each IVA rate of the book: its name in the API, its rate in percent (None: none or several), and the book's
# columns of its net amount and its IVA (None: no IVA).
RATES: tuple[tuple[str, Decimal | None, str, str | None], ...] = (
    ("basica", IVA_BASIC_RATE, "netoTasaBasica", "ivaTasaBasica"),
    ("minima", IVA_MINIMUM_RATE, "netoTasaMinima", "ivaTasaMinima"),
    ("otra", None, "netoOtraTasa", "ivaOtraTasa"),
    ("exento", None, "noGravado", None),
)


@dataclass(frozen=True)
class RateLine:
    rate: str
    percent: Decimal | None
    net: Decimal  # in pesos
    iva: Decimal

    @property
    def total(self) -> Decimal:
        return self.net + self.iva


@dataclass
class PurchasesReport:
    desde: date
    hasta: date
    book: BookSummary = field(default_factory=lambda: BookSummary(kind=PURCHASES))
    suppliers: Parties = field(default_factory=Parties)

    def add(self, row: BookRow) -> None:
        self.book.add(row)
        if not row.rejected:
            self.suppliers.add(row)  # the book's party columns hold the supplier

    def by_rate(self) -> list[RateLine]:
        """Net and IVA credit by rate, in pesos, as the book's totals have them (credit notes subtracted)."""
        amounts = self.book.total.amounts
        return [
            RateLine(name, percent, amounts[net], amounts[iva] if iva else ZERO) for name, percent, net, iva in RATES
        ]

    def rates_total(self) -> RateLine:
        """The rates' lines added up: every rate's net, the whole IVA credit and their total."""
        lines = self.by_rate()
        return RateLine("total", None, sum((line.net for line in lines), ZERO), sum((line.iva for line in lines), ZERO))

    def apart(self, reason: str) -> int:
        """How many CFEs the book lists apart for `reason` ("dgi", "empresa")."""
        return len(self.book.apart.get(reason, []))


def purchases_report(read_session: Session, company_id: int, desde: date, hasta: date) -> PurchasesReport:
    """The period's purchases book added up, its rows read from `read_session` (closed at the end)."""
    report = PurchasesReport(desde=desde, hasta=hasta)
    for row in purchase_rows(read_session, company_id, desde, hasta):
        report.add(row)
    return report


def net_iva(sales: BookSummary, purchases: BookSummary) -> Decimal:
    """The period's IVA position as the two books have it: the sales' débito fiscal less the purchases' crédito
    fiscal (positive: to pay). An estimate, not the return: it leaves out the withholdings and perceptions the
    company suffered, a balance in its favour from earlier periods and the credit of purchases for exempt sales
    the return does not admit."""
    return sales.declaration[SALES.iva_total] - purchases.declaration[PURCHASES.iva_total]


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


def summary_json(report: PurchasesReport) -> dict[str, object]:
    """The report as GET /informes/compras/resumen answers it (schemas.PeriodoCompras)."""
    book, rates, rates_total = report.book, report.by_rate(), report.rates_total()
    total = book.total
    return {
        "desde": report.desde.isoformat(),
        "hasta": report.hasta.isoformat(),
        "cantidad": total.count,
        "totalPesos": _money(total.amounts["total"]),
        "rechazadosDgi": report.apart("dgi"),
        "rechazadosEmpresa": report.apart("empresa"),
        "porTasa": [
            {
                "tasa": line.rate,
                "porcentaje": None if line.percent is None else _money(line.percent),
                "netoPesos": _money(line.net),
                "ivaPesos": _money(line.iva),
                "totalPesos": _money(line.total),
            }
            for line in rates
        ],
        "totalTasas": {
            "netoPesos": _money(rates_total.net),
            "ivaPesos": _money(rates_total.iva),
            "totalPesos": _money(rates_total.total),
        },
        "iva": {key: _money(value) for key, value in book.declaration.items()},
        "porTipo": [
            {"tipoCFE": code, "cantidad": t.count, "totalPesos": _money(t.amounts["total"])}
            for code, t in sorted(book.by_type.items())
        ],
        "principalesProveedores": [
            {"docEmisor": doc, "nombreEmisor": name, "cantidad": b.count, "totalPesos": _money(b.total)}
            for doc, name, b in report.suppliers.top()
        ],
    }
