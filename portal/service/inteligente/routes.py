"""HTTP endpoints of the Emision Inteligente group (Bearer JWT only, as the interface says)."""

from __future__ import annotations

from flask import Blueprint, Response

from portal.domain.roles import ALL, WRITERS
from portal.service.inteligente import listing, workflow
from portal.service.inteligente.schemas import (
    Confirmacion,
    ListaSolicitudes,
    SolicitudesQuery,
    SolicitudEstado,
    SolicitudInteligente,
)
from portal.service.platform import idempotency
from portal.service.platform.api import idempotency_header, operation
from portal.service.platform.auth import JWT, Principal

bp = Blueprint("inteligente", __name__, url_prefix="/api/v1/cfe")
TAG = "Emision Inteligente"


@operation(
    bp,
    "POST",
    "/previsualizar-emision-inteligente",
    tag=TAG,
    summary="Previsualizar una emisión inteligente",
    auth=(JWT,),
    roles=WRITERS,
    body=SolicitudInteligente,
    responses={201: SolicitudEstado},
)
def previsualizar(body: SolicitudInteligente, principal: Principal):
    """Works out the complete CFE from a minimal input and keeps it, with its PDF preview, for 15 minutes."""
    return workflow.describe(workflow.preview(principal, body)), 201


@operation(
    bp,
    "POST",
    "/confirmar-emision-inteligente",
    tag=TAG,
    summary="Confirmar una emisión inteligente",
    auth=(JWT,),
    roles=WRITERS,
    body=Confirmacion,
    responses={200: SolicitudEstado, 404: "No existe.", 409: "Vencida, ya fallida o con el borrador cambiado."},
)
def confirmar(body: Confirmacion, principal: Principal):
    """Issues exactly the previewed draft, once: confirming again returns the same receipt."""
    return workflow.describe(workflow.confirm(principal, body))


@operation(
    bp,
    "POST",
    "/emitir-inteligente",
    tag=TAG,
    summary="Emisión inteligente directa",
    auth=(JWT,),
    roles=WRITERS,
    body=SolicitudInteligente,
    responses={201: SolicitudEstado},
    extra_headers={
        "Idempotency-Key": idempotency_header("Repetir con la misma clave devuelve la misma solicitud y comprobante.")
    },
)
def emitir(body: SolicitudInteligente, principal: Principal):
    """Infers and issues in one step."""
    key = idempotency.requested_key("inteligente.emitir")
    outcome = workflow.issue_directly(principal, body, key)
    return outcome if isinstance(outcome, Response) else (outcome, 201)


@operation(
    bp,
    "GET",
    "/emision-inteligente",
    tag=TAG,
    summary="Listar las solicitudes de emisión de la empresa",
    auth=(JWT,),
    roles=ALL,
    query=SolicitudesQuery,
    responses={200: ListaSolicitudes},
)
def listar(query: SolicitudesQuery, principal: Principal):
    """The company's requests, newest first, with the resulting receipt or the failure's code. Filters add up:
    state, who created it (start of the e-mail), days (Montevideo time), and the receipt's number as people
    type it. Pages of `limite` (20 by default, up to 100); pass `siguienteCursor` as `cursor` for the next."""
    return listing.list_requests(principal, query)


@operation(
    bp,
    "GET",
    "/emision-inteligente/<request_id>",
    tag=TAG,
    summary="Consultar una solicitud de emisión",
    auth=(JWT,),
    roles=ALL,
    path_params={"request_id": "El requestId de la solicitud."},
    responses={200: SolicitudEstado, 404: "No existe o es de otra empresa."},
)
def consultar(request_id: str, principal: Principal):
    """The request's state, timeline, warnings, resulting receipt and its DGI status, or why it failed."""
    return workflow.describe(workflow.consult(principal, request_id))
