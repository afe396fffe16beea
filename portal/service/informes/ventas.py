"""The IVA sales book (libro de ventas): one row per receipt of a period, with net and IVA per rate as the
signed CFE carries them (Zona A, "Totales encabezado"), credit notes negative, in the receipt's currency and in
pesos; receipts DGI rejected are left out of the totals and listed apart.

Rows are read in batches straight from the receipts' columns and the JSON totals stored at signing (the same
numbers the XML carries, written from one `Totals`), so a month of 100,000 receipts streams in flat memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import CFE_TYPES, INVOICE_TYPES
from portal.service.comprobante.models import IssuedCfe

CENT = Decimal("0.01")
ZERO = Decimal("0")
# DGI's state for a receipt it refused: it never counted, and its number was voided by the rejection.
REJECTED = "rechazado"
# The book's amount columns, in order: the book's name, and the total of the signed CFE it comes from.
AMOUNT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("noGravado", "mntNoGrv"),
    ("exportacion", "mntExpoyAsim"),
    ("ivaSuspenso", "mntIVaenSusp"),
    ("netoTasaMinima", "mntNetoIvaTasaMin"),
    ("netoTasaBasica", "mntNetoIVATasaBasica"),
    ("netoOtraTasa", "mntNetoIVAOtra"),
    ("ivaTasaMinima", "mntIVATasaMin"),
    ("ivaTasaBasica", "mntIVATasaBasica"),
    ("ivaOtraTasa", "mntIVAOtra"),
    ("percepciones", "mntImpuestoPerc"),
    ("retenciones", "mntTotRetenido"),
    ("total", "mntTotal"),
)
AMOUNT_NAMES = tuple(name for name, _ in AMOUNT_COLUMNS)
# The types that are sales with IVA (the e-Ticket and e-Factura families): e-Remitos move goods and
# e-Resguardos certify retentions; neither belongs to the sales book.
BOOK_TYPES = frozenset(INVOICE_TYPES)
_BATCH = 1000


@dataclass(frozen=True)
class BookRow:
    id: str
    fecha: date
    tipo_cfe: int
    serie: str
    nro: int
    receptor_doc: str | None
    receptor_nombre: str | None
    moneda: str
    tipo_cambio: Decimal
    dgi_status: str
    sucursal: int | None  # the DGI branch code it was issued from (cdgDGISucur)
    amounts: dict[str, Decimal]  # in the receipt's currency, signed (credit notes negative)
    amounts_uyu: dict[str, Decimal]  # the same in pesos, each rounded half-up to the cent

    @property
    def rejected(self) -> bool:
        return self.dgi_status == REJECTED


@dataclass
class Totals:
    """Sums of the book's amount columns, in pesos."""

    count: int = 0
    amounts: dict[str, Decimal] = field(default_factory=lambda: dict.fromkeys(AMOUNT_NAMES, ZERO))

    def add(self, row: BookRow) -> None:
        self.count += 1
        for name in AMOUNT_NAMES:
            self.amounts[name] += row.amounts_uyu[name]


@dataclass
class BookSummary:
    """What the book adds up as its rows go by: totals in pesos overall, per type and per currency (the latter in
    the currency's own amounts too), and the rejected receipts apart."""

    total: Totals = field(default_factory=Totals)
    by_type: dict[int, Totals] = field(default_factory=dict)
    by_currency: dict[str, Totals] = field(default_factory=dict)
    by_currency_own: dict[str, dict[str, Decimal]] = field(default_factory=dict)
    rejected: list[BookRow] = field(default_factory=list)

    def add(self, row: BookRow) -> None:
        if row.rejected:
            self.rejected.append(row)
            return
        self.total.add(row)
        self.by_type.setdefault(row.tipo_cfe, Totals()).add(row)
        self.by_currency.setdefault(row.moneda, Totals()).add(row)
        own = self.by_currency_own.setdefault(row.moneda, dict.fromkeys(AMOUNT_NAMES, ZERO))
        for name in AMOUNT_NAMES:
            own[name] += row.amounts[name]

    @property
    def declaration(self) -> dict[str, Decimal]:
        """The sales figures of the period's IVA return, in pesos: sales at each rate with their IVA, exempt
        and non-taxed sales, exports, and the IVA withheld or perceived."""
        a = self.total.amounts
        return {
            "ventasTasaBasica": a["netoTasaBasica"],
            "ivaTasaBasica": a["ivaTasaBasica"],
            "ventasTasaMinima": a["netoTasaMinima"],
            "ivaTasaMinima": a["ivaTasaMinima"],
            "ventasOtraTasa": a["netoOtraTasa"],
            "ivaOtraTasa": a["ivaOtraTasa"],
            "ventasExentasONoGravadas": a["noGravado"],
            "exportaciones": a["exportacion"],
            "ivaEnSuspenso": a["ivaSuspenso"],
            "ivaDebitoFiscal": a["ivaTasaBasica"] + a["ivaTasaMinima"] + a["ivaOtraTasa"],
            "percepciones": a["percepciones"],
            "retenciones": a["retenciones"],
        }


def _decimal(value: object) -> Decimal:
    return ZERO if value in (None, "") else Decimal(str(value))


class ReceiptColumns(Protocol):
    """What the book reads of a receipt: IssuedCfe's columns, and `tpo_cambio`, the rate it was signed with
    (TpoCambio of its Zona A; absent in pesos)."""

    id: str
    fch_emis: date
    tipo_cfe: int
    serie: str
    nro: int
    receptor_doc: str | None
    receptor_nombre: str | None
    tpo_moneda: str
    dgi_status: str
    totals_json: dict[str, Any]
    tpo_cambio: str | None
    sucursal: int | None


def to_row(record: ReceiptColumns) -> BookRow:
    """A receipt as a line of the book."""
    kind = CFE_TYPES.get(record.tipo_cfe)
    sign = Decimal(-1) if kind is not None and kind.note_sign < 0 else Decimal(1)
    rate = _decimal(record.tpo_cambio) or Decimal(1)
    totals = record.totals_json
    amounts = {name: sign * _decimal(totals.get(source)) for name, source in AMOUNT_COLUMNS}
    if record.tpo_moneda == "UYU":
        rate = Decimal(1)
        in_pesos = dict(amounts)
    else:
        in_pesos = {name: (value * rate).quantize(CENT, ROUND_HALF_UP) for name, value in amounts.items()}
    return BookRow(
        id=record.id,
        fecha=record.fch_emis,
        tipo_cfe=record.tipo_cfe,
        serie=record.serie,
        nro=record.nro,
        receptor_doc=record.receptor_doc,
        receptor_nombre=record.receptor_nombre,
        moneda=record.tpo_moneda,
        tipo_cambio=rate,
        dgi_status=record.dgi_status,
        sucursal=record.sucursal,
        amounts=amounts,
        amounts_uyu=in_pesos,
    )


def book_rows(session: Session, company_id: int, desde: date, hasta: date) -> Iterator[BookRow]:
    """The period's receipts in the book's order (date, type, serie, number), read in batches from `session`
    (one of its own: a long download holds neither the request's session nor its context), which is closed when
    the last row has been read."""
    rate = IssuedCfe.input_json["tpoCambio"].as_string().label("tpo_cambio")
    statement = (
        select(
            IssuedCfe.id,
            IssuedCfe.fch_emis,
            IssuedCfe.tipo_cfe,
            IssuedCfe.serie,
            IssuedCfe.nro,
            IssuedCfe.receptor_doc,
            IssuedCfe.receptor_nombre,
            IssuedCfe.tpo_moneda,
            IssuedCfe.dgi_status,
            IssuedCfe.totals_json,
            rate,
            IssuedCfe.issuer_json["cdg_dgi_sucursal"].as_integer().label("sucursal"),
        )
        .where(
            IssuedCfe.company_id == company_id,
            IssuedCfe.fch_emis >= desde,
            IssuedCfe.fch_emis <= hasta,
            IssuedCfe.tipo_cfe.in_(sorted(BOOK_TYPES)),
        )
        .order_by(IssuedCfe.fch_emis, IssuedCfe.tipo_cfe, IssuedCfe.serie, IssuedCfe.nro)
        .execution_options(yield_per=_BATCH)
    )
    try:
        for record in session.execute(statement):
            yield to_row(record)  # type: ignore[arg-type]  # a Row has the columns by name
    finally:
        session.close()
