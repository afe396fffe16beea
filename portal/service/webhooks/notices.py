"""What the admins are told about their webhooks: a disabled endpoint is an e-mail to the admins and a notice
in the portal's notification centre."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlsplit

from portal.service.eventos.admin_mail import tell_admins
from portal.service.platform import db
from portal.service.platform.i18n import _
from portal.service.salud.models import Notice
from portal.service.salud.notices import texts
from portal.service.webhooks.models import WebhookEndpoint


def endpoint_disabled(endpoint: WebhookEndpoint) -> None:
    # Every member reads the notice, only admins and support the webhook: its query (often the receiver's own
    # token) stays out of the notice; the admins' mail names it whole.
    parts = urlsplit(endpoint.url)
    shown = f"{parts.scheme}://{parts.netloc}{parts.path}"
    shown = shown if len(shown) <= 300 else shown[:299] + "…"  # the sentence fits the notice
    sentence = _("El webhook {url} no aceptó ninguna entrega durante un día y quedó desactivado.", url=shown)
    action = _("Revisar y reactivar el webhook")
    with db.write_transaction() as session:
        session.add(
            Notice(
                company_id=endpoint.company_id,
                key=f"webhook:{endpoint.id}",
                kind="webhook",
                state="problem",
                message=sentence,
                action=action,
                link=f"/webhooks/{endpoint.id}",
                created_at=datetime.now(UTC),
                texts=texts(sentence, action),
            )
        )
    with db.new_session() as session:
        tell_admins(
            session,
            endpoint.company_id,
            _("Webhook desactivado: no respondió durante un día"),
            _(
                "El webhook {url} no aceptó ninguna entrega durante un día y quedó desactivado. Sus eventos"
                " pendientes no se entregarán.",
                url=endpoint.url,
            ),
            _(
                "Revisá el servidor que los recibe y volvé a activarlo en el portal (Webhooks) o con"
                " PATCH /api/v1/webhooks/{id} y {cuerpo}.",
                id=endpoint.id,
                cuerpo='{"activo": true}',  # JSON's braces as a value: no translation can lose or break them
            ),
        )
