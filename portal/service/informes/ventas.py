"""The IVA sales book (libro de ventas): one row per receipt of a period, with net and IVA per rate as the
signed CFE carries them (Zona A, "Totales encabezado"), credit notes negative, in the receipt's currency and in
pesos; receipts DGI rejected are left out of the totals and listed apart.

What every IVA book shares (its rows, totals, summary and `BookKind`, what tells one book from the other in
files and JSON) lives here too; the purchases book (compras.py) only reads its rows from the received CFEs.

Rows are read in batches straight from the receipts' columns, the amounts among them (stored at signing from
the same `Totals` the XML is written from), so a month of 100,000 receipts streams in flat memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, NamedTuple, Protocol, TypeVar

from sqlalchemy import Select, String, case, func, null, select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import SALE_TYPES
from portal.service.comprobante.amounts import (
    AMOUNT_NAMES,
    ZERO,
    amount_columns,
    in_pesos,
    signed_amounts,
    stored_decimal,
)
from portal.service.comprobante.models import IssuedCfe

# DGI's state for a receipt it refused: it never counted, and its number was voided by the rejection.
REJECTED = "rechazado"
# The sales book's types (the export invoices' amounts are the return's exports: MntExpoyAsim, CFE-URUGUAY.md
# section 14), a paper contingency receipt keyed in among them.
BOOK_TYPES = SALE_TYPES
_BATCH = 1000
_Key = TypeVar("_Key", int, str)


class BookRow(NamedTuple):
    """A line of a book. A named tuple, not a frozen dataclass: as immutable, and made eight times faster (a
    frozen dataclass sets each of its fields through object.__setattr__), which a book of 100,000 lines feels."""

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
    # The amounts that are not zero (a missing name is zero: most receipts use two or three of the twelve), in the
    # receipt's currency, signed (credit notes negative), and the same in pesos, each rounded half-up to the cent.
    amounts: dict[str, Decimal]
    amounts_uyu: dict[str, Decimal]
    # Out of the book and its totals, and why: "dgi" (DGI rejected it), "empresa" (a purchase we rejected).
    apart: str | None = None

    @property
    def rejected(self) -> bool:
        return self.apart is not None


def two_decimals(value: Decimal) -> str:
    """f"{value:.2f}" at a quarter of its cost for the usual amount, which has two decimals already (every
    amount in pesos is quantized to the cent; the CFE's own are written so)."""
    text = str(value)
    return text if text[-3:-2] == "." else f"{value:.2f}"


def _zeros() -> dict[str, Decimal]:
    return dict.fromkeys(AMOUNT_NAMES, ZERO)


@dataclass
class Totals:
    """How many receipts, and the sums of the book's amount columns in pesos (and in their own currency)."""

    count: int = 0
    amounts: dict[str, Decimal] = field(default_factory=_zeros)  # in pesos
    own: dict[str, Decimal] = field(default_factory=_zeros)  # in the currency (meaningful within one currency)

    def add(self, row: BookRow) -> None:
        self.count += 1
        for name, value in row.amounts_uyu.items():
            self.amounts[name] += value
        for name, value in row.amounts.items():
            self.own[name] += value

    def merge(self, other: Totals) -> None:
        self.count += other.count
        for name in AMOUNT_NAMES:
            self.amounts[name] += other.amounts[name]
            self.own[name] += other.own[name]


@dataclass
class BookSummary:
    """What the book adds up as its rows go by, kept per (type, currency) and combined on demand: totals in
    pesos overall, per type and per currency (the latter in the currency's own amounts too), and the rejected
    receipts apart."""

    groups: dict[tuple[int, str], Totals] = field(default_factory=dict)
    apart: dict[str, list[BookRow]] = field(default_factory=dict)  # BookRow.apart -> its rows, in order
    kind: BookKind | None = None  # the sales book when None

    @property
    def rejected(self) -> list[BookRow]:
        """The receipts DGI rejected."""
        return self.apart.get("dgi", [])

    def add(self, row: BookRow) -> None:
        if row.apart is not None:
            self.apart.setdefault(row.apart, []).append(row)
            return
        group = self.groups.get((row.tipo_cfe, row.moneda))
        if group is None:
            group = self.groups[(row.tipo_cfe, row.moneda)] = Totals()
        group.add(row)

    def _combined(self, part: Callable[[tuple[int, str]], _Key]) -> dict[_Key, Totals]:
        combined: dict[_Key, Totals] = {}
        for group_key, totals in self.groups.items():
            combined.setdefault(part(group_key), Totals()).merge(totals)
        return combined

    @property
    def total(self) -> Totals:
        every = Totals()
        for totals in self.groups.values():
            every.merge(totals)
        return every

    @property
    def by_type(self) -> dict[int, Totals]:
        return self._combined(lambda key: key[0])

    @property
    def by_currency(self) -> dict[str, Totals]:
        return self._combined(lambda key: key[1])

    @property
    def declaration(self) -> dict[str, Decimal]:
        """The book's figures of the period's IVA return, in pesos: sales (purchases) at each rate with their
        IVA, exempt and non-taxed ones, exports, and the IVA withheld or perceived."""
        a = self.total.amounts
        kind = self.kind or SALES
        figures = {
            "TasaBasica": a["netoTasaBasica"],
            "ivaTasaBasica": a["ivaTasaBasica"],
            "TasaMinima": a["netoTasaMinima"],
            "ivaTasaMinima": a["ivaTasaMinima"],
            "OtraTasa": a["netoOtraTasa"],
            "ivaOtraTasa": a["ivaOtraTasa"],
            "ExentasONoGravadas": a["noGravado"],
            "exportaciones": a["exportacion"],
            "ivaEnSuspenso": a["ivaSuspenso"],
            kind.iva_total: a["ivaTasaBasica"] + a["ivaTasaMinima"] + a["ivaOtraTasa"],
            "percepciones": a["percepciones"],
            "retenciones": a["retenciones"],
        }
        return {(kind.name + key if key[0].isupper() else key): value for key, value in figures.items()}


@dataclass(frozen=True)
class BookKind:
    """What tells one IVA book from the other in its files and JSON: its name (`ventas`, `compras`, also the
    prefix of its return's figures), title, the other party's labels and keys, what its rows' state is, the
    sections of rows kept apart (BookRow.apart, with their headings) and the return's IVA total."""

    name: str
    title: str
    party_label: str  # the column of the other party's name ("Receptor", "Proveedor")
    party_keys: tuple[str, str]  # the JSON keys of its document and name
    state_label: str
    state_key: str
    apart: tuple[tuple[str, str, str], ...]  # (BookRow.apart, JSON key, heading)
    iva_total: str
    # The types of the company's own documents in a book of other parties' (the purchases book's e-Boletas de
    # entrada): a row's JSON says which record its id names ("origen": "emitido" or "recibido"); None: no "origen".
    own_types: frozenset[int] | None = None

    def origin(self, tipo_cfe: int) -> str | None:
        """Which record a row's id names: "emitido" (comprobante/getByIdCfeEmitido) or "recibido"
        (/api/v1/recibidos/{id}); None in a book whose rows are all of one kind."""
        if self.own_types is None:
            return None
        return "emitido" if tipo_cfe in self.own_types else "recibido"


SALES = BookKind(
    name="ventas",
    title="Libro de ventas",
    party_label="Receptor",
    party_keys=("docReceptor", "nombreReceptor"),
    state_label="Estado DGI",
    state_key="estadoDgi",
    apart=(("dgi", "rechazados", "Rechazados por DGI"),),
    iva_total="ivaDebitoFiscal",
)


class ReceiptColumns(Protocol):
    """What the book reads of a receipt: IssuedCfe's columns, the rate it was signed with (TpoCambio of its
    Zona A; absent in pesos) and its branch."""

    id: str
    fch_emis: date
    tipo_cfe: int
    serie: str
    nro: int
    receptor_doc: str | None
    receptor_nombre: str | None
    tpo_moneda: str
    dgi_status: str
    tpo_cambio: str | None
    sucursal: int | None


def book_row(record: ReceiptColumns, texts: Iterable[str | None]) -> BookRow:
    """A line of a book: `record`'s columns and its amount columns as the CFE writes them (AMOUNT_COLUMNS'
    order), credit notes made negative and each amount in pesos by the CFE's rate."""
    return _row(
        (
            record.id,
            record.fch_emis,
            record.tipo_cfe,
            record.serie,
            record.nro,
            record.receptor_doc,
            record.receptor_nombre,
            record.tpo_moneda,
            record.dgi_status,
            record.tpo_cambio,
            record.sucursal,
        ),
        texts,
    )


_ONE = Decimal(1)


def _row(values: Sequence[Any], texts: Iterable[Any]) -> BookRow:
    """`book_row` on the columns in _HEAD's order: the per-row work of a book of 100,000 receipts, kept to
    parsing the amounts that are not zero and converting them to pesos when the CFE is in another currency."""
    amounts = signed_amounts(values[2], texts)
    rate = None if values[7] == "UYU" else stored_decimal(values[9])
    if rate is None:
        rate, pesos = _ONE, amounts
    else:
        pesos = {name: in_pesos(value, rate) for name, value in amounts.items()}
    return BookRow(
        values[0],
        values[1],
        values[2],
        values[3],
        values[4],
        values[5],
        values[6],
        values[7],
        rate,
        values[8],
        values[10],
        amounts,
        pesos,
        "dgi" if values[8] == REJECTED else None,
    )


# The receipt's own columns the book reads, in the order `_row` takes them (the rate, read only for receipts in
# another currency: the input's JSON is the largest of a receipt's and parsing it for every peso receipt cost
# more than all the rest; the branch, only for the period view).
_HEAD: tuple[Any, ...] = (
    IssuedCfe.id,
    IssuedCfe.fch_emis,
    IssuedCfe.tipo_cfe,
    IssuedCfe.serie,
    IssuedCfe.nro,
    IssuedCfe.receptor_doc,
    IssuedCfe.receptor_nombre,
    IssuedCfe.tpo_moneda,
    IssuedCfe.dgi_status,
    case((IssuedCfe.tpo_moneda != "UYU", IssuedCfe.input_json["tpoCambio"].as_string())),
)
_BRANCH = IssuedCfe.issuer_json["cdg_dgi_sucursal"].as_integer()


# SQLite's text of the twelve amounts, each with two decimals, separated by commas.
_SQLITE_AMOUNTS = ",".join(["%.2f"] * len(AMOUNT_NAMES))


def _amount_source(dialect: str, first: int) -> tuple[list[Any], Callable[[Sequence[Any]], Iterable[Any]]]:
    """The receipt's amount columns (AMOUNT_COLUMNS' order), stored as numbers at issue time (migration 0240), no
    JSON read per row: what to select after the row's first `first` values, and how to read the amounts back.
    The database writes the twelve into one text, split here (SQLite's printf; PostgreSQL's numeric(17, 2) has two
    decimals already): twelve columns each made a Python number (PostgreSQL's driver a Decimal, SQLite a float
    then a Decimal), most of them zero, cost a quarter more of the book's time than one text whose zeros are
    never parsed (`signed_amounts`)."""
    columns = [column.element for column in amount_columns()]
    if dialect == "sqlite":
        text = func.printf(_SQLITE_AMOUNTS, *columns, type_=String)
    elif dialect == "postgresql":
        text = func.concat_ws(",", *columns, type_=String)
    else:
        return columns, lambda values: values[first:]
    return [text], lambda values: values[first].split(",")


def book_statement(
    dialect: str,
    company_id: int,
    desde: date,
    hasta: date,
    *,
    branches: bool = False,
    types: frozenset[int] = BOOK_TYPES,
) -> tuple[Select[Any], Callable[[Sequence[Any]], Iterable[Any]]]:
    """The SELECT of a period's book on `dialect` (the rows `_row` takes, the branch or a null, then the
    amounts) of the receipts of `types` (the sales; the purchases book reads the e-Boletas de entrada), and how
    to read each row's amounts back."""
    amounts, texts = _amount_source(dialect, len(_HEAD) + 1)
    statement = select(*_HEAD, _BRANCH if branches else null(), *amounts)
    statement = statement.where(
        IssuedCfe.company_id == company_id,
        IssuedCfe.fch_emis >= desde,
        IssuedCfe.fch_emis <= hasta,
        IssuedCfe.tipo_cfe.in_(sorted(types)),
    ).order_by(IssuedCfe.fch_emis, IssuedCfe.tipo_cfe, IssuedCfe.serie, IssuedCfe.nro)
    return statement.execution_options(yield_per=_BATCH), texts


def book_rows(
    session: Session,
    company_id: int,
    desde: date,
    hasta: date,
    *,
    branches: bool = False,
    types: frozenset[int] = BOOK_TYPES,
) -> Iterator[BookRow]:
    """The period's receipts in the book's order (date, type, serie, number), read in batches from `session`
    (one of its own: a long download holds neither the request's session nor its context), which is closed when
    the last row has been read; with `branches`, each row's branch too (BookRow.sucursal, None otherwise).

    Plain rows of Core, not the ORM's entities, each turned into a BookRow by `_row` (docs/PERFORMANCE.md, "The
    IVA books"); the amounts are the receipt's numeric columns, set at issue time (no JSON read per row), and
    PostgreSQL reads the month in date order along the list's index, sorting each day as it comes."""
    connection = session.connection()
    statement, texts = book_statement(connection.dialect.name, company_id, desde, hasta, branches=branches, types=types)
    if connection.dialect.name == "postgresql":
        # A month's rows sorted in memory: with the default 4 MB the sort of 100,000 of them went to disk.
        connection.exec_driver_sql("SET LOCAL work_mem = '64MB'")
    try:
        for values in connection.execute(statement):
            yield _row(values, texts(values))
    finally:
        session.close()
