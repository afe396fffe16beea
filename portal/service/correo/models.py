"""Tables of the Correo area: each e-mail send of a receipt, committed before any attempt is made."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime

QUEUED = "en_cola"
SENDING = "enviando"
SENT = "enviado"
FAILED = "fallido"


class MailSend(Base):
    """One send of a receipt to a list of addresses: who asked, when, and what became of it.

    The row is the truth; the background task only acts on it. `lease_until` marks an attempt in progress,
    so two workers woken for the same send never both deliver it, and one that died mid-attempt is retried
    once the lease runs out.
    """

    __tablename__ = "correo_envio"
    __table_args__ = (
        Index("ix_correo_envio_cfe", "company_id", "cfe_id", "created_at"),
        # The sweep looks for sends still waiting whose time has come.
        Index("ix_correo_envio_pendientes", "state", "next_attempt_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    cfe_id: Mapped[str] = mapped_column(ForeignKey("cfe_emitido.id", ondelete="CASCADE"))
    recipients: Mapped[list] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(12), default=QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(500))
    # The error as i18n.stored keeps it, said in each reader's language (migration 0364).
    last_error_texts: Mapped[dict | None] = mapped_column(JSON)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    message_id: Mapped[str | None] = mapped_column(String(255))
    created_by: Mapped[str] = mapped_column(String(254))
    request_id: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class MailTemplate(Base):
    """A company's own subject and text of the e-mail that carries a receipt (placeholders such as
    {comprobante} are filled per receipt by portal.service.correo.message). No row: the product's default."""

    __tablename__ = "correo_plantilla"

    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), primary_key=True)
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(String(4000))
    updated_by: Mapped[str] = mapped_column(String(254))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
