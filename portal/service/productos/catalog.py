"""The products of a company: found by the start of a word of their name or of their code, and a price list
imported from CSV, whole or not at all, with what is wrong in each refused row."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from pydantic_core import PydanticCustomError
from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from portal.domain.digits import ascii_number
from portal.domain.prices import MAX_PRICE
from portal.service.cfe.xmlchars import xml_one_line
from portal.service.comprobante.search import folded
from portal.service.platform import paging
from portal.service.platform.i18n import Text, _
from portal.service.productos.models import Product

# The IVA indicators (B-C4) a product of the catalogue may carry: exempt, minimum, basic and other rate, free
# delivery, not billable (and its negative), export and assimilated, and a small taxpayer's sale. The receipt's
# own rules still decide which the receipt's type and the company's regime allow.
IND_FACTS = (1, 2, 3, 4, 5, 6, 7, 10, 16)
CURRENCIES = ("UYU", "USD", "EUR", "ARS", "BRL")
MAX_IMPORT_BYTES = 1_000_000
MAX_IMPORT_ROWS = 5_000
COLUMNS = ("codigo", "nombre", "unidad", "precio", "iva_incluido", "indicador_iva", "moneda")
SEARCH_NAME_LENGTH = 80  # Product.search_name's column
_TRUE, _FALSE = {"si", "sí", "s", "true", "1", "yes", "y"}, {"no", "n", "false", "0", ""}


def search_name(name: str) -> str:
    """The name as it is searched, cut to its column: folding can lengthen a name ("ß" becomes "ss", "ﬁ" "fi"),
    and an 80-character name's longer form overflowed PostgreSQL's column."""
    return (folded(name) or "")[:SEARCH_NAME_LENGTH]


def search(
    session: Session, company_id: int, typed: str | None, cursor: str | None, limit: int
) -> tuple[Sequence[Product], str | None]:
    """A page of the company's products in the order of their names; with `typed`, those with a word of the
    name or the code that starts so (without case or accents: "cafe" finds "Té y café")."""
    query = select(Product).where(Product.company_id == company_id)
    if typed:
        words = (folded(typed) or "").split()
        for word in words:
            query = query.where(
                Product.search_name.startswith(word, autoescape=True)
                | Product.search_name.contains(" " + word, autoescape=True)
                | Product.code.startswith(typed.strip(), autoescape=True)
            )
    if cursor:
        query = query.where(tuple_(Product.search_name, Product.id) > paging.decode_cursor(cursor, 2))
    found = session.scalars(query.order_by(Product.search_name, Product.id).limit(limit + 1)).all()
    last = found[limit - 1] if len(found) > limit else None
    following = paging.encode_cursor((last.search_name, last.id)) if last is not None else None
    return found[:limit], following


@dataclass(frozen=True)
class RowProblem:
    row: int  # the file's line number, the header being line 1
    column: str
    code: str
    message: str  # a catalogue Text: said in the client's language


@dataclass
class ParsedList:
    products: list[dict[str, object]] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


# "1.500" is fifteen hundred to a Uruguayan spreadsheet (a thousands dot) and one and a half to a program (a
# decimal point): read the wrong way a price is a thousand times off, so such a list is refused until it says which.
_THOUSANDS_OR_DECIMALS = re.compile(r"[1-9]\d{0,2}\.\d{3}")


def _amount(text: str) -> Decimal:
    """A price as a Uruguayan spreadsheet writes it ("1.500,50", "1500,50") or as a program does ("1500.50")."""
    cleaned = text.strip().replace(" ", "")
    if "," in cleaned:
        cleaned = cleaned.replace(".", "").replace(",", ".")
    if not re.fullmatch(r"\d+(\.\d{1,6})?", cleaned):
        raise InvalidOperation(text)
    return Decimal(cleaned)


def _row(number: int, values: dict[str, str], parsed: ParsedList) -> None:
    def refuse(column: str, code: str, message: str) -> None:
        parsed.problems.append(RowProblem(number, column, code, message))

    texts: dict[str, str] = {}
    for column, value in values.items():
        try:
            texts[column] = str(xml_one_line(value or "")).strip()
        except PydanticCustomError as exc:
            said = (exc.context or {}).get("message")  # the catalogue's Text (pydantic_errors.refuse)
            refuse(column, exc.type, said if isinstance(said, Text) else exc.message())
            texts[column] = ""
    code, name, unit = texts["codigo"], texts["nombre"], texts["unidad"]
    if not code or len(code) > 35:
        refuse("codigo", "codigo_invalido", _("El código es obligatorio y tiene a lo sumo 35 caracteres."))
    if not name or len(name) > 80:
        refuse("nombre", "nombre_invalido", _("El nombre es obligatorio y tiene a lo sumo 80 caracteres."))
    if len(unit) > 4:
        refuse("unidad", "unidad_invalida", _("La unidad tiene a lo sumo 4 caracteres (kg, h, un)."))
    if _THOUSANDS_OR_DECIMALS.fullmatch(texts["precio"].replace(" ", "")):
        refuse(
            "precio",
            "precio_ambiguo",
            _(
                "«{texto}» puede ser {miles} o {decimales}: escribilo sin punto de miles ({miles}) o con coma"
                " decimal ({decimales}).",
                texto=texts["precio"],
                miles=texts["precio"].replace(".", "").replace(" ", ""),
                decimales=texts["precio"].replace(".", ",").replace(" ", ""),
            ),
        )
        texts["precio"] = "0"
    try:
        price = _amount(texts["precio"])
        if price > MAX_PRICE:
            raise InvalidOperation
    except InvalidOperation:
        price = Decimal(0)
        refuse(
            "precio", "precio_invalido", _("«{texto}» no es un precio (por ejemplo 1500,50).", texto=texts["precio"])
        )
    included = texts["iva_incluido"].casefold()
    if included not in _TRUE | _FALSE:
        refuse("iva_incluido", "iva_incluido_invalido", _("Escribí «sí» si el precio incluye IVA, «no» si no."))
    indicator = texts["indicador_iva"] or "3"
    if ascii_number(indicator) not in IND_FACTS:
        refuse(
            "indicador_iva",
            "indicador_invalido",
            _("El indicador de IVA es uno de {indicadores}.", indicadores=", ".join(map(str, IND_FACTS))),
        )
    currency = (texts["moneda"] or "UYU").upper()
    if currency not in CURRENCIES:
        refuse("moneda", "moneda_invalida", _("La moneda es una de {monedas}.", monedas=", ".join(CURRENCIES)))
    parsed.products.append(
        {
            "code": code,
            "name": name,
            "unit": unit or None,
            "price": price,
            "price_includes_iva": included in _TRUE and included != "",
            "ind_fact": ascii_number(indicator) or 3,
            "currency": currency,
        }
    )


def parse_price_list(data: bytes) -> ParsedList:
    """Reads a price list: UTF-8 (with or without a byte-order mark), `;` or `,` between fields, a header with
    the COLUMNS (in any order; unidad, iva_incluido, indicador_iva and moneda may be left out). Every problem is
    collected; the caller applies nothing when there is one."""
    parsed = ParsedList()
    if len(data) > MAX_IMPORT_BYTES:
        parsed.problems.append(RowProblem(0, "*", "archivo_grande", _("El archivo supera 1 MB.")))
        return parsed
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        parsed.problems.append(
            RowProblem(0, "*", "codificacion", _("El archivo no está en UTF-8 (guardalo como CSV UTF-8)."))
        )
        return parsed
    first_line = re.split(r"[\r\n]", text, maxsplit=1)[0]
    delimiter = ";" if first_line.count(";") >= first_line.count(",") else ","
    # newline="": the csv module reads the line ends itself, a lone CR too (Excel for Mac's "CSV (Macintosh)").
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = [(h or "").strip().casefold() for h in (reader.fieldnames or [])]
    missing = [c for c in ("codigo", "nombre", "precio") if c not in header]
    if missing:
        faltan, columnas = ", ".join(missing), ";".join(COLUMNS)
        message = (
            _("Falta la columna {faltan} (columnas: {columnas}).", faltan=faltan, columnas=columnas)
            if len(missing) == 1
            else _("Faltan las columnas {faltan} (columnas: {columnas}).", faltan=faltan, columnas=columnas)
        )
        parsed.problems.append(RowProblem(1, "*", "encabezado", message))
        return parsed
    # A column named twice leaves it unsaid which one holds the product's (DictReader would keep the last).
    twice = sorted({c for c in header if c in COLUMNS and header.count(c) > 1})
    if twice:
        parsed.problems.append(
            RowProblem(1, "*", "encabezado", _("La columna {columnas} está más de una vez.", columnas=", ".join(twice)))
        )
        return parsed
    reader.fieldnames = header
    seen: dict[str, int] = {}
    for number, values in enumerate(_records(reader, parsed), start=2):
        if number - 1 > MAX_IMPORT_ROWS:
            parsed.problems.append(
                RowProblem(
                    number,
                    "*",
                    "demasiadas_filas",
                    _("A lo sumo {filas} productos por archivo.", filas=MAX_IMPORT_ROWS),
                )
            )
            break
        if None in values:
            parsed.problems.append(
                RowProblem(number, "*", "columnas_de_mas", _("La fila tiene más columnas que el encabezado."))
            )
            continue
        _row(number, {c: values.get(c) or "" for c in COLUMNS}, parsed)
        code = str(parsed.products[-1]["code"])
        if code in seen:
            parsed.problems.append(
                RowProblem(
                    number,
                    "codigo",
                    "codigo_repetido",
                    _("El código {codigo} ya está en la fila {fila}.", codigo=code, fila=seen[code]),
                )
            )
        seen.setdefault(code, number)
    if not parsed.products and not parsed.problems:
        parsed.problems.append(RowProblem(1, "*", "vacio", _("El archivo no tiene productos.")))
    return parsed


def _records(reader: csv.DictReader, parsed: ParsedList) -> Iterator[dict[str, str]]:
    """The reader's rows; a row the csv module cannot read (a field past its 128 KB limit, which is also what an
    unclosed quote makes of the rest of the file) is a problem of its own, and nothing after it is read."""
    number = 1
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error:
            parsed.problems.append(
                RowProblem(
                    number + 1,
                    "*",
                    "fila_ilegible",
                    _("La fila no se puede leer: tiene un campo demasiado largo (¿una comilla sin cerrar?)."),
                )
            )
            return
        number += 1
        yield values


def apply_price_list(session: Session, company_id: int, products: list[dict[str, object]]) -> tuple[int, int]:
    """Adds the products whose code is new and updates the others; the caller's transaction commits them all.
    Returns (added, updated)."""
    existing = {
        p.code: p
        for p in session.scalars(
            select(Product).where(
                Product.company_id == company_id, Product.code.in_([str(p["code"]) for p in products])
            )
        )
    }
    added = updated = 0
    for values in products:
        product = existing.get(str(values["code"]))
        if product is None:
            product = Product(company_id=company_id)
            session.add(product)
            added += 1
        else:
            updated += 1
        for name, value in values.items():
            setattr(product, name, value)
        product.search_name = search_name(product.name)
    return added, updated
