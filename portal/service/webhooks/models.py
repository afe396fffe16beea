"""Tables of the webhooks area: a company's endpoints, each event's delivery to each endpoint, and every
attempt of a delivery (what the endpoint answered, how long it took)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base
from portal.sqltypes import UtcDateTime

PENDING = "pendiente"
DELIVERED = "entregada"
FAILED = "fallida"  # retried for a day, or its endpoint was disabled


class WebhookEndpoint(Base):
    """An HTTPS (or HTTP) URL of the company's that hears some events. The signing secret is kept encrypted
    (the field key, as certificates' keys): signing needs the secret itself, not a hash. During a rotation the
    previous secret also signs until `previous_secret_until`."""

    __tablename__ = "webhook_destino"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)  # we_<24 hex>
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2000))
    description: Mapped[str] = mapped_column(String(200))
    events: Mapped[list] = mapped_column(JSON)
    secret_encrypted: Mapped[bytes] = mapped_column(LargeBinary)
    previous_secret_encrypted: Mapped[bytes | None] = mapped_column(LargeBinary)
    previous_secret_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    active: Mapped[bool] = mapped_column(Boolean)
    disabled_reason: Mapped[str | None] = mapped_column(String(300))
    disabled_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    # The first failed attempt with no success after it: a day of that disables the endpoint.
    failing_since: Mapped[datetime | None] = mapped_column(UtcDateTime())
    last_success_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_by: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class WebhookDelivery(Base):
    """One event to one endpoint, until it is delivered (a 2xx) or given up after a day of retries."""

    __tablename__ = "webhook_entrega"
    __table_args__ = (
        Index("ix_webhook_entrega_pendientes", "state", "next_attempt_at"),
        Index("ix_webhook_entrega_destino", "endpoint_id", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_destino.id", ondelete="CASCADE"))
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(ForeignKey("evento.id", ondelete="CASCADE"))
    event_type: Mapped[str] = mapped_column(String(40))
    state: Mapped[str] = mapped_column(String(12))
    attempts: Mapped[int] = mapped_column(Integer)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime())
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class WebhookAttempt(Base):
    """One HTTP attempt of a delivery, as the admin sees it in "entregas"."""

    __tablename__ = "webhook_intento"
    __table_args__ = (Index("ix_webhook_intento_destino", "endpoint_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    delivery_id: Mapped[int] = mapped_column(ForeignKey("webhook_entrega.id", ondelete="CASCADE"), index=True)
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_destino.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(String(40))
    event_type: Mapped[str] = mapped_column(String(40))
    attempted_at: Mapped[datetime] = mapped_column(UtcDateTime())
    duration_ms: Mapped[int] = mapped_column(Integer)
    status_code: Mapped[int | None] = mapped_column(Integer)
    ok: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(String(300))
    # The error as i18n.stored keeps it, said in each reader's language; None before migration 0340 (Spanish).
    error_texts: Mapped[dict | None] = mapped_column(JSON)
    response_head: Mapped[str | None] = mapped_column(String(500))
