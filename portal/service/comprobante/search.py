"""The company's receipt list: filters, keyset pagination, totals of the filtered set and the CSV rows.

Order: issue date, then number, then id, newest first. The cursor is the last row's (date, number, id), so a
receipt issued while someone pages can only appear before the page they are on, never shift or repeat the
rest (keyset pagination, stable under concurrent issuing). Only the listed columns are read: never the XML.
Each filter has an index (migration 0008_comprobante_search); prefix filters compare ranges so SQLite uses it.
A receiver's name matches when every typed word starts a word of it, anywhere in the name ("arapey" finds
"Viajes Arapey S.R.L."): the words of each name are kept in cfe_receptor_palabra (migration 0060), so a typed
word is a range on that table's key, never a `LIKE '%x%'` over the receipts. A receiver text that matches many
receipts is tested on the list's own index entries (migration 0017), see receiver_condition.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    String,
    and_,
    case,
    cast,
    false,
    func,
    intersect,
    or_,
    select,
    tuple_,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.functions import FunctionElement

from portal.domain.cfe_types import CREDIT_NOTES, SALE_TYPES
from portal.domain.receipt_numbers import ReceiptNumber
from portal.service.comprobante.amounts import amount_columns, is_credit_note
from portal.service.comprobante.models import IssuedCfe, NoteReference, ReceiverWord
from portal.service.platform import paging
from portal.service.platform.zipstream import ZipEntry

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
    IssuedCfe.mnt_tot_retenido,  # what an e-Resguardo's row stands for (presenters.listed_amount)
    IssuedCfe.receptor_doc,
    IssuedCfe.receptor_nombre,
    IssuedCfe.dgi_status,
    IssuedCfe.request_id,
    IssuedCfe.created_at,
)


_WORD = re.compile(r"\w[\w.]*")  # letters and digits; dots inside kept, so "s.r.l" starts "s.r.l."


def folded(text: str | None) -> str | None:
    """A name as it is searched: lower case, accents removed, spaces collapsed ("Ñandú  S.A." -> "nandu s.a.")."""
    if not text:
        return None
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())[:150]


def name_words(folded_name: str | None) -> list[str]:
    """The words a folded name is searched by: "viajes arapey s.r.l." -> ["viajes", "arapey", "s.r.l."]."""
    return list(dict.fromkeys(word[:150] for word in _WORD.findall(folded_name or "")))


# One plain statement per issue, sent to the driver as it is: the name is usually kept already, and the
# ORM's or Core's statement building cost several times the INSERT itself (issuing is the hot path).
_KEEP_WORDS = {
    "sqlite": "INSERT OR IGNORE INTO cfe_receptor_palabra (company_id, palabra, nombre) VALUES (?, ?, ?)",
    "postgresql": "INSERT INTO cfe_receptor_palabra (company_id, palabra, nombre) VALUES (%s, %s, %s) "
    "ON CONFLICT DO NOTHING",
}


def remember_receiver(session: Session, company_id: int, folded_name: str | None) -> None:
    """Keep the words of a receiver's folded name (in the issuing transaction); a name already kept costs one
    conflict-ignoring INSERT."""
    rows = [(company_id, word, folded_name) for word in name_words(folded_name)]
    if rows:
        connection = session.connection()
        connection.exec_driver_sql(_KEEP_WORDS[connection.dialect.name], rows)


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


# Past this many names, the names are matched by their subquery rather than listed as values.
MANY_NAMES = 500


@dataclass(frozen=True)
class _Names:
    """The names a typed text's words find: listed as values, or (past MANY_NAMES) one subquery per word."""

    values: tuple[str, ...] = ()
    per_word: tuple = ()


def _names(session: Session, company_id: int, typed: str) -> _Names:
    """The names in which every typed word starts some word (in any order, anywhere in the name), read from the
    word table (a range on its key per word), so the receipts are matched against a short list of values, which
    both databases look up in their (company_id, receptor_busqueda) index."""
    words = name_words(folded(typed))
    if not words:
        return _Names()
    mine = ReceiverWord.company_id == company_id
    each = [select(ReceiverWord.nombre).where(mine, _prefix(ReceiverWord.palabra, w)) for w in words]
    names = session.scalars(intersect(*each) if len(each) > 1 else each[0].limit(MANY_NAMES + 1)).all()
    if len(names) > MANY_NAMES:
        return _Names(per_word=tuple(each))
    return _Names(values=tuple(sorted(set(names))))


def _named(found: _Names, name) -> ColumnElement[bool]:
    if found.per_word:
        return and_(*(name.in_(words_of) for words_of in found.per_word))
    return name.in_(found.values) if found.values else false()


def receiver_options(
    session: Session,
    company_id: int,
    typed: str,
    doc=IssuedCfe.receptor_doc,
    name=IssuedCfe.receptor_busqueda,
    names: _Names | None = None,
) -> list:
    """What the receiver filter matches, any of: every typed word starts a word of the folded name, or the
    document starts with what was typed. `names`: the typed words' names, when already read."""
    typed = typed.strip()
    digits = "".join(ch for ch in typed if ch.isdigit())
    options = [_named(names if names is not None else _names(session, company_id, typed), name)]
    if digits and all(ch.isdigit() or ch in ".- " for ch in typed):
        options.append(_prefix(doc, digits))  # 21-100342-001-7 finds 211003420017
    else:
        options.append(_prefix(doc, typed))  # foreign documents keep their letters
    return options


def receiver_conditions(session: Session, company_id: int, typed: str) -> tuple[ColumnElement, ColumnElement]:
    """The receiver filter, for the page and for the totals. SQLite cannot tell how many receipts a prefix
    matches and answers the OR of the two receiver indexes by reading every match from the table, for the page
    and again for the totals: for "21" that is every receipt. So it first counts, from those indexes alone and
    up to MANY_RECEIVER_MATCHES, what each way of matching finds; past that the page tests the filter on the
    list's index entries in list order (it stops after its rows). The totals add up every match: when only
    names match (a common word, "pocitos"), they read the matches alone from the receiver name index, which
    holds what they add up (migration 0170), rather than every receipt of the company along the list index.
    PostgreSQL weighs the plans from its statistics and gets the plain filter for both."""
    names = _names(session, company_id, typed)
    options = receiver_options(session, company_id, typed, names=names)
    if session.get_bind().dialect.name != "sqlite":
        return or_(*options), or_(*options)
    found = [
        session.scalar(
            select(func.count()).select_from(
                select(IssuedCfe.company_id)
                .where(IssuedCfe.company_id == company_id, option)
                .limit(MANY_RECEIVER_MATCHES)
                .subquery()
            )
        )
        or 0
        for option in options
    ]
    if sum(found) < MANY_RECEIVER_MATCHES:
        return or_(*options), or_(*options)
    listed = {"doc": InListing(IssuedCfe.receptor_doc), "name": InListing(IssuedCfe.receptor_busqueda)}
    along_the_list = or_(*receiver_options(session, company_id, typed, **listed, names=names))
    by_name, by_document = found
    return along_the_list, (options[0] if by_name and not by_document else along_the_list)


def receiver_condition(session: Session, company_id: int, typed: str) -> ColumnElement:
    """The receiver filter of the page (receiver_conditions)."""
    return receiver_conditions(session, company_id, typed)[0]


def conditions(session: Session, company_id: int, f: Filters) -> list:
    """The page's conditions for the filters (`conditions_and_totals` gives the totals' too)."""
    return conditions_and_totals(session, company_id, f)[0]


def conditions_and_totals(session: Session, company_id: int, f: Filters) -> tuple[list, list]:
    """The conditions of the page and of its totals: the same set, each written for the index that serves it
    (they differ only for a receiver text that matches many receipts, receiver_conditions)."""
    where = [IssuedCfe.company_id == company_id]
    totals_receiver = None
    if f.desde:
        where.append(IssuedCfe.fch_emis >= f.desde)
    if f.hasta:
        where.append(IssuedCfe.fch_emis <= f.hasta)
    if f.tipo_cfe:
        where.append(IssuedCfe.tipo_cfe == f.tipo_cfe)
    if f.numero:
        typed = ReceiptNumber.parse(f.numero)
        where.append(IssuedCfe.nro == typed.number)
        if typed.serie:
            where.append(IssuedCfe.serie == typed.serie)
    if f.receptor:
        page_receiver, totals_receiver = receiver_conditions(session, company_id, f.receptor)
        where.append(page_receiver)
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
    if totals_receiver is None:
        return where, where
    return where, [totals_receiver if condition is page_receiver else condition for condition in where]


ORDER = (IssuedCfe.fch_emis, IssuedCfe.nro, IssuedCfe.id)


def page(session: Session, where: list, cursor: str | None, limit: int) -> tuple[list, str | None]:
    """One page of rows (LISTED columns) and the cursor of the next, or None on the last page."""
    return paging.keyset(
        session, select(*LISTED).where(*where), ORDER, cursor, limit, lambda row: (row.fch_emis, row.nro, row.id)
    )


@dataclass(frozen=True)
class CurrencyTotal:
    moneda: str
    cantidad: int
    mnt_total: Decimal


# The list's totals add up at most this many receipts: a filter that matches more says "more than" this many
# and gives no sums (adding up 600,000 receipts on every keystroke costs seconds at a million). The service
# passes its setting CFE_LIST_TOTALS_LIMIT (config.py), whose default this is.
TOTALS_LIMIT = 10_000


@dataclass(frozen=True)
class Totals:
    """The filtered set's count and net sales per currency, or, when `bounded`, only that more than `count` match
    (and `currencies` empty): the sums of a part of the set would mean nothing."""

    count: int
    bounded: bool
    currencies: list[CurrencyTotal]


def totals(session: Session, where: list, limit: int = TOTALS_LIMIT) -> Totals:
    """Count of the filtered set, and its net sales per currency (adding pesos to dollars means nothing): the sales
    book's types (SALE_TYPES), credit notes negative, so a cancelled sale adds nothing. What is no sale adds nothing
    either (an e-Remito's goods, an e-Resguardo, an e-Boleta de entrada: a purchase), and a currency with no sale
    has no sum. At most `limit` + 1 matching rows are read (no order, from whichever index the filters use): more
    than `limit` gives a bounded answer.

    Summed in cents as integers, so the sum is exact on SQLite too (where amounts are stored as REAL); grouped
    per currency over the bounded rows only, so the GROUP BY never sorts more than `limit` + 1 rows."""
    cents_each = func.round(IssuedCfe.mnt_total * 100)
    sale = IssuedCfe.tipo_cfe.in_(sorted(SALE_TYPES))
    signed = case((~sale, 0), (IssuedCfe.tipo_cfe.in_(sorted(CREDIT_NOTES)), -cents_each), else_=cents_each)
    matching = (
        select(IssuedCfe.tpo_moneda, signed.label("cents"), case((sale, 1), else_=0).label("sale"))
        .where(*where)
        .limit(limit + 1)
        .subquery()
    )
    sums = session.execute(
        select(
            matching.c.tpo_moneda,
            func.count(),
            cast(func.sum(matching.c.sale), BigInteger),
            cast(func.sum(matching.c.cents), BigInteger),
        )
        .group_by(matching.c.tpo_moneda)
        .order_by(matching.c.tpo_moneda)
    ).all()
    count = sum(found for _code, found, _sales, _cents in sums)
    if count > limit:
        return Totals(limit, True, [])
    currencies = [
        CurrencyTotal(code, int(sales), (Decimal(int(cents or 0)) / 100).quantize(CENT))
        for code, _found, sales, cents in sums
        if sales
    ]
    return Totals(count, False, currencies)


@dataclass(frozen=True)
class CancellingNote:
    """The credit note that completed the cancellation of a receipt (its notes credit all of its total)."""

    id: str
    tipo_cfe: int
    serie: str
    nro: int


def cancellations(session: Session, company_id: int, rows) -> dict[str, CancellingNote]:
    """Of `rows` (the list's columns), the receipts fully credited by their credit notes (cfe_nota_referencia:
    the part of each note set against the receipt), each with the latest of those notes. Two queries per page,
    on the reference table's original_id index."""
    totals = {row.id: Decimal(str(row.mnt_total)) for row in rows if not is_credit_note(row.tipo_cfe)}
    if not totals:
        return {}
    mine = (NoteReference.company_id == company_id, NoteReference.is_credit.is_(True))
    credited = session.execute(
        select(NoteReference.original_id, func.sum(NoteReference.amount))
        .where(*mine, NoteReference.original_id.in_(sorted(totals)))
        .group_by(NoteReference.original_id)
    ).all()
    cancelled = [
        original for original, amount in credited if totals[original] and Decimal(str(amount)) >= totals[original]
    ]
    if not cancelled:
        return {}
    notes = session.execute(
        select(NoteReference.original_id, IssuedCfe.id, IssuedCfe.tipo_cfe, IssuedCfe.serie, IssuedCfe.nro)
        .join(IssuedCfe, IssuedCfe.id == NoteReference.note_id)
        .where(*mine, NoteReference.original_id.in_(cancelled))
        .order_by(IssuedCfe.created_at, IssuedCfe.id)
    ).all()
    return {original: CancellingNote(note_id, tipo, serie, nro) for original, note_id, tipo, serie, nro in notes}


# The export's columns: the list's, and the sales book's amount columns (net and IVA per rate) of each receipt.
EXPORTED = (*LISTED, *amount_columns())


def every_row(session: Session, where: list, batch: int = 1000, columns: tuple = LISTED) -> Iterator[Sequence]:
    """All rows of the filtered set in list order, in keyset batches (for the CSV export): short queries, no
    server-side cursor left open while the response streams."""
    position = None
    while True:
        query = select(*columns).where(*where)
        if position is not None:
            query = query.where(tuple_(*ORDER) < position)
        rows = session.execute(query.order_by(*(column.desc() for column in ORDER)).limit(batch)).all()
        yield rows
        if len(rows) < batch:
            return
        position = (rows[-1].fch_emis, rows[-1].nro, rows[-1].id)


def export_rows_closing(session: Session, company_id: int, where: list) -> Iterator[tuple]:
    """Each receipt of the filtered set (EXPORTED columns) with the note that cancelled it (or None), in a session
    of its own, closed when the export ends, so a long download holds neither the request's session nor its
    context."""
    try:
        for rows in every_row(session, where, columns=EXPORTED):
            cancelled = cancellations(session, company_id, rows)
            for row in rows:
                yield row, cancelled.get(row.id)
    finally:
        session.close()


# What a receipt's file in the ZIP of signed XMLs is named and dated by, with the XML itself.
_SIGNED = (IssuedCfe.id, IssuedCfe.tipo_cfe, IssuedCfe.serie, IssuedCfe.nro, IssuedCfe.fch_emis, IssuedCfe.xml)


def signed_xml_entries(session: Session, where: list) -> Iterator[ZipEntry]:
    """Each receipt of the filtered set as it was signed, in list order, named by type and number
    ("111_A-0000012.xml") and dated by its date of issue, in batches of 200 (a signed XML is some KB) read in a
    session of its own, closed when the last one has been read."""
    try:
        for rows in every_row(session, where, batch=200, columns=_SIGNED):
            for row in rows:
                moment = datetime.combine(row.fch_emis, time(12))  # its day: a receipt is dated, not timed
                yield ZipEntry(f"{row.tipo_cfe}_{row.serie}-{row.nro:07d}.xml", row.xml, moment)
    finally:
        session.close()
