"""HTTP endpoints of the receptores group: suggest the company's past receivers as a person types, and
look a receiver up at DGI with the warnings smart issuance gives about the same taxpayer."""

from __future__ import annotations

from flask import Blueprint

from portal.domain.roles import ALL
from portal.service.dgi import registry as dgi
from portal.service.dgi.company import registry_for
from portal.service.dgi.receiver import receiver_from_dgi
from portal.service.intercambio.directory import is_electronic_receiver
from portal.service.platform import db
from portal.service.platform.api import OperationDefaults, operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import ApiError, FieldError, ValidationFailed
from portal.service.platform.i18n import say
from portal.service.receptores.past import recent_receivers
from portal.service.receptores.schemas import ListaReceptores, ReceptorDgi, ReceptorDgiQuery, ReceptoresQuery

bp = Blueprint("receptores", __name__, url_prefix="/api/v1/receptores")
TAG = "Receptores"
_COMMON: OperationDefaults = {"tag": TAG, "auth": (JWT, API_KEY), "roles": ALL}


@operation(
    bp,
    "GET",
    "",
    summary="Sugerir receptores ya usados",
    query=ReceptoresQuery,
    responses={200: ListaReceptores},
    **_COMMON,
)
def listar(principal: Principal, query: ReceptoresQuery):
    """Los receptores de los comprobantes de la empresa cuyo nombre o documento empieza con `q`, uno por
    documento (con los datos de su último comprobante), los usados más recientemente primero; hasta `limite`."""
    found = recent_receivers(db.session(), principal.company_id, query.q, query.limite)
    return ListaReceptores.model_validate({"items": found})


@operation(
    bp,
    "GET",
    "/dgi",
    summary="Un receptor según DGI, con sus advertencias",
    query=ReceptorDgiQuery,
    responses={
        200: ReceptorDgi,
        409: "La empresa no tiene un certificado de firma vigente con el que consultar (sin_certificado_vigente).",
        501: "El servicio de DGI configurado no consulta cédulas ni NIE (dgi_not_offered).",
        502: "DGI no pudo responder (dgi_unavailable, dgi_fault, dgi_http_error, dgi_bad_answer, dgi_error_<n>).",
        504: "DGI no respondió a tiempo (dgi_timeout).",
    },
    **_COMMON,
)
def desde_dgi(principal: Principal, query: ReceptorDgiQuery):
    """Lo que DGI registra del receptor (denominación y domicilio fiscal de un RUT; el nombre de una cédula o
    un NIE) y las advertencias sobre ese contribuyente: clausurado o sin actividad, no emisor electrónico,
    CVA vencido, RUT no registrado; las mismas que da la emisión inteligente. Se consulta como la empresa
    del llamante, firmando con su certificado vigente."""
    try:
        doc_type, number = dgi.normalize_document(query.tipoDoc, query.nroDoc)
    except dgi.DgiInvalidInput as exc:
        raise ValidationFailed([FieldError(exc.field, exc.reason, exc.message)]) from exc
    with registry_for(principal.company_id) as registry:
        try:
            found = receiver_from_dgi(registry, doc_type, number, electronic=is_electronic_receiver)
        except dgi.DgiError as exc:
            raise ApiError(exc.message, code=exc.code, status=exc.status) from exc
    return ReceptorDgi.model_validate(
        {
            "encontrado": found.found,
            "tipoDocRecep": int(doc_type),
            "docRecep": number,
            **found.fields,
            "receptorElectronico": found.electronic,
            "advertencias": [{"codigo": w.codigo, "mensaje": say(w.mensaje)} for w in found.warnings],
        }
    )
