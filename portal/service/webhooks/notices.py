"""What the admins are told about their webhooks."""

from __future__ import annotations

from portal.service import db
from portal.service.eventos.admin_mail import tell_admins
from portal.service.webhooks.models import WebhookEndpoint


def endpoint_disabled(endpoint: WebhookEndpoint) -> None:
    with db.new_session() as session:
        tell_admins(
            session,
            endpoint.company_id,
            "Webhook desactivado: no respondió durante un día",
            f"El webhook {endpoint.id} ({endpoint.url}) no aceptó ninguna entrega durante un día y quedó "
            "desactivado. Sus eventos pendientes no se entregarán.\n\n"
            "Revise el servidor que los recibe y vuelva a activarlo en el portal (Empresa > Webhooks) o con "
            f'PATCH /api/v1/webhooks/{endpoint.id} y {{"activo": true}}.\n',
        )
