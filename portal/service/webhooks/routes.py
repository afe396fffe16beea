"""HTTP endpoints of the webhooks area: a company's admins register the URLs that hear its events.

Bearer JWT only (a person, not an integration's API key, decides where the company's events go); admins do
everything, `soporte` may read the list and the attempts. Delivery is the worker's (tasks.py).
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response

from portal.domain.roles import ADMINS, READERS
from portal.service.eventos import publishing
from portal.service.platform.api import operation, to_response
from portal.service.platform.auth import JWT, Principal
from portal.service.webhooks import documentation, management, tasks  # noqa: F401 - documentation registers `webhooks`
from portal.service.webhooks.schemas import (
    AttemptPage,
    AttemptQuery,
    SecretRotated,
    SecretRotation,
    TestSent,
    WebhookChange,
    WebhookCreate,
    WebhookCreated,
    WebhookList,
    WebhookOut,
    WebhookReplace,
)

bp = Blueprint("webhooks", __name__, url_prefix="/api/v1/webhooks")

TAG = "Webhooks"
_ID = {"webhook_id": "Identificador del webhook (`we_...`), como lo da la lista."}
_404 = "No existe ese webhook en la empresa."


def _no_store(model, status: int) -> Response:
    response = to_response(model, status)
    response.headers["Cache-Control"] = "no-store"
    return response


@operation(
    bp,
    "GET",
    "",
    tag=TAG,
    summary="Listar los webhooks de la empresa",
    auth=(JWT,),
    roles=READERS,
    responses={200: WebhookList},
)
def list_webhooks(principal: Principal):
    """Los webhooks de la empresa, el más nuevo primero, con su estado (activo, fallando desde, desactivado)."""
    return WebhookList(items=management.list_endpoints(principal))


@operation(
    bp,
    "POST",
    "",
    tag=TAG,
    summary="Registrar un webhook",
    auth=(JWT,),
    roles=ADMINS,
    body=WebhookCreate,
    responses={201: WebhookCreated},
)
def create_webhook(principal: Principal, body: WebhookCreate):
    """Registra una URL http(s) que recibirá los eventos elegidos, firmados según Standard Webhooks
    (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,...`). La respuesta trae `secreto`
    (`whsec_...`) por única vez. Las direcciones internas (privadas, loopback, link-local) no se admiten. Lo que
    recibe cada evento (cuerpo, datos, encabezados, cómo verificar la firma, reintentos) está en la sección
    `webhooks` de este documento."""
    return _no_store(management.create(principal, body), 201)


@operation(
    bp,
    "GET",
    "/<string:webhook_id>",
    tag=TAG,
    summary="Ver un webhook",
    auth=(JWT,),
    roles=READERS,
    responses={200: WebhookOut, 404: _404},
    path_params=_ID,
)
def get_webhook(principal: Principal, webhook_id: str):
    """Un webhook de la empresa, sin su secreto."""
    return management.get_endpoint(principal, webhook_id)


@operation(
    bp,
    "PATCH",
    "/<string:webhook_id>",
    tag=TAG,
    summary="Cambiar un webhook",
    auth=(JWT,),
    roles=ADMINS,
    body=WebhookChange,
    responses={200: WebhookOut, 404: _404},
    path_params=_ID,
)
def patch_webhook(principal: Principal, webhook_id: str, body: WebhookChange):
    """Cambia la URL, los eventos, la descripción o si está activo. Reactivarlo borra su racha de fallas."""
    return management.change(principal, webhook_id, body)


@operation(
    bp,
    "PUT",
    "/<string:webhook_id>",
    tag=TAG,
    summary="Reemplazar un webhook",
    auth=(JWT,),
    roles=ADMINS,
    body=WebhookReplace,
    responses={200: WebhookOut, 404: _404},
    path_params=_ID,
)
def put_webhook(principal: Principal, webhook_id: str, body: WebhookReplace):
    """Reemplaza URL, eventos, descripción y estado; el secreto no cambia (para eso, rotar-secreto)."""
    return management.change(principal, webhook_id, body)


@operation(
    bp,
    "DELETE",
    "/<string:webhook_id>",
    tag=TAG,
    summary="Borrar un webhook",
    auth=(JWT,),
    roles=ADMINS,
    responses={204: None, 404: _404},
    path_params=_ID,
)
def delete_webhook(principal: Principal, webhook_id: str):
    """Borra el webhook con sus entregas pendientes y su historial de intentos."""
    management.delete(principal, webhook_id)
    return Response(status=204)


@operation(
    bp,
    "POST",
    "/<string:webhook_id>/rotar-secreto",
    tag=TAG,
    summary="Rotar el secreto de firma",
    auth=(JWT,),
    roles=ADMINS,
    body=SecretRotation,
    responses={200: SecretRotated, 404: _404},
    path_params=_ID,
)
def rotate_webhook_secret(principal: Principal, webhook_id: str, body: SecretRotation):
    """Un secreto nuevo, por única vez. Durante `solapamientoHoras` (24 si no se indica, hasta 168) cada
    entrega se firma con los dos: `webhook-signature` lleva dos firmas `v1,...` separadas por un espacio, y
    el receptor puede cambiar de secreto sin perder eventos."""
    return _no_store(management.rotate(principal, webhook_id, body.solapamientoHoras), 200)


@operation(
    bp,
    "POST",
    "/<string:webhook_id>/prueba",
    tag=TAG,
    summary="Enviar un evento de prueba",
    auth=(JWT,),
    roles=ADMINS,
    responses={202: TestSent, 404: _404, 409: "`webhook_inactivo`: el webhook está desactivado."},
    path_params=_ID,
)
def test_webhook(principal: Principal, webhook_id: str):
    """Encola un evento `webhook.prueba` solo para este webhook; su intento aparece en las entregas. Su cuerpo
    está en la sección `webhooks` de este documento (`webhook.prueba`)."""
    sent = management.send_test(principal, webhook_id)
    tasks.wake_delivery()
    return to_response(sent, 202)


@operation(
    bp,
    "GET",
    "/<string:webhook_id>/entregas",
    tag=TAG,
    summary="Los intentos de entrega",
    auth=(JWT,),
    roles=READERS,
    query=AttemptQuery,
    responses={200: AttemptPage, 404: _404},
    path_params=_ID,
)
def list_webhook_attempts(principal: Principal, webhook_id: str, query: AttemptQuery):
    """Cada intento, el más nuevo primero: momento, duración, estado HTTP, los primeros 500 caracteres de la
    respuesta, y el estado de su entrega (pendiente se reintentará con espera creciente durante un día)."""
    return management.attempts(principal, webhook_id, query)


def init_app(app: Flask) -> None:
    publishing.configure(tasks.wake_fan_out)
