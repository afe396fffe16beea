"""What the webhooks endpoints do: register, change, delete and rotate endpoints, send a test event, and list
the attempts. Every record is the caller's company's; another company's id is a 404."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from flask import current_app
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from portal.service.eventos import publishing
from portal.service.eventos.catalogue import EVENTS
from portal.service.eventos.models import Event
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _, said_or, say
from portal.service.webhooks import guard, signing
from portal.service.webhooks.models import PENDING, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from portal.service.webhooks.schemas import (
    AttemptOut,
    AttemptPage,
    AttemptQuery,
    SecretRotated,
    TestSent,
    WebhookChange,
    WebhookCreate,
    WebhookCreated,
    WebhookOut,
    WebhookReplace,
)

MAX_ENDPOINTS = 20


def _now() -> datetime:
    return datetime.now(UTC)


def out(endpoint: WebhookEndpoint) -> WebhookOut:
    now = _now()
    overlap = endpoint.previous_secret_until
    return WebhookOut(
        id=endpoint.id,
        url=endpoint.url,
        eventos=list(endpoint.events),
        descripcion=endpoint.description,
        activo=endpoint.active,
        motivoDesactivado=say(endpoint.disabled_reason) if endpoint.disabled_reason else None,  # a catalogue entry
        desactivadoEn=endpoint.disabled_at,
        fallandoDesde=endpoint.failing_since,
        ultimaEntregaOk=endpoint.last_success_at,
        secretoAnteriorHasta=overlap if endpoint.previous_secret_encrypted and overlap and overlap > now else None,
        creado=endpoint.created_at,
    )


def checked_url(url: str) -> str:
    try:
        guard.check(url, allow_private=bool(current_app.config["WEBHOOKS_ALLOW_PRIVATE"]))
    except guard.UnsafeUrl as exc:
        raise ValidationFailed([FieldError("url", exc.code, exc.message)], message=_("No se admite esa URL.")) from exc
    return url


def _events(names: list[str]) -> list[str]:
    return sorted(set(names), key=list(EVENTS).index)


def _get(session: Session, principal: Principal, endpoint_id: str) -> WebhookEndpoint:
    endpoint = session.get(WebhookEndpoint, endpoint_id)
    if endpoint is None or endpoint.company_id != principal.company_id:
        raise NotFound(_("No existe ese webhook en la empresa."))
    return endpoint


def list_endpoints(principal: Principal) -> list[WebhookOut]:
    session = db.session()
    rows = session.scalars(
        select(WebhookEndpoint)
        .where(WebhookEndpoint.company_id == principal.company_id)
        .order_by(WebhookEndpoint.created_at.desc())
    )
    return [out(e) for e in rows]


def get_endpoint(principal: Principal, endpoint_id: str) -> WebhookOut:
    return out(_get(db.session(), principal, endpoint_id))


def create(principal: Principal, body: WebhookCreate) -> WebhookCreated:
    url = checked_url(body.url)
    secret = signing.new_secret()
    now = _now()
    with db.write_transaction() as session:
        count = len(
            session.scalars(select(WebhookEndpoint.id).where(WebhookEndpoint.company_id == principal.company_id)).all()
        )
        if count >= MAX_ENDPOINTS:
            raise ValidationFailed(
                [FieldError("url", "too_many", _("Una empresa tiene a lo sumo {n} webhooks.", n=MAX_ENDPOINTS))],
                message=_("No se pueden agregar más webhooks."),
            )
        endpoint = WebhookEndpoint(
            id=f"we_{uuid.uuid4().hex[:24]}",
            company_id=principal.company_id,
            url=url,
            description=body.descripcion,
            events=_events(list(body.eventos)),
            secret_encrypted=signing.seal(secret),
            active=True,
            created_by=principal.actor,
            created_at=now,
            updated_at=now,
        )
        session.add(endpoint)
        session.flush()
        return WebhookCreated(**out(endpoint).model_dump(), secreto=secret)


def change(principal: Principal, endpoint_id: str, body: WebhookChange | WebhookReplace) -> WebhookOut:
    url = checked_url(body.url) if body.url is not None else None
    with db.write_transaction() as session:
        endpoint = _get(session, principal, endpoint_id)
        if url is not None:
            endpoint.url = url
        if body.eventos is not None:
            endpoint.events = _events(list(body.eventos))
        if body.descripcion is not None:
            endpoint.description = body.descripcion
        if body.activo is not None and body.activo != endpoint.active:
            endpoint.active = body.activo
            if body.activo:  # a fresh start: the failing streak and the reason are history
                endpoint.disabled_reason = endpoint.disabled_at = endpoint.failing_since = None
            else:
                endpoint.disabled_reason, endpoint.disabled_at = _("Desactivado por un administrador."), _now()
        endpoint.updated_at = _now()
        session.flush()
        return out(endpoint)


def delete(principal: Principal, endpoint_id: str) -> None:
    with db.write_transaction() as session:
        session.delete(_get(session, principal, endpoint_id))


def rotate(principal: Principal, endpoint_id: str, overlap_hours: int) -> SecretRotated:
    secret = signing.new_secret()
    now = _now()
    with db.write_transaction() as session:
        endpoint = _get(session, principal, endpoint_id)
        if overlap_hours > 0:
            endpoint.previous_secret_encrypted = endpoint.secret_encrypted
            endpoint.previous_secret_until = now + timedelta(hours=overlap_hours)
        else:
            endpoint.previous_secret_encrypted = endpoint.previous_secret_until = None
        endpoint.secret_encrypted, endpoint.updated_at = signing.seal(secret), now
        return SecretRotated(id=endpoint.id, secreto=secret, secretoAnteriorHasta=endpoint.previous_secret_until)


def send_test(principal: Principal, endpoint_id: str) -> TestSent:
    """A `webhook.prueba` event for this endpoint alone (not fanned out to the others), queued at once."""
    now = _now()
    with db.write_transaction() as session:
        endpoint = _get(session, principal, endpoint_id)
        if not endpoint.active:  # its delivery would be dropped unsent: say so instead of queueing it
            raise Conflict(_("El webhook está desactivado: activalo para probarlo."), code="webhook_inactivo")
        event_id = publishing.new_event_id()
        session.execute(
            insert(Event).values(
                id=event_id,
                company_id=principal.company_id,
                type="webhook.prueba",
                data={"idWebhook": endpoint.id, "mensaje": "Evento de prueba."},
                created_at=now,
                dispatched_at=now,
            )
        )
        delivery = WebhookDelivery(
            endpoint_id=endpoint.id,
            company_id=principal.company_id,
            event_id=event_id,
            event_type="webhook.prueba",
            state=PENDING,
            attempts=0,
            next_attempt_at=now,
            created_at=now,
        )
        session.add(delivery)
        session.flush()
        return TestSent(idEvento=event_id, idEntrega=delivery.id)


def attempts(principal: Principal, endpoint_id: str, query: AttemptQuery) -> AttemptPage:
    session = db.session()
    _get(session, principal, endpoint_id)
    statement = (
        select(WebhookAttempt, WebhookDelivery.state)
        .join(WebhookDelivery, WebhookDelivery.id == WebhookAttempt.delivery_id)
        .where(WebhookAttempt.endpoint_id == endpoint_id)
        .order_by(WebhookAttempt.id.desc())
        .limit(query.limite + 1)
    )
    if query.cursor:
        statement = statement.where(WebhookAttempt.id < int(query.cursor))
    rows = session.execute(statement).all()
    items = [
        AttemptOut(
            id=a.id,
            idEntrega=a.delivery_id,
            idEvento=a.event_id,
            tipo=a.event_type,
            momento=a.attempted_at,
            duracionMs=a.duration_ms,
            estadoHttp=a.status_code,
            ok=a.ok,
            error=said_or(a.error_texts, a.error),
            respuesta=a.response_head,
            estadoEntrega=state,
        )
        for a, state in rows[: query.limite]
    ]
    more = len(rows) > query.limite
    return AttemptPage(items=items, siguienteCursor=str(items[-1].id) if more else None)
