"""Client methods of the webhooks endpoints, and their typed results."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import quote

from portal.client.models import JsonObject, optional_datetime, parse_datetime
from portal.client.transport import Transport

BASE = "/api/v1/webhooks"


@dataclass(frozen=True)
class EventType:
    name: str
    description: str


@dataclass(frozen=True)
class Webhook:
    id: str
    url: str
    events: tuple[str, ...]
    description: str
    active: bool
    created_at: datetime
    disabled_reason: str | None = None
    disabled_at: datetime | None = None
    failing_since: datetime | None = None
    last_success_at: datetime | None = None
    previous_secret_until: datetime | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> Webhook:
        return cls(
            id=data["id"],
            url=data["url"],
            events=tuple(data["eventos"]),
            description=data.get("descripcion", ""),
            active=bool(data["activo"]),
            created_at=parse_datetime(data["creado"]),
            disabled_reason=data.get("motivoDesactivado"),
            disabled_at=optional_datetime(data.get("desactivadoEn")),
            failing_since=optional_datetime(data.get("fallandoDesde")),
            last_success_at=optional_datetime(data.get("ultimaEntregaOk")),
            previous_secret_until=optional_datetime(data.get("secretoAnteriorHasta")),
        )


@dataclass(frozen=True)
class NewSecret:
    """A signing secret the service shows this once (a webhook created, or its secret rotated)."""

    webhook: Webhook | None
    webhook_id: str
    secret: str = field(repr=False)
    previous_valid_until: datetime | None = None


@dataclass(frozen=True)
class WebhookRequest:
    """What a webhook is: its URL, the events it hears and a description."""

    url: str
    events: tuple[str, ...]
    description: str = ""
    active: bool | None = None

    def to_json(self) -> JsonObject:
        body: JsonObject = {"url": self.url, "eventos": list(self.events), "descripcion": self.description}
        if self.active is not None:
            body["activo"] = self.active
        return body


@dataclass(frozen=True)
class DeliveryAttempt:
    id: int
    delivery_id: int
    event_id: str
    event_type: str
    at: datetime
    duration_ms: int
    ok: bool
    delivery_state: str  # pendiente | entregada | fallida
    status: int | None = None
    error: str | None = None
    answer: str | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> DeliveryAttempt:
        return cls(
            id=int(data["id"]),
            delivery_id=int(data["idEntrega"]),
            event_id=data["idEvento"],
            event_type=data["tipo"],
            at=parse_datetime(data["momento"]),
            duration_ms=int(data["duracionMs"]),
            ok=bool(data["ok"]),
            delivery_state=data["estadoEntrega"],
            status=data.get("estadoHttp"),
            error=data.get("error"),
            answer=data.get("respuesta"),
        )


@dataclass(frozen=True)
class AttemptPage:
    items: tuple[DeliveryAttempt, ...]
    next_cursor: str | None


class WebhooksApi(Transport):
    """The webhooks endpoints (Bearer JWT; admins manage, soporte reads)."""

    def list_event_types(self) -> tuple[EventType, ...]:
        data = self._json("GET", "/api/v1/eventos")
        return tuple(EventType(e["nombre"], e["descripcion"]) for e in data["items"])

    def list_webhooks(self) -> tuple[Webhook, ...]:
        return tuple(Webhook.from_json(w) for w in self._json("GET", BASE)["items"])

    def get_webhook(self, webhook_id: str) -> Webhook:
        return Webhook.from_json(self._json("GET", f"{BASE}/{quote(webhook_id, safe='')}"))

    def create_webhook(self, request: WebhookRequest) -> NewSecret:
        data = self._json("POST", BASE, json={k: v for k, v in request.to_json().items() if k != "activo"})
        webhook = Webhook.from_json(data)
        return NewSecret(webhook, webhook.id, data["secreto"])

    def update_webhook(self, webhook_id: str, request: WebhookRequest) -> Webhook:
        """Replace the webhook's URL, events, description (and state, if given); the secret stays."""
        body = request.to_json()
        if request.active is None:
            return Webhook.from_json(self._json("PATCH", f"{BASE}/{quote(webhook_id, safe='')}", json=body))
        return Webhook.from_json(self._json("PUT", f"{BASE}/{quote(webhook_id, safe='')}", json=body))

    def set_webhook_active(self, webhook_id: str, active: bool) -> Webhook:
        path = f"{BASE}/{quote(webhook_id, safe='')}"
        return Webhook.from_json(self._json("PATCH", path, json={"activo": active}))

    def delete_webhook(self, webhook_id: str) -> None:
        self._request("DELETE", f"{BASE}/{quote(webhook_id, safe='')}")

    def rotate_webhook_secret(self, webhook_id: str, overlap_hours: int = 24) -> NewSecret:
        path = f"{BASE}/{quote(webhook_id, safe='')}/rotar-secreto"
        data = self._json("POST", path, json={"solapamientoHoras": overlap_hours})
        return NewSecret(None, data["id"], data["secreto"], optional_datetime(data.get("secretoAnteriorHasta")))

    def send_webhook_test(self, webhook_id: str) -> str:
        """Queue a test event for this webhook; returns the event's id."""
        event_id: str = self._json("POST", f"{BASE}/{quote(webhook_id, safe='')}/prueba")["idEvento"]
        return event_id

    def list_webhook_attempts(self, webhook_id: str, *, limit: int = 20, cursor: str | None = None) -> AttemptPage:
        params: dict[str, str | int] = {"limite": limit}
        if cursor:
            params["cursor"] = cursor
        data = self._json("GET", f"{BASE}/{quote(webhook_id, safe='')}/entregas", params=params)
        return AttemptPage(tuple(DeliveryAttempt.from_json(a) for a in data["items"]), data.get("siguienteCursor"))
