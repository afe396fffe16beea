"""HTTP endpoints of the informes group: the IVA sales and purchases books of a period as JSON, CSV or XLSX."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from decimal import Decimal

from flask import Blueprint, Response, send_file

from portal.domain.roles import ALL
from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.informes import files
from portal.service.informes.compras import PURCHASES, purchase_rows
from portal.service.informes.compras_periodo import purchases_report, summary_json
from portal.service.informes.pdf import summary_pdf
from portal.service.informes.periodo import period_report
from portal.service.informes.schemas import (
    LibroCompras,
    LibroVentas,
    Periodo,
    PeriodoCompras,
    PeriodoQuery,
    VentasQuery,
)
from portal.service.informes.ventas import (
    AMOUNT_NAMES,
    SALES,
    BookKind,
    BookRow,
    BookSummary,
    book_rows,
    two_decimals,
)
from portal.service.platform import db, downloads
from portal.service.platform.api import negotiate, operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.files import file_response
from portal.service.platform.models import Company

bp = Blueprint("informes", __name__, url_prefix="/api/v1/informes")
TAG = "Informes"
_MEDIA = {"json": "application/json", "csv": "text/csv", "xlsx": files.XLSX}
_CHUNK = 500  # rows per piece of a streamed JSON book


def _importes(amounts: dict[str, Decimal]) -> dict[str, str]:
    """Every amount column, zeros included (a row's `amounts` leave them out)."""
    return {name: two_decimals(amounts[name]) if name in amounts else "0.00" for name in AMOUNT_NAMES}


def _fila(row: BookRow, kind: BookKind = SALES) -> dict[str, object]:
    doc, name = kind.party_keys
    origin = kind.origin(row.tipo_cfe)
    return {
        "id": row.id,
        **({} if origin is None else {"origen": origin}),
        "fecha": row.fecha.isoformat(),
        "tipoCFE": row.tipo_cfe,
        "serie": row.serie,
        "nro": row.nro,
        doc: row.receptor_doc,
        name: row.receptor_nombre,
        "moneda": row.moneda,
        "tipoCambio": f"{row.tipo_cambio:f}",
        kind.state_key: row.dgi_status,
        "importes": _importes(row.amounts),
        "importesPesos": _importes(row.amounts_uyu),
    }


# A JSON string as json.dumps(..., ensure_ascii=False) writes it (the C encoder), or null.
_ENCODE = json.encoder.encode_basestring
_IMPORTES_KEYS = tuple(f'"{name}":' for name in AMOUNT_NAMES)
_IMPORTES_ZERO = "{" + ",".join(f'{key}"0.00"' for key in _IMPORTES_KEYS) + "}"
_POSITION = {name: index for index, name in enumerate(AMOUNT_NAMES)}


def _string(value: str | None) -> str:
    return "null" if value is None else _ENCODE(value)


def _importes_json(amounts: dict[str, Decimal]) -> str:
    """`_importes` written as JSON straight away: the zeros (most of them) as one shared text."""
    if not amounts:
        return _IMPORTES_ZERO
    texts = ['"0.00"'] * len(AMOUNT_NAMES)
    for name, value in amounts.items():
        texts[_POSITION[name]] = f'"{two_decimals(value)}"'
    return "{" + ",".join([key + text for key, text in zip(_IMPORTES_KEYS, texts, strict=True)]) + "}"


def fila_json(row: BookRow, kind: BookKind = SALES) -> str:
    """`_fila(row, kind)` as JSON text, written without building the dict and encoding it: the same document
    (a unit test holds them equal), at a third of the cost per row of a 100,000-receipt book."""
    doc, name = kind.party_keys
    own = _importes_json(row.amounts)
    uyu = own if row.amounts_uyu is row.amounts else _importes_json(row.amounts_uyu)
    origin = kind.origin(row.tipo_cfe)
    said_origin = "" if origin is None else '"origen":"' + origin + '",'
    return (
        f'{{"id":{_string(row.id)},{said_origin}"fecha":"{row.fecha.isoformat()}","tipoCFE":{row.tipo_cfe},'
        f'"serie":{_string(row.serie)},"nro":{row.nro},"{doc}":{_string(row.receptor_doc)},'
        f'"{name}":{_string(row.receptor_nombre)},"moneda":{_string(row.moneda)},"tipoCambio":"{row.tipo_cambio:f}",'
        f'"{kind.state_key}":{_string(row.dgi_status)},"importes":{own},"importesPesos":{uyu}}}'
    )


def _json_chunks(query: VentasQuery, rows: Iterator[BookRow], summary: BookSummary) -> Iterator[str]:
    """The book as one JSON document written row by row (in chunks of a few hundred rows), its totals at the
    end (they are known only then)."""
    kind = summary.kind or SALES
    yield json.dumps({"desde": query.desde.isoformat(), "hasta": query.hasta.isoformat()})[:-1] + ', "filas": ['
    add, separator = summary.add, ""
    chunk: list[str] = []
    for row in rows:
        add(row)
        if row.apart is not None:
            continue
        chunk.append(separator + fila_json(row, kind))
        separator = ","
        if len(chunk) == _CHUNK:
            yield "".join(chunk)
            chunk = []
    yield "".join(chunk)
    total, by_type, by_currency = summary.total, summary.by_type, summary.by_currency
    closing = {
        **{key: [_fila(row, kind) for row in summary.apart.get(apart, [])] for apart, key, _heading in kind.apart},
        "cantidad": total.count,
        "totalesPesos": _importes(total.amounts),
        "porTipo": [
            {"tipoCFE": code, "cantidad": t.count, "importesPesos": _importes(t.amounts)}
            for code, t in sorted(by_type.items())
        ],
        "porMoneda": [
            {
                "moneda": currency,
                "cantidad": t.count,
                "importes": _importes(t.own),
                "importesPesos": _importes(t.amounts),
            }
            for currency, t in sorted(by_currency.items())
        ],
        "declaracion": {key: f"{value:.2f}" for key, value in summary.declaration.items()},
    }
    yield "]," + json.dumps(closing, ensure_ascii=False)[1:]


def _book(kind: BookKind, company_id: int, rows: Callable[[], Iterator[BookRow]], query: VentasQuery) -> Response:
    """A book as JSON, CSV or XLSX (by `formato` or Accept), streamed as its rows are read: a long download."""
    wanted = _MEDIA[query.formato] if query.formato else negotiate("application/json", "text/csv", files.XLSX)
    summary = BookSummary(kind=kind)
    name = f"libro-{kind.name}-{query.desde:%Y%m%d}-{query.hasta:%Y%m%d}"
    if wanted == files.XLSX:
        with downloads.building(company_id):
            body = files.xlsx_file(rows(), summary, query.desde, query.hasta)
        return send_file(body, mimetype=files.XLSX, as_attachment=True, download_name=f"{name}.xlsx")
    if wanted == "text/csv":
        chunks = downloads.held(company_id, lambda: files.csv_chunks(rows(), summary))
    else:
        chunks = downloads.held(company_id, lambda: _json_chunks(query, rows(), summary))
    response = Response(chunks, mimetype=wanted)
    if wanted == "text/csv":
        response.headers["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


def _book_responses(description: str, schema: type[LibroVentas] | type[LibroCompras]) -> dict:
    return {
        200: {
            "description": description,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{schema.__name__}"}},
                "text/csv": {"schema": {"type": "string"}},
                files.XLSX: {"schema": {"type": "string", "format": "binary"}},
            },
            "model": schema,
        },
        406: "Formato no disponible (not_acceptable).",
        **downloads.RESPONSES,
    }


@operation(
    bp,
    "GET",
    "/ventas",
    tag=TAG,
    summary="Libro de ventas (IVA) de un período",
    auth=(JWT, API_KEY),
    roles=ALL,
    query=VentasQuery,
    responses=_book_responses(
        "El libro: una fila por comprobante (fecha, tipo, serie y número, receptor, moneda y tipo de cambio, neto "
        "exento, a tasa mínima, básica y otra, IVA por tasa, percepciones, retenciones y total, en la moneda del CFE "
        "y en pesos; las notas de crédito negativas), los rechazados por DGI aparte, totales por tipo y moneda y las "
        "cifras de la declaración de IVA. JSON (LibroVentas), CSV (`;`, coma decimal) o XLSX, por `formato` o por "
        "Accept.",
        LibroVentas,
    ),
)
def ventas(principal: Principal, query: VentasQuery):
    """El libro de ventas del período: los comprobantes de venta (e-Ticket, e-Factura, e-Factura de exportación
    y sus notas) emitidos entre `desde` y `hasta`, con los importes que firmaron; los que DGI rechazó van aparte y
    no suman."""
    company_id = principal.company_id
    return _book(SALES, company_id, lambda: book_rows(db.new_session(), company_id, query.desde, query.hasta), query)


@operation(
    bp,
    "GET",
    "/compras",
    tag=TAG,
    summary="Libro de compras (IVA) de un período",
    auth=(JWT, API_KEY),
    roles=ALL,
    query=VentasQuery,
    responses=_book_responses(
        "El libro de compras, con la forma del de ventas: una fila por CFE recibido (fecha, tipo, serie y número, "
        "proveedor, moneda y tipo de cambio, importes por tasa en la moneda del CFE y en pesos, como los firmó el "
        "proveedor; las notas de crédito negativas) y por e-Boleta de entrada que la empresa emitió (el vendedor "
        "como proveedor), aparte los que DGI rechazó y los que la empresa rechazó (al "
        "recibirlos o comercialmente), totales por tipo y moneda y las cifras de compras de la declaración de IVA. "
        "JSON (LibroCompras), CSV o XLSX, por `formato` o por Accept.",
        LibroCompras,
    ),
)
def compras(principal: Principal, query: VentasQuery):
    """El libro de compras del período: los CFE de compra recibidos (e-Ticket, e-Factura y sus notas) emitidos
    entre `desde` y `hasta`, con los totales de su XML firmado, y las e-Boletas de entrada que la empresa emitió;
    los rechazados por DGI o por la empresa van aparte y no suman."""
    company_id = principal.company_id
    return _book(
        PURCHASES, company_id, lambda: purchase_rows(db.new_session(), company_id, query.desde, query.hasta), query
    )


@operation(
    bp,
    "GET",
    "/compras/resumen",
    tag=TAG,
    summary="Las compras de un período de un vistazo",
    auth=(JWT, API_KEY),
    roles=ALL,
    query=PeriodoQuery,
    responses={200: PeriodoCompras},
)
def compras_resumen(principal: Principal, query: PeriodoQuery):
    """Las compras del período según el libro de compras (en pesos, sin los rechazados por DGI ni por la
    empresa, que se cuentan aparte): el neto, el IVA (crédito fiscal) y el total por tasa, las cifras de compras
    de la declaración de IVA, por tipo y los diez principales proveedores."""
    report = purchases_report(db.new_session(), principal.company_id, query.desde, query.hasta)
    return summary_json(report)


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


@operation(
    bp,
    "GET",
    "/periodo",
    tag=TAG,
    summary="Un período de un vistazo",
    auth=(JWT, API_KEY),
    roles=ALL,
    query=PeriodoQuery,
    responses={200: Periodo},
)
def periodo(principal: Principal, query: PeriodoQuery):
    """Las ventas del período según el libro de ventas (en pesos, sin los rechazados por DGI): por tipo, moneda,
    sucursal y día (períodos de hasta 62 días) o mes, el neto y el IVA por tasa y los diez principales clientes;
    y cuántos comprobantes de cada tipo hay en cada estado ante DGI."""
    report = period_report(db.session(), db.new_session(), principal.company_id, query.desde, query.hasta)
    book = report.book
    total, by_type, by_currency = book.total, book.by_type, book.by_currency
    return {
        "desde": query.desde.isoformat(),
        "hasta": query.hasta.isoformat(),
        "agrupacion": "dia" if report.by_day else "mes",
        "cantidad": total.count,
        "totalPesos": _money(total.amounts["total"]),
        "rechazados": len(book.rejected),
        "iva": {key: _money(value) for key, value in book.declaration.items()},
        "porTipo": [
            {"tipoCFE": code, "cantidad": t.count, "totalPesos": _money(t.amounts["total"])}
            for code, t in sorted(by_type.items())
        ],
        "porMoneda": [
            {
                "moneda": currency,
                "cantidad": t.count,
                "total": _money(t.own["total"]),
                "totalPesos": _money(t.amounts["total"]),
            }
            for currency, t in sorted(by_currency.items())
        ],
        "porSucursal": [
            {"cdgDGISucur": code, "cantidad": b.count, "totalPesos": _money(b.total)}
            for code, b in sorted(report.branches.items(), key=lambda item: item[0] or 0)
        ],
        "serie": [
            {"fecha": day.isoformat(), "cantidad": b.count, "totalPesos": _money(b.total)}
            for day, b in sorted(report.timeline.items())
        ],
        "principalesClientes": [
            {"docRecep": doc, "rznSocRecep": name, "cantidad": b.count, "totalPesos": _money(b.total)}
            for doc, name, b in report.top_customers()
        ],
        "estadosDgi": [{"estado": state, "cantidad": count} for state, count in report.dgi_states.items()],
    }


@operation(
    bp,
    "GET",
    "/periodo/pdf",
    tag=TAG,
    summary="Resumen del período en PDF",
    auth=(JWT, API_KEY),
    roles=ALL,
    query=PeriodoQuery,
    responses={
        200: {
            "description": "El resumen del período en PDF (A4): de las ventas, totales, cifras de la declaración "
            "de IVA, un gráfico de barras por día o mes con sus números, y la apertura por tipo, moneda, principales "
            "clientes y estados ante DGI (los mismos números que GET /informes/periodo); de las compras, el neto, el "
            "IVA (crédito fiscal) y el total por tasa, los rechazados aparte y los principales proveedores (los de "
            "GET /informes/compras/resumen); y la posición de IVA estimada: el débito fiscal menos el crédito "
            "fiscal, antes de retenciones y percepciones.",
            "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}},
        },
    },
)
def periodo_pdf(principal: Principal, query: PeriodoQuery):
    """El resumen del período para archivar o enviar al contador, con las cifras de los libros de ventas y de
    compras."""
    session = db.session()
    report = period_report(session, db.new_session(), principal.company_id, query.desde, query.hasta)
    purchases = purchases_report(db.new_session(), principal.company_id, query.desde, query.hasta)
    company = session.get(Company, principal.company_id)
    content = summary_pdf(company.razon_social if company else "", report, purchases, datetime.now(MONTEVIDEO))
    name = f"resumen-{query.desde:%Y%m%d}-{query.hasta:%Y%m%d}.pdf"
    return file_response(content, "application/pdf", name, inline=False, vary=("Accept-Language",))
