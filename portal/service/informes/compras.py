"""The IVA purchases book (libro de compras): the sales book's rows, totals, files and JSON (ventas.py, files.py)
read from the received CFEs: each one's amounts from its signed XML's Zona A totals, as its issuer signed them,
credit notes negative, in its currency and in pesos. CFEs DGI rejected (the issuer's notice of annulment) and
the ones the company rejected (on arrival, or commercially) stay out of the book and are listed apart.

The company's own purchase documents are in it too: the e-Boletas de entrada (151-153) it issued to sellers who
issue no CFE (CFE-URUGUAY.md section 3: IndFact 13-15 and 17), read as the sales book reads a receipt, the seller
as the supplier; one DGI rejected is listed apart with the received ones."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import BOLETA_TYPES, with_cfc
from portal.service.informes.ventas import BOOK_TYPES, BookKind, BookRow, book_row, book_rows
from portal.service.recibidos.amounts import signed_totals
from portal.service.recibidos.models import ReceivedCfe

PURCHASES = BookKind(
    name="compras",
    title="Libro de compras",
    party_label="Proveedor",
    party_keys=("docEmisor", "nombreEmisor"),
    state_label="Estado",
    state_key="estado",
    apart=(
        ("dgi", "rechazadosDgi", "Rechazados por DGI"),
        ("empresa", "rechazadosEmpresa", "Rechazados por la empresa"),
    ),
    iva_total="ivaCreditoFiscal",
    own_types=with_cfc(BOLETA_TYPES),
)
_BATCH = 500


@dataclass(frozen=True)
class _Columns:
    """A received CFE in the columns the sales book reads of a receipt (ventas.ReceiptColumns)."""

    id: str
    fch_emis: date
    tipo_cfe: int
    serie: str
    nro: int
    receptor_doc: str | None  # the supplier here
    receptor_nombre: str | None
    tpo_moneda: str
    dgi_status: str
    tpo_cambio: str | None
    sucursal: int | None


def state(cfe: ReceivedCfe) -> tuple[str, str | None]:
    """The purchase's state in the book, and why it is kept apart (None: it counts)."""
    if cfe.anulado_dgi:
        return "rechazado_dgi", "dgi"
    if cfe.estado != "AE":
        return "rechazado_al_recibir", "empresa"
    if cfe.decision == "rechazado":
        return "rechazado_comercial", "empresa"
    return cfe.decision or "recibido", None


def to_purchase(cfe: ReceivedCfe) -> BookRow:
    """A received CFE as a line of the book, its amounts read from the signed XML."""
    totals = signed_totals(cfe.xml)
    label, apart = state(cfe)
    columns = _Columns(
        id=str(cfe.id),
        fch_emis=cfe.fch_emis,  # type: ignore[arg-type]  # the book reads CFEs with a date
        tipo_cfe=cfe.tipo_cfe,  # type: ignore[arg-type]
        serie=cfe.serie or "",
        nro=cfe.nro or 0,
        receptor_doc=cfe.rut_emisor,
        receptor_nombre=cfe.nombre_emisor,
        tpo_moneda=totals.currency or cfe.moneda or "UYU",
        dgi_status=label,
        tpo_cambio=totals.rate,
        sucursal=None,
    )
    return book_row(columns, totals.texts)._replace(apart=apart)  # type: ignore[arg-type]


def _order(row: BookRow) -> tuple:
    """The book's order (date, supplier, type, serie, number), as the received CFEs are read in."""
    return (row.fecha, row.receptor_doc or "", row.tipo_cfe, row.serie, row.nro)


def purchase_rows(session: Session, company_id: int, desde: date, hasta: date) -> Iterator[BookRow]:
    """The period's received CFEs of the book's types and the e-Boletas de entrada the company issued, in the
    book's order (date, supplier, type, serie, number), read from `session` (its own, closed when the last row
    has been read): the e-Boletas first, whole (a few a month: a purchase from a seller who issues no CFE), then
    the received CFEs in batches, merged as they come."""
    # The e-Boletas keyed in from the paper contingency book (251-253) are purchases as their 15x types are.
    boletas = sorted(book_rows(session, company_id, desde, hasta, types=with_cfc(BOLETA_TYPES)), key=_order)
    yield from heapq.merge(boletas, _received_rows(session, company_id, desde, hasta), key=_order)


def _received_rows(session: Session, company_id: int, desde: date, hasta: date) -> Iterator[BookRow]:
    statement = (
        select(ReceivedCfe)
        .where(
            ReceivedCfe.company_id == company_id,
            ReceivedCfe.fch_emis >= desde,
            ReceivedCfe.fch_emis <= hasta,
            ReceivedCfe.tipo_cfe.in_(sorted(BOOK_TYPES)),
        )
        .order_by(
            ReceivedCfe.fch_emis, ReceivedCfe.rut_emisor, ReceivedCfe.tipo_cfe, ReceivedCfe.serie, ReceivedCfe.nro
        )
        .execution_options(yield_per=_BATCH)
    )
    try:
        for cfe in session.scalars(statement):
            yield to_purchase(cfe)
    finally:
        session.close()
