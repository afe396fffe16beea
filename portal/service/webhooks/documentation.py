"""The OpenAPI document's `webhooks` section: one POST per event the service delivers, its body (eventos/payloads.py),
the headers delivery.py and signing.py send, and what the service does with the answer (delivery.py's retries).
Registered at import (webhooks/routes.py imports it); the document says what the defaults of the settings do."""

from __future__ import annotations

from portal.service.eventos.catalogue import EVENTS
from portal.service.eventos.payloads import DELIVERIES, delivery_examples
from portal.service.platform.openapi import Webhook, webhook

SIGNATURE = (
    "Firma Standard Webhooks: `v1,` y el HMAC-SHA256 en base64 de `{webhook-id}.{webhook-timestamp}.{cuerpo}` "
    "(el cuerpo tal como llegó, sin volver a serializarlo), con la clave que resulta de decodificar en base64 lo que "
    "sigue a `whsec_` en el secreto del webhook. Durante la superposición de una rotación de secreto lleva dos firmas "
    "separadas por un espacio (la del secreto nuevo y la del anterior): vale la entrega si alguna coincide. Comparar "
    "en tiempo constante y rechazar un `webhook-timestamp` a más de 5 minutos de la hora actual (repetición). Las "
    "bibliotecas `standardwebhooks` lo hacen: `Webhook(secreto).verify(cuerpo, encabezados)`."
)
HEADERS: dict[str, dict] = {
    "webhook-id": {
        "description": "Identificador del evento (`evt_` y 32 hexadecimales), igual al `id` del cuerpo. Es el mismo en "
        "cada reintento: la entrega es al menos una vez, así que sirve para descartar duplicados.",
        "schema": {"type": "string", "pattern": "^evt_[0-9a-f]{32}$"},
    },
    "webhook-timestamp": {
        "description": "Momento del intento, en segundos desde 1970-01-01 UTC (entero); entra en la firma.",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    "webhook-signature": {
        "description": SIGNATURE,
        "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$"},
    },
    "content-type": {
        "description": "Siempre JSON en UTF-8.",
        "schema": {"type": "string", "enum": ["application/json"]},
    },
    "user-agent": {
        "description": "El remitente de las entregas.",
        "schema": {"type": "string", "examples": ["cfe-portal-webhooks/1"]},
    },
}
RESPONSES: dict[str, dict] = {
    "2XX": {
        "description": "Entregado: cualquier estado 2xx, dentro de 10 segundos. El cuerpo de la respuesta no se lee "
        "(se guardan sus primeros 500 caracteres en los intentos de entrega)."
    },
    "default": {
        "description": "Cualquier otra respuesta (también una redirección, que no se sigue), o ninguna en 10 segundos, "
        "es un intento fallido: se reintenta con espera creciente (10 s, 40 s, 160 s..., cuatro veces más cada vez, "
        "como mucho 4 horas entre intentos) hasta 24 horas después del evento; entonces la entrega queda fallida. "
        "Un webhook cuyos intentos fallan todos durante 24 horas se desactiva y se avisa a los administradores. "
        "Los intentos se ven en `GET /api/v1/webhooks/{webhook_id}/entregas`."
    },
}
COMMON = (
    "El servicio envía un POST a la URL del webhook por cada evento que escucha. Responder 2xx pronto y procesar "
    "después: el orden de llegada no está garantizado y un evento puede llegar más de una vez (mismo `webhook-id`). "
    "Los datos llevan identificadores y estados, nunca secretos ni el comprobante entero: lo demás se pide a la API."
)


def _register() -> None:
    for name, body in DELIVERIES.items():
        if name == "webhook.prueba":
            meaning = "Lo envía solo «enviar prueba» (`POST /api/v1/webhooks/{webhook_id}/prueba`), a ese webhook."
        else:
            meaning = "Se escucha eligiéndolo en `eventos` del webhook."
        summary = str(EVENTS[name])  # the catalogue's Spanish msgid: the document's language
        description = f"{summary} {meaning}\n\n{COMMON}"
        webhook(Webhook(name, summary, description, body, "Webhooks", HEADERS, RESPONSES, delivery_examples(name)))


_register()
