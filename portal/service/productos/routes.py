"""HTTP endpoints of the productos group: the company's products and services, and a price list from CSV."""

from __future__ import annotations

from decimal import Decimal

from flask import Blueprint, request
from sqlalchemy import select

from portal.domain.roles import ALL, WRITERS
from portal.service.cfe.amounts import other_way_price
from portal.service.platform import db, paging
from portal.service.platform.api import OperationDefaults, operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import ApiError, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.productos import catalog
from portal.service.productos.models import Product
from portal.service.productos.schemas import (
    CambioProducto,
    NuevoProducto,
    PaginaProductos,
    Producto,
    ProductosQuery,
    ResultadoImportacion,
)

bp = Blueprint("productos", __name__, url_prefix="/api/v1/productos")
TAG = "Productos"
_READ: OperationDefaults = {"tag": TAG, "auth": (JWT, API_KEY), "roles": ALL}
_WRITE: OperationDefaults = {"tag": TAG, "auth": (JWT, API_KEY), "roles": WRITERS}
_ID = {"producto_id": "El id del producto, como lo da la lista."}
_NOT_FOUND = "La empresa no tiene ese producto (producto_no_encontrado)."
_COLUMNS = {
    "codigo": "code",
    "nombre": "name",
    "unidad": "unit",
    "precio": "price",
    "precio_con_iva": "price_includes_iva",
    "ind_fact": "ind_fact",
    "moneda": "currency",
}


def _price(value: Decimal) -> str:
    """Cents as money is written (320.00); finer prices with the decimals they have (0.125)."""
    cents = value.quantize(Decimal("0.01"))
    return f"{cents}" if cents == value else f"{value.normalize():f}"


def _json(product: Product) -> dict:
    return {
        "id": product.id,
        "codigo": product.code,
        "nombre": product.name,
        "unidad": product.unit,
        "precio": _price(product.price),
        "precioConIva": product.price_includes_iva,
        "precioOtro": _price(other_way_price(product.price, product.ind_fact, includes_iva=product.price_includes_iva)),
        "indFact": product.ind_fact,
        "moneda": product.currency,
    }


def _product(session, principal: Principal, producto_id: int) -> Product:
    found = session.get(Product, producto_id)
    if found is None or found.company_id != principal.company_id:
        raise NotFound(_("La empresa no tiene ese producto."), code="producto_no_encontrado")
    return found


def _taken(code: str) -> ApiError:
    return ApiError(_("Ya hay un producto con el código {codigo}.", codigo=code), code="codigo_existente", status=409)


def _code_taken(session, principal: Principal, code: str, other_than: int | None = None) -> None:
    query = select(Product.id).where(Product.company_id == principal.company_id, Product.code == code)
    found = session.scalar(query)
    if found is not None and found != other_than:
        raise _taken(code)


def _apply(product: Product, body: NuevoProducto | CambioProducto) -> None:
    # A new product takes the defaults it was not sent (IVA básica, pesos); a change only what it names.
    for field, value in body.model_dump(exclude_unset=isinstance(body, CambioProducto)).items():
        if field in ("codigo", "nombre") and value is None:
            raise ValidationFailed([FieldError(field, "missing", _("No puede quedar vacío."))])
        setattr(product, _COLUMNS[field], value)
    product.search_name = catalog.search_name(product.name)


@operation(bp, "GET", "", summary="Buscar productos", query=ProductosQuery, responses={200: PaginaProductos}, **_READ)
def listar(principal: Principal, query: ProductosQuery):
    """Los productos y servicios de la empresa por orden de nombre; con `q`, los que tienen una palabra del nombre
    que empieza así (sin distinguir mayúsculas ni tildes) o un código que empieza así."""
    try:
        found, following = catalog.search(db.session(), principal.company_id, query.q, query.cursor, query.limite)
    except ValueError as exc:
        raise paging.invalid_cursor() from exc
    return {"items": [_json(p) for p in found], "siguienteCursor": following}


@operation(
    bp,
    "POST",
    "",
    summary="Agregar un producto",
    body=NuevoProducto,
    responses={201: Producto, 409: "Ya hay un producto con ese código (codigo_existente)."},
    **_WRITE,
)
def crear(principal: Principal, body: NuevoProducto):
    """Un producto o servicio nuevo, con el código que lo identifica en la empresa."""
    with db.write_transaction() as session:
        _code_taken(session, principal, body.codigo)
        product = Product(company_id=principal.company_id)
        _apply(product, body)
        session.add(product)
        db.flush_unless_taken(session, _taken(body.codigo))
    return _json(product), 201


@operation(
    bp,
    "GET",
    "/<int:producto_id>",
    summary="Un producto",
    path_params=_ID,
    responses={200: Producto, 404: _NOT_FOUND},
    **_READ,
)
def ver(principal: Principal, producto_id: int):
    """El producto."""
    return _json(_product(db.session(), principal, producto_id))


@operation(
    bp,
    "PATCH",
    "/<int:producto_id>",
    summary="Cambiar un producto",
    path_params=_ID,
    body=CambioProducto,
    responses={200: Producto, 404: _NOT_FOUND, 409: "Ya hay otro producto con ese código (codigo_existente)."},
    **_WRITE,
)
def cambiar(principal: Principal, producto_id: int, body: CambioProducto):
    """Cambia lo que se envía; lo que falta queda como está. Los comprobantes ya emitidos no cambian."""
    with db.write_transaction() as session:
        product = _product(session, principal, producto_id)
        if body.codigo is not None:
            _code_taken(session, principal, body.codigo, other_than=product.id)
        _apply(product, body)
        db.flush_unless_taken(session, _taken(product.code))
    return _json(product)


@operation(
    bp,
    "DELETE",
    "/<int:producto_id>",
    summary="Quitar un producto",
    path_params=_ID,
    responses={204: "Quitado.", 404: _NOT_FOUND},
    **_WRITE,
)
def quitar(principal: Principal, producto_id: int):
    """Lo quita del catálogo; los comprobantes que lo usaron no cambian (llevan sus datos, no una referencia)."""
    with db.write_transaction() as session:
        session.delete(_product(session, principal, producto_id))
    return "", 204


@operation(
    bp,
    "POST",
    "/importar",
    summary="Importar una lista de precios (CSV)",
    raw_body={
        "text/csv": {
            "schema": {
                "type": "string",
                "maxLength": catalog.MAX_IMPORT_BYTES,
                "description": "CSV en UTF-8, separado por `;` o `,`, con encabezado: "
                + ";".join(catalog.COLUMNS)
                + " (unidad, iva_incluido, indicador_iva y moneda pueden faltar). A lo sumo 5.000 filas.",
            }
        }
    },
    responses={
        200: ResultadoImportacion,
        413: "El archivo supera 1 MB (archivo_grande).",
        415: "El cuerpo no es text/csv.",
        409: "Otro usuario agregó a la vez un producto con un código de la lista (codigo_existente): nada se importó.",
        422: "Alguna fila no es válida: nada se importó; `fields` dice cada fila y columna (`filas[3].precio`).",
    },
    **_WRITE,
)
def importar(principal: Principal):
    """Agrega los productos de códigos nuevos y actualiza los demás, todos o ninguno: si una fila no es válida no
    se importa nada y la respuesta dice qué tiene mal cada fila rechazada."""
    if request.mimetype != "text/csv":
        raise ApiError(
            _("El cuerpo debe ser un CSV (Content-Type: text/csv)."), code="unsupported_media_type", status=415
        )
    data = request.get_data()
    if len(data) > catalog.MAX_IMPORT_BYTES:
        raise ApiError(_("El archivo supera 1 MB."), code="archivo_grande", status=413)
    parsed = catalog.parse_price_list(data)
    if parsed.problems:
        raise ValidationFailed(
            [FieldError(f"filas[{p.row}].{p.column}", p.code, p.message) for p in parsed.problems[:200]],
            message=_("{cantidad} problema(s) en la lista: no se importó nada.", cantidad=len(parsed.problems)),
        )
    with db.write_transaction() as session:
        added, updated = catalog.apply_price_list(session, principal.company_id, parsed.products)
        # Another import or a new product took one of the new codes since apply_price_list looked them up.
        taken = ApiError(
            _("Otro usuario agregó a la vez un código de la lista: no se importó nada; probá de nuevo."),
            code="codigo_existente",
            status=409,
        )
        db.flush_unless_taken(session, taken)
    return {"creados": added, "actualizados": updated}
