"""The real client's webhooks and compliance-watch methods against a live service: typed results, the
request classes read back as sent, and mapped errors."""

from __future__ import annotations

import pytest

from portal.client import CfeClient, Forbidden, NotFound, ValidationError
from portal.client.salud import Health
from portal.client.webhooks import Webhook, WebhookRequest
from portal.service.salud import watch
from tests.support.envios import drain


@pytest.fixture
def as_user(live_service):
    from tests.conftest import mint_token

    client = CfeClient(live_service.url)
    return lambda email, company_id=1: client.as_user(mint_token(live_service.app, email), company_id=company_id)


def test_webhooks_round_trip(as_user, live_service):
    admin = as_user("admin@demo.uy")
    names = {e.name for e in admin.list_event_types()}
    assert "comprobante.emitido" in names and "webhook.prueba" not in names

    created = admin.create_webhook(WebhookRequest("https://example.com/hook", ("comprobante.emitido",), "ERP"))
    assert created.secret.startswith("whsec_") and "whsec_" not in repr(created)
    assert isinstance(created.webhook, Webhook) and created.webhook.events == ("comprobante.emitido",)
    changed = admin.update_webhook(
        created.webhook_id, WebhookRequest("https://example.com/v2", ("sobre.rechazado", "comprobante.aceptado"))
    )
    assert changed.url == "https://example.com/v2" and changed.events == ("comprobante.aceptado", "sobre.rechazado")
    replaced = admin.update_webhook(
        created.webhook_id, WebhookRequest("https://example.com/v3", ("reporte.rechazado",), "x", active=False)
    )
    assert replaced.active is False and replaced.description == "x"
    assert admin.set_webhook_active(created.webhook_id, True).active is True

    rotated = admin.rotate_webhook_secret(created.webhook_id, 6)
    assert rotated.secret != created.secret and rotated.previous_valid_until is not None
    assert admin.get_webhook(created.webhook_id).previous_secret_until == rotated.previous_valid_until

    event_id = admin.send_webhook_test(created.webhook_id)
    assert event_id.startswith("evt_")
    assert [w.id for w in admin.list_webhooks()] == [created.webhook_id]
    assert admin.list_webhook_attempts(created.webhook_id).items == ()

    with pytest.raises(ValidationError) as refused:
        admin.create_webhook(WebhookRequest("ftp://example.com/x", ("comprobante.emitido",)))
    assert [f.field for f in refused.value.fields] == ["url"]
    with pytest.raises(Forbidden):
        as_user("usuario@demo.uy").list_webhooks()
    admin.delete_webhook(created.webhook_id)
    with pytest.raises(NotFound):
        admin.get_webhook(created.webhook_id)


def test_health_and_notices(as_user, live_service):
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    with live_service.app.app_context(), db.write_transaction() as session:
        session.execute(
            update(Certificate)
            .where(Certificate.company_id == 1)
            .values(not_after=datetime.now(UTC) + timedelta(days=3))
        )
    with live_service.app.app_context():
        watch.run(1)
    drain(live_service.app)
    user = as_user("usuario@demo.uy")
    health = user.health()
    assert isinstance(health, Health) and health.state == "problem"
    assert health.attention[0].kind == "certificado" and health.attention[0].link == "/empresa/certificados"
    page = user.list_notices()
    assert page.unread == 1 and not page.items[0].read
    user.mark_notice_read(page.items[0].id)
    assert user.unread_notices() == 0 and as_user("admin@demo.uy").unread_notices() == 1
    as_user("admin@demo.uy").mark_all_notices_read()
    assert as_user("admin@demo.uy").unread_notices() == 0
    with pytest.raises(NotFound):
        user.mark_notice_read(999999)
