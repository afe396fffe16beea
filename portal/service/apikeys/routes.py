"""HTTP endpoints of the Empresa API Key group (see ../shared/SERVICE-INTERFACE.md).

Bearer JWT only, always within the caller's company: admins do everything, `soporte` may list, `usuario`
gets 403. `init_app` registers the `X-API-Key` verifier that the Comprobante and DGI groups accept.
"""

from __future__ import annotations

from flask import Blueprint, Flask

from portal.domain.roles import ADMINS, READERS
from portal.service.apikeys import credentials, limiting, management
from portal.service.apikeys.schemas import ApiKeyCreate, ApiKeyCreated, ApiKeyList, ApiKeyOut, RateLimit
from portal.service.platform.api import operation, to_response
from portal.service.platform.auth import JWT, Principal
from portal.service.platform.paging import PageQuery

bp = Blueprint("apikeys", __name__, url_prefix="/api/v1/apikeys")

TAG = "Empresa API Key"
_ID = {"apikey_id": "Identificador público de la clave (`ak_...`), como lo da la lista."}


@operation(
    bp,
    "GET",
    "",
    tag=TAG,
    summary="Listar las claves de API de la empresa",
    auth=(JWT,),
    roles=READERS,
    query=PageQuery,
    responses={200: ApiKeyList},
)
def list_api_keys(principal: Principal, query: PageQuery):
    """Las claves de la empresa, activas y revocadas, con su límite, el uso de la ventana actual y su
    historial. La clave completa no aparece nunca: solo su prefijo."""
    return management.list_keys(principal, query)


@operation(
    bp,
    "POST",
    "",
    tag=TAG,
    summary="Crear una clave de API",
    auth=(JWT,),
    roles=ADMINS,
    body=ApiKeyCreate,
    responses={201: ApiKeyCreated},
)
def create_api_key(principal: Principal, body: ApiKeyCreate):
    """Crea una clave para la empresa. La respuesta trae `clave`, la clave completa, por única vez: el
    servicio guarda solo un hash. Sin `rateLimit`, el límite es de 600 solicitudes cada 60 segundos."""
    created = management.create_key(principal, body)
    response = to_response(created, 201)
    response.headers["Cache-Control"] = "no-store"
    return response


@operation(
    bp,
    "POST",
    "/<string:apikey_id>/revocar",
    tag=TAG,
    summary="Revocar una clave de API",
    auth=(JWT,),
    roles=ADMINS,
    responses={200: ApiKeyOut, 404: "No existe esa clave en la empresa."},
    path_params=_ID,
)
def revoke_api_key(principal: Principal, apikey_id: str):
    """La clave deja de valer desde la solicitud siguiente, en todos los procesos del servicio. Revocar una
    clave ya revocada no cambia nada y la devuelve como está."""
    return management.revoke_key(principal, apikey_id)


@operation(
    bp,
    "POST",
    "/<string:apikey_id>/rate-limit",
    tag=TAG,
    summary="Cambiar el límite de una clave",
    auth=(JWT,),
    roles=ADMINS,
    body=RateLimit,
    responses={200: ApiKeyOut, 404: "No existe esa clave en la empresa.", 409: "La clave está revocada."},
    path_params=_ID,
)
def update_api_key_rate_limit(principal: Principal, apikey_id: str, body: RateLimit):
    """Cambia el límite (`limite` solicitudes cada `ventanaSegundos`, 1-100000 y 1-86400). Vale desde la
    solicitud siguiente y cuenta las solicitudes ya hechas en la ventana: bajarlo corta en el acto una clave
    que ya lo superó; subirlo da solo la diferencia. Las respuestas a solicitudes hechas con la clave informan
    el límite con los encabezados `RateLimit-Policy` y `RateLimit`; al excederlo, 429 con `Retry-After`."""
    return management.set_rate_limit(principal, apikey_id, body)


def init_app(app: Flask) -> None:
    if not app.config.get("API_KEY_PEPPER"):
        raise RuntimeError("No API key pepper: run `make run` or set CFE_API_KEY_PEPPER.")
    app.extensions["api_key_verifier"] = credentials.verify
    limiting.init_app(app)
