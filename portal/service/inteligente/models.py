"""Tables of smart issuance: the issuance requests and the timeline of their states."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime

# preview -> confirmed -> issued; preview -> expired; confirmed -> failed; direct requests: created -> issued|failed
STATES = ("preview", "confirmed", "issued", "failed", "expired")
FINAL_STATES = ("issued", "failed", "expired")


class SmartRequest(Base):
    __tablename__ = "emision_inteligente"
    # The support list pages newest first per company (keyset on created_at, id); the minute sweep looks for
    # requests left `confirmed` (inteligente/recovery.py) without reading the whole table.
    __table_args__ = (
        Index("ix_emision_inteligente_company_created", "company_id", "created_at", "id"),
        Index("ix_emision_inteligente_state_updated", "state", "updated_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    mode: Mapped[str] = mapped_column(String(10))  # preview (two steps) or direct (one step)
    state: Mapped[str] = mapped_column(String(12))
    input_json: Mapped[dict] = mapped_column(JSON)
    draft_json: Mapped[dict] = mapped_column(JSON)
    draft_hash: Mapped[str] = mapped_column(String(64))
    totals_json: Mapped[dict] = mapped_column(JSON)
    inferences_json: Mapped[list] = mapped_column(JSON)
    warnings_json: Mapped[list] = mapped_column(JSON)
    preview_token: Mapped[str | None] = mapped_column(String(64))
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    cfe_id: Mapped[str | None] = mapped_column(String(40))
    error_code: Mapped[str | None] = mapped_column(String(60))
    error_message: Mapped[str | None] = mapped_column(Text)
    # The error as i18n.stored keeps it, said in each reader's language (migration 0363).
    error_message_texts: Mapped[dict | None] = mapped_column(JSON)
    created_by: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class SmartRequestEvent(Base):
    """One transition of a request: the state it reached, when, who, and why."""

    __tablename__ = "emision_inteligente_evento"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[str] = mapped_column(ForeignKey("emision_inteligente.id", ondelete="CASCADE"), index=True)
    state: Mapped[str] = mapped_column(String(12))
    at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    actor: Mapped[str] = mapped_column(String(254))
    detail: Mapped[str | None] = mapped_column(Text)
    # The detail as i18n.stored keeps it, said in each reader's language (migration 0363).
    detail_texts: Mapped[dict | None] = mapped_column(JSON)
    request_id_http: Mapped[str | None] = mapped_column(String(128))
