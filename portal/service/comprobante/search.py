"""The company's receipt list: filters, keyset pagination, totals of the filtered set and the CSV rows.

Order: issue date, then number, then id, newest first. The cursor is the last row's (date, number, id), so a
receipt issued while someone pages can only appear before the page they are on, never shift or repeat the
rest (keyset pagination, stable under concurrent issuing). Only the listed columns are read: never the XML.
Each filter has an index (migration 0008_comprobante_search); prefix filters compare ranges so SQLite uses it.
A receiver text that matches many receipts is the exception: it is tested on the list's own index entries
(migration 0017), see receiver_condition.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy import BigInteger, String, and_, case, cast, func, or_, select, tuple_
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.functions import FunctionElement

from portal.domain.cfe_types import CREDIT_NOTES
from portal.service.comprobante.models import IssuedCfe

# "A-15", "A 0000015", "A15", "a-15", "1A 15" or only the number, "15".
_NUMBER = re.compile(r"^\s*(?:([A-Za-z]{1,2}|[1-9][A-Za-z])\s*[-\s]?\s*)?0*(\d{1,7})\s*$")

CENT = Decimal("0.01")
LISTED = (
    IssuedCfe.id,
    IssuedCfe.tipo_cfe,
    IssuedCfe.serie,
    IssuedCfe.nro,
    IssuedCfe.fch_emis,
    IssuedCfe.tpo_moneda,
    IssuedCfe.mnt_total,
    IssuedCfe.mnt_pagar,
    IssuedCfe.receptor_doc,
    IssuedCfe.receptor_nombre,
    IssuedCfe.dgi_status,
    IssuedCfe.request_id,
    IssuedCfe.created_at,
)
_ORDER = (IssuedCfe.fch_emis.desc(), IssuedCfe.nro.desc(), IssuedCfe.id.desc())


def folded(text: str | None) -> str | None:
    """A name as it is searched: lower case, accents removed, spaces collapsed ("Ñandú  S.A." -> "nandu s.a.")."""
    if not text:
        return None
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())[:150]


def parse_number(text: str) -> tuple[str | None, int]:
    """(serie or None, number) from what a person types; ValueError if it is not a receipt number."""
    match = _NUMBER.match(text)
    if not match or int(match[2]) == 0:
        raise ValueError(text)
    return (match[1].upper() if match[1] else None), int(match[2])


@dataclass(frozen=True)
class Filters:
    desde: date | None = None
    hasta: date | None = None
    tipo_cfe: int | None = None
    numero: str | None = None
    receptor: str | None = None
    monto_desde: Decimal | None = None
    monto_hasta: Decimal | None = None
    moneda: str | None = None
    estado_dgi: str | None = None
    referencia: str | None = None


def _prefix(column, prefix: str):
    """`column` starts with `prefix`, written as a range an index can serve (and LIKE for exactness)."""
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return and_(column >= prefix, column < upper, column.like(escaped + "%", escape="\\"))


# Past this many matches, reading each from the table costs more than walking the whole list's index (on
# 100,000 receipts the walk is about what the unfiltered list costs; each match read is a table lookup).
MANY_RECEIVER_MATCHES = 1000


class InListing(FunctionElement):
    """A column the receipt list tests on the entries of its own index (ix_cfe_emitido_listado) as it walks
    them in list order: SQLite gets `+column`, which keeps it off the column's own index."""

    type = String()
    inherit_cache = True


@compiles(InListing)
def _plain_column(element, compiler, **kw):
    return compiler.process(element.clauses, **kw)


@compiles(InListing, "sqlite")
def _column_off_its_index(element, compiler, **kw):
    return "+" + compiler.process(element.clauses, **kw)


def receiver_options(typed: str, doc=IssuedCfe.receptor_doc, name=IssuedCfe.receptor_busqueda) -> list:
    """What the receiver filter matches, any of: the folded name starts with `typed`, or the document does."""
    typed = typed.strip()
    digits = "".join(ch for ch in typed if ch.isdigit())
    name_prefix = folded(typed)
    assert name_prefix is not None  # the callers' filters take a non-blank text
    options = [_prefix(name, name_prefix)]
    if digits and all(ch.isdigit() or ch in ".- " for ch in typed):
        options.append(_prefix(doc, digits))  # 21-100342-001-7 finds 211003420017
    else:
        options.append(_prefix(doc, typed))  # foreign documents keep their letters
    return options


def receiver_condition(session: Session, company_id: int, typed: str):
    """The receiver filter. SQLite cannot tell how many receipts a prefix matches and answers the OR of the
    two receiver indexes by reading every match from the table, for the page and again for the totals: for
    "21" that is every receipt. So it first counts, from those indexes alone and up to
    MANY_RECEIVER_MATCHES, what each way of matching finds; past that the filter is tested on the list's
    index instead. PostgreSQL weighs both plans from its statistics and gets the plain filter."""
    options = receiver_options(typed)
    if session.get_bind().dialect.name != "sqlite":
        return or_(*options)
    found = sum(
        session.scalar(
            select(func.count()).select_from(
                select(IssuedCfe.company_id)
                .where(IssuedCfe.company_id == company_id, option)
                .limit(MANY_RECEIVER_MATCHES)
                .subquery()
            )
        )
        for option in options
    )
    if found < MANY_RECEIVER_MATCHES:
        return or_(*options)
    listed = {"doc": InListing(IssuedCfe.receptor_doc), "name": InListing(IssuedCfe.receptor_busqueda)}
    return or_(*receiver_options(typed, **listed))


def conditions(session: Session, company_id: int, f: Filters) -> list:
    where = [IssuedCfe.company_id == company_id]
    if f.desde:
        where.append(IssuedCfe.fch_emis >= f.desde)
    if f.hasta:
        where.append(IssuedCfe.fch_emis <= f.hasta)
    if f.tipo_cfe:
        where.append(IssuedCfe.tipo_cfe == f.tipo_cfe)
    if f.numero:
        serie, nro = parse_number(f.numero)
        where.append(IssuedCfe.nro == nro)
        if serie:
            where.append(IssuedCfe.serie == serie)
    if f.receptor:
        where.append(receiver_condition(session, company_id, f.receptor))
    if f.monto_desde is not None:
        where.append(IssuedCfe.mnt_total >= f.monto_desde)
    if f.monto_hasta is not None:
        where.append(IssuedCfe.mnt_total <= f.monto_hasta)
    if f.moneda:
        where.append(IssuedCfe.tpo_moneda == f.moneda)
    if f.estado_dgi:
        where.append(IssuedCfe.dgi_status == f.estado_dgi)
    if f.referencia:
        where.append(or_(IssuedCfe.request_id == f.referencia, IssuedCfe.idempotency_key == f.referencia))
    return where


def encode_cursor(row) -> str:
    raw = f"{row.fch_emis.isoformat()}|{row.nro}|{row.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[date, int, str]:
    """The position a cursor names; ValueError if it was not made by encode_cursor."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        day, nro, cfe_id = raw.split("|")
        return date.fromisoformat(day), int(nro), cfe_id
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(cursor) from exc


def page(session: Session, where: list, cursor: str | None, limit: int) -> tuple[list, str | None]:
    """One page of rows (LISTED columns) and the cursor of the next, or None on the last page."""
    query = select(*LISTED).where(*where)
    if cursor:
        query = query.where(tuple_(IssuedCfe.fch_emis, IssuedCfe.nro, IssuedCfe.id) < decode_cursor(cursor))
    rows = session.execute(query.order_by(*_ORDER).limit(limit + 1)).all()
    if len(rows) <= limit:
        return list(rows), None
    return list(rows[:limit]), encode_cursor(rows[limit - 1])


@dataclass(frozen=True)
class CurrencyTotal:
    moneda: str
    cantidad: int
    mnt_total: Decimal


def totals(session: Session, where: list) -> list[CurrencyTotal]:
    """Count and sum of MntTotal of the filtered set, per currency (adding pesos to dollars means nothing);
    credit notes count negative, so a cancelled sale adds nothing.

    One pass with a conditional sum per currency the company uses, rather than GROUP BY: SQLite would sort
    the whole set for the GROUP BY, or pick an index that sends it back to the table for every row. Summed
    in cents as integers, so the sum is exact on SQLite too (where amounts are stored as REAL)."""
    company = where[0]
    cents_each = func.round(IssuedCfe.mnt_total * 100)
    signed = case((IssuedCfe.tipo_cfe.in_(sorted(CREDIT_NOTES)), -cents_each), else_=cents_each)
    currencies = session.scalars(
        select(IssuedCfe.tpo_moneda).where(company).distinct().order_by(IssuedCfe.tpo_moneda)
    ).all()
    if not currencies:
        return []
    columns = []
    for code in currencies:
        mine = IssuedCfe.tpo_moneda == code
        columns += [func.count(case((mine, 1))), cast(func.sum(case((mine, signed))), BigInteger)]
    sums = session.execute(select(*columns).where(*where)).one()
    found = [
        CurrencyTotal(code, sums[2 * i], (Decimal(int(sums[2 * i + 1] or 0)) / 100).quantize(CENT))
        for i, code in enumerate(currencies)
    ]
    return [total for total in found if total.cantidad]


def every_row(session: Session, where: list, batch: int = 1000) -> Iterator:
    """All rows of the filtered set in list order, fetched in keyset batches (for the CSV export): short
    queries, no server-side cursor left open while the response streams."""
    position = None
    while True:
        query = select(*LISTED).where(*where)
        if position is not None:
            query = query.where(tuple_(IssuedCfe.fch_emis, IssuedCfe.nro, IssuedCfe.id) < position)
        rows = session.execute(query.order_by(*_ORDER).limit(batch)).all()
        yield from rows
        if len(rows) < batch:
            return
        position = (rows[-1].fch_emis, rows[-1].nro, rows[-1].id)


def every_row_closing(session: Session, where: list) -> Iterator:
    """every_row in a session of its own, closed when the export ends, so a long download holds neither the
    request's session nor its context."""
    try:
        yield from every_row(session, where)
    finally:
        session.close()
