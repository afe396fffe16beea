"""The event catalogue (`GET /api/v1/eventos`): what a webhook can hear, for integrators and the portal."""

from __future__ import annotations

from flask import Blueprint

from portal.domain.roles import READERS
from portal.service.eventos.catalogue import EVENTS
from portal.service.eventos.schemas import EventCatalogue, EventType
from portal.service.platform.api import operation
from portal.service.platform.auth import JWT, Principal
from portal.service.platform.i18n import say

bp = Blueprint("eventos", __name__, url_prefix="/api/v1/eventos")


@operation(
    bp,
    "GET",
    "",
    tag="Webhooks",
    summary="Los eventos que se pueden escuchar",
    auth=(JWT,),
    roles=READERS,
    responses={200: EventCatalogue},
)
def list_event_types(principal: Principal):
    """Cada evento con lo que significa. Los datos de cada uno llevan identificadores y estados, nunca secretos:
    el cuerpo que recibe el webhook por cada evento está en la sección `webhooks` de este documento."""
    return EventCatalogue(
        items=[EventType(nombre=n, descripcion=say(d)) for n, d in EVENTS.items() if n != "webhook.prueba"]
    )
