"""HTTP endpoints of the dgi group (see ../shared/SERVICE-INTERFACE.md): the four DGI lookups.

Every lookup names the company that asks (`idEmpresa`, which must be the caller's) and the company
certificate it asks with (`idCertificado`, which must belong to that company and be valid today: DGI's
service authenticates the caller by the certificate that signs the request). A malformed RUT or document
is a 422 before anything is looked up; DGI's own failures keep the library's codes (502 dgi_*, 504
dgi_timeout, 501 dgi_not_offered).

Settings: DGI_BACKEND, DGI_CACHE_SECONDS, DGI_TIMEOUT_SECONDS, DGI_SOAP_URL, DGI_WSDL_PATH and
DGI_SIGNATURE_DIGEST come from the environment through portal/service/platform/config.py (CFE_DGI_*); DGI_CACHE
(a cachelib cache object, tests only) defaults to one SimpleCache per app.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from cachelib import BaseCache, SimpleCache
from flask import Blueprint, Flask, current_app
from pydantic import BaseModel
from sqlalchemy import select

from portal.domain.roles import ALL
from portal.domain.uruguay_time import day_in_uruguay
from portal.service.dgi import registry as dgi
from portal.service.dgi.factory import make_registry
from portal.service.dgi.schemas import (
    DatosEntidad,
    DgiQuery,
    Entidad,
    EstadoCva,
    NombreEntidad,
    NombreEntidadQuery,
)
from portal.service.platform import db
from portal.service.platform.api import OperationDefaults, operation, to_response
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import ApiError, FieldError, Forbidden, NotFound, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.keystore import private_key_pem
from portal.service.platform.models import Certificate

bp = Blueprint("dgi", __name__, url_prefix="/api/v1/dgi")

TAG = "DGI"
_RUT = {
    "rut": {
        "description": "RUT de 12 dígitos, con o sin separadores (21-999983-001-9); se valida el dígito verificador.",
        "schema": {"type": "string", "pattern": "^(?:[0-9][-. ]?){11}[0-9]$", "examples": ["219999830019"]},
    }
}


def _error(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


_ERRORS = {
    403: _error("idEmpresa no es la empresa del llamante (empresa_ajena), o el rol no alcanza."),
    404: _error(
        "El contribuyente no existe (taxpayer_not_found), o el certificado no es de la empresa "
        "(certificado_no_encontrado)."
    ),
    422: _error(
        "Documento mal formado (formato, largo, dígito verificador), parámetro faltante o no "
        "numérico, o certificado vencido (certificado_vencido en idCertificado); `fields` dice cuál."
    ),
    502: _error("DGI no pudo responder (dgi_unavailable, dgi_fault, dgi_http_error, dgi_bad_answer, dgi_error_<n>)."),
    504: _error("DGI no respondió a tiempo (dgi_timeout)."),
}
_NOT_OFFERED = {501: _error("El servicio de DGI configurado no ofrece esta consulta (dgi_not_offered).")}


class _ObservedCache(BaseCache):
    """The app's cache, seen through one request: remembers whether the lookup was answered from it."""

    def __init__(self, inner: BaseCache):
        super().__init__()
        self.inner = inner
        self.hit = False

    def get(self, key: str) -> Any:
        value = self.inner.get(key)
        self.hit = self.hit or value is not None
        return value

    def set(self, key: str, value: Any, timeout: int | timedelta | None = None) -> bool | None:
        return self.inner.set(key, value, timeout=timeout)


def _check_company(query: DgiQuery, principal: Principal) -> None:
    # For a JWT, portal.service.platform.auth already chose the company from idEmpresa (unless X-Empresa-Id named
    # another); an API key is bound to one company. Either way they must agree.
    if query.idEmpresa != principal.company_id:
        raise Forbidden(_("No tenés acceso a esa empresa."), code="empresa_ajena")


def _certificate(query: DgiQuery, principal: Principal) -> tuple[Certificate, list[FieldError]]:
    """The company's certificate, and the field error that says it is not valid today (if it is not)."""
    cert = db.session().scalar(
        select(Certificate).where(Certificate.id == query.idCertificado, Certificate.company_id == principal.company_id)
    )
    if cert is None:
        raise NotFound(_("La empresa no tiene un certificado con ese identificador."), code="certificado_no_encontrado")
    now = datetime.now(UTC)
    if now > cert.not_after:
        day = day_in_uruguay(cert.not_after)
        return cert, [
            FieldError(
                "idCertificado", "certificado_vencido", _("El certificado venció el {day}.", day=f"{day:%d/%m/%Y}")
            )
        ]
    if now < cert.not_before:
        day = day_in_uruguay(cert.not_before)
        message = _("El certificado recién es válido desde el {day}.", day=f"{day:%d/%m/%Y}")
        return cert, [FieldError("idCertificado", "certificado_no_vigente", message)]
    return cert, []


def _input_errors(check: Callable[[], Any]) -> list[FieldError]:
    try:
        check()
    except dgi.DgiInvalidInput as exc:
        return [FieldError(exc.field, exc.reason, exc.message)]
    return []


def _lookup(
    principal: Principal,
    query: DgiQuery,
    check: Callable[[], Any],
    call: Callable[[dgi.TaxpayerRegistry], Any],
    schema: type[BaseModel],
):
    """Check company, certificate and input (one 422 for every bad field), look up, answer in `schema`."""
    _check_company(query, principal)
    cert, problems = _certificate(query, principal)
    problems = _input_errors(check) + problems
    if problems:
        raise ValidationFailed(problems)
    cache = _ObservedCache(current_app.extensions["dgi_cache"])
    config = ChainMap({"DGI_CACHE": cache}, current_app.config)
    registry = make_registry(config, certificate=lambda: (private_key_pem(cert), cert.cert_pem.encode()))
    try:
        answer = call(registry)
    except dgi.DgiInvalidInput as exc:  # the library validates again; kept for the one shape of error
        raise ValidationFailed([FieldError(exc.field, exc.reason, exc.message)]) from exc
    except dgi.DgiError as exc:
        headers = {"X-DGI-Cache": "hit" if cache.hit else "miss"} if exc.status == 404 else {}
        raise ApiError(exc.message, code=exc.code, status=exc.status, headers=headers) from exc
    finally:
        registry.close()
    body = schema.model_validate(answer.to_json()).model_dump(mode="json")
    response = to_response(body)
    response.headers["Cache-Control"] = "private, max-age=0"
    response.headers["X-DGI-Cache"] = "hit" if cache.hit else "miss"
    return response


_COMMON: OperationDefaults = {"tag": TAG, "auth": (JWT, API_KEY), "roles": ALL}


@operation(
    bp,
    "GET",
    "/consultaRut/<string:rut>",
    summary="Consultar un RUT",
    query=DgiQuery,
    responses={200: Entidad, **_ERRORS},
    path_params=_RUT,
    **_COMMON,
)
def consulta_rut(principal: Principal, query: DgiQuery, rut: str):
    """Identidad de un contribuyente según el servicio de RUT de DGI: denominación, nombre de fantasía, tipo
    de entidad, estado y fecha de inicio de actividad, y si es emisor electrónico. Sin domicilio ni
    actividades (ver consultaDatosEntidad). Las respuestas se guardan un tiempo (`X-DGI-Cache`)."""
    return _lookup(principal, query, lambda: dgi.normalize_rut(rut), lambda r: r.consulta_rut(rut), Entidad)


@operation(
    bp,
    "GET",
    "/consultaNombreEntidad",
    summary="Consultar el nombre de una entidad",
    query=NombreEntidadQuery,
    responses={200: NombreEntidad, **_ERRORS, **_NOT_OFFERED},
    **_COMMON,
)
def consulta_nombre_entidad(principal: Principal, query: NombreEntidadQuery):
    """El nombre registrado para un documento: la denominación de un RUT o el nombre de la persona de una
    CI o un NIE. `tipoDoc` usa los códigos de DGI; DGI solo registra NIE (1), RUT (2) y CI (3), y los
    demás tipos son un 422. El servicio SOAP de DGI solo consulta por RUT: con él, CI y NIE son 501."""
    return _lookup(
        principal,
        query,
        lambda: dgi.normalize_document(query.tipoDoc, query.nroDoc),
        lambda r: r.consulta_nombre_entidad(query.tipoDoc, query.nroDoc),
        NombreEntidad,
    )


@operation(
    bp,
    "GET",
    "/consultaCva/<string:rut>",
    summary="Consultar el CVA de un RUT",
    query=DgiQuery,
    responses={200: EstadoCva, **_ERRORS, **_NOT_OFFERED},
    path_params=_RUT,
    **_COMMON,
)
def consulta_cva(principal: Principal, query: DgiQuery, rut: str):
    """El Certificado de Vigencia Anual (Certificado Único) de DGI: si está vigente, con su número y sus
    fechas de emisión y vencimiento; si venció, los datos del último; SIN_CERTIFICADO si nunca tuvo.
    DGI no publica un servicio web del CVA: con el backend SOAP esta consulta es 501."""
    return _lookup(principal, query, lambda: dgi.normalize_rut(rut), lambda r: r.consulta_cva(rut), EstadoCva)


@operation(
    bp,
    "GET",
    "/consultaDatosEntidad/<string:rut>",
    summary="Consultar los datos de una entidad",
    query=DgiQuery,
    responses={200: DatosEntidad, **_ERRORS},
    path_params=_RUT,
    **_COMMON,
)
def consulta_datos_entidad(principal: Principal, query: DgiQuery, rut: str):
    """Todo lo que el registro de RUT de DGI tiene de un contribuyente: la identidad de consultaRut más el
    domicilio fiscal con sus contactos y las actividades (códigos CIIU, nombres y fechas de inicio)."""
    return _lookup(
        principal, query, lambda: dgi.normalize_rut(rut), lambda r: r.consulta_datos_entidad(rut), DatosEntidad
    )


def init_app(app: Flask) -> None:
    """Check the DGI settings at start-up (a test's own may differ from the environment's)."""
    # One cache per app (not the library's process-wide default), so two apps in one process never mix.
    cache = app.config.get("DGI_CACHE")
    app.extensions["dgi_cache"] = cache if cache is not None else SimpleCache(threshold=5000)
    # Building a registry checks backend and timeout; a SOAP one loads nothing until its first lookup.
    make_registry(app.config, certificate=_no_certificate).close()


def _no_certificate() -> tuple[bytes, bytes]:
    raise RuntimeError("a DGI lookup outside a request has no certificate")
