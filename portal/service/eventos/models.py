"""The events outbox: one row per event, written in the transaction of the change it reports."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base
from portal.sqltypes import UtcDateTime


class Event(Base):
    """Something that happened to a company (a receipt issued, DGI's verdict, a concern of the watch).

    Written with one INSERT in the transaction of the change, so an event exists exactly when its change
    committed. The worker fans it out to the company's webhook endpoints and sets `dispatched_at`."""

    __tablename__ = "evento"
    # The fan-out reads the events not yet dispatched, oldest first.
    __table_args__ = (Index("ix_evento_pendiente", "dispatched_at", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)  # evt_<32 hex>: the webhook-id
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    type: Mapped[str] = mapped_column(String(40))
    data: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    dispatched_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
