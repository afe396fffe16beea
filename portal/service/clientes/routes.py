"""HTTP endpoints of the clientes group: the company's customers, kept from its receipts and editable."""

from __future__ import annotations

from flask import Blueprint
from sqlalchemy import select

from portal.domain.roles import ALL, WRITERS
from portal.service.clientes import catalog
from portal.service.clientes.models import Customer
from portal.service.clientes.schemas import (
    CambioCliente,
    Cliente,
    ClientesQuery,
    FichaCliente,
    NuevoCliente,
    PaginaClientes,
)
from portal.service.comprobante.presenters import listed_amount
from portal.service.comprobante.search import folded
from portal.service.platform import db, paging, responses
from portal.service.platform.api import OperationDefaults, operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import ApiError, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _

bp = Blueprint("clientes", __name__, url_prefix="/api/v1/clientes")
TAG = "Clientes"
_READ: OperationDefaults = {"tag": TAG, "auth": (JWT, API_KEY), "roles": ALL}
_WRITE: OperationDefaults = {"tag": TAG, "auth": (JWT, API_KEY), "roles": WRITERS}
_ID = {"cliente_id": "El id del cliente, como lo da la lista."}


def _json(customer: Customer) -> dict:
    return {
        "id": customer.id,
        "tipoDocRecep": customer.doc_type,
        "codPaisRecep": customer.country,
        "docRecep": customer.document,
        "rznSocRecep": customer.name,
        "dirRecep": customer.address,
        "ciudadRecep": customer.city,
        "deptoRecep": customer.department,
        "correo": customer.email,
        "moneda": customer.currency,
        "fmaPago": customer.payment_terms,
        "diasCredito": customer.credit_days,
        "origen": customer.source,
        "ultimoComprobante": responses.optional_moment(customer.last_receipt_at),
    }


def _caught_up(principal: Principal) -> None:
    """Customers of the receipts made since the last pass, so what was just issued is listed."""
    with db.write_transaction() as session:
        catalog.sync_from_receipts(session, principal.company_id)


def _customer(session, principal: Principal, customer_id: int) -> Customer:
    found = session.get(Customer, customer_id)
    if found is None or found.company_id != principal.company_id:
        raise NotFound(_("La empresa no tiene ese cliente."), code="cliente_no_encontrado")
    return found


@operation(bp, "GET", "", summary="Buscar clientes", query=ClientesQuery, responses={200: PaginaClientes}, **_READ)
def listar(principal: Principal, query: ClientesQuery):
    """Los clientes de la empresa por orden de nombre (los receptores de sus comprobantes se agregan solos);
    con `q`, aquellos en cuyo nombre cada palabra escrita empieza una palabra, en cualquier lugar y orden ("smith"
    encuentra "John Smith"), o cuyo documento empieza así (sin distinguir mayúsculas ni tildes)."""
    _caught_up(principal)
    try:
        found, following = catalog.search(db.session(), principal.company_id, query.q, query.cursor, query.limite)
    except ValueError as exc:
        raise paging.invalid_cursor() from exc
    return {"items": [_json(c) for c in found], "siguienteCursor": following}


@operation(
    bp,
    "POST",
    "",
    summary="Agregar un cliente",
    body=NuevoCliente,
    responses={201: Cliente, 409: "Ya hay un cliente con ese documento (cliente_existente)."},
    **_WRITE,
)
def crear(principal: Principal, body: NuevoCliente):
    """Un cliente escrito a mano (los de comprobantes ya emitidos se agregan solos)."""
    with db.write_transaction() as session:
        taken = ApiError(_("Ya hay un cliente con ese documento."), code="cliente_existente", status=409)
        if _document_kept(session, principal, body):
            raise taken
        customer = Customer(
            company_id=principal.company_id,
            doc_type=body.tipo_doc_recep,
            country=body.cod_pais_recep,
            document=body.doc_recep,
            source="manual",
        )
        _apply(customer, body)
        session.add(customer)
        db.flush_unless_taken(session, taken)
    return _json(customer), 201


def _document_kept(session, principal: Principal, body: NuevoCliente) -> bool:
    found = session.scalar(
        select(Customer.id).where(
            Customer.company_id == principal.company_id,
            Customer.doc_type == body.tipo_doc_recep,
            Customer.country == body.cod_pais_recep,
            Customer.document == body.doc_recep,
        )
    )
    return found is not None


def _apply(customer: Customer, body: NuevoCliente | CambioCliente) -> None:
    changes = body.model_dump(exclude_unset=True, by_alias=False)
    columns = {
        "rzn_soc_recep": "name",
        "dir_recep": "address",
        "ciudad_recep": "city",
        "depto_recep": "department",
        "correo": "email",
        "moneda": "currency",
        "fma_pago": "payment_terms",
        "dias_credito": "credit_days",
    }
    for field, column in columns.items():
        if field in changes:
            setattr(customer, column, changes[field])
    if customer.currency is None:
        customer.currency = "UYU"
    if customer.payment_terms is None:
        customer.payment_terms = 1
    if "rzn_soc_recep" in changes:
        if not changes["rzn_soc_recep"]:
            raise ValidationFailed([FieldError("rznSocRecep", "missing", _("El nombre no puede quedar vacío."))])
        customer.search_name = folded(customer.name) or ""


@operation(
    bp,
    "GET",
    "/<int:cliente_id>",
    summary="Un cliente con su saldo y sus comprobantes",
    path_params=_ID,
    responses={200: FichaCliente, 404: "La empresa no tiene ese cliente (cliente_no_encontrado)."},
    **_READ,
)
def ficha(principal: Principal, cliente_id: int):
    """El cliente, su saldo de ventas a crédito por moneda (ventas a crédito y notas de débito menos notas de
    crédito, sin los rechazados por DGI) y sus últimos 20 comprobantes."""
    _caught_up(principal)
    session = db.session()
    customer = _customer(session, principal, cliente_id)
    receipts = [
        {
            "id": r.id,
            "tipoCFE": r.tipo_cfe,
            "serie": r.serie,
            "nro": r.nro,
            "fchEmis": r.fch_emis.isoformat(),
            "moneda": r.tpo_moneda,
            "mntPagar": f"{r.mnt_pagar:.2f}",
            "importe": f"{listed_amount(r):.2f}",
            "estadoDgi": r.dgi_status,
        }
        for r in catalog.recent_receipts(session, customer)
    ]
    balances = [
        {"moneda": b.currency, "saldo": f"{b.amount:.2f}", "comprobantes": b.receipts}
        for b in catalog.credit_balance(session, customer)
    ]
    return {**_json(customer), "saldos": balances, "comprobantes": receipts}


@operation(
    bp,
    "PATCH",
    "/<int:cliente_id>",
    summary="Cambiar los datos de un cliente",
    path_params=_ID,
    body=CambioCliente,
    responses={200: Cliente, 404: "La empresa no tiene ese cliente (cliente_no_encontrado)."},
    **_WRITE,
)
def cambiar(principal: Principal, cliente_id: int, body: CambioCliente):
    """Cambia lo que se envía (nombre, domicilio, correo, moneda y condiciones de pago); el documento no cambia."""
    with db.write_transaction() as session:
        customer = _customer(session, principal, cliente_id)
        _apply(customer, body)
    return _json(customer)
