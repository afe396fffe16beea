"""Tables of the compliance watch: each concern's last verdict per company (to see what changed), the
notices shown in the portal's notification centre, and who has read which."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base
from portal.service.salud.concerns import State
from portal.sqltypes import UtcDateTime


class ConcernState(Base):
    """The last verdict on one concern of a company. `signature` (state and threshold) changing to a warning
    or a problem is news: a notice, a webhook event where one exists, and the admins' digest (at most once a
    day per concern, `mailed_at`)."""

    __tablename__ = "salud_estado"
    __table_args__ = (UniqueConstraint("company_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(60))
    kind: Mapped[str] = mapped_column(String(30))
    state: Mapped[State] = mapped_column(String(10))
    signature: Mapped[str] = mapped_column(String(20))
    message: Mapped[str] = mapped_column(String(400))
    action: Mapped[str] = mapped_column(String(80))
    link: Mapped[str] = mapped_column(String(200))
    facts: Mapped[dict] = mapped_column(JSON)
    changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    checked_at: Mapped[datetime] = mapped_column(UtcDateTime())
    mailed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class Notice(Base):
    """A notice of the notification centre: a concern that turned to warning or problem."""

    __tablename__ = "aviso"
    __table_args__ = (Index("ix_aviso_empresa", "company_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(60))
    kind: Mapped[str] = mapped_column(String(30))
    state: Mapped[State] = mapped_column(String(10))
    message: Mapped[str] = mapped_column(String(400))
    action: Mapped[str] = mapped_column(String(80))
    link: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # The message and the action as i18n.stored keeps them ({"mensaje": ..., "accion": ...}), so that each reader
    # is told them in their language; None on notices older than migration 0330 (said in Spanish).
    texts: Mapped[dict | None] = mapped_column(JSON)


class NoticeRead(Base):
    """That one person has read one notice (read and unread are per user)."""

    __tablename__ = "aviso_leido"
    __table_args__ = (UniqueConstraint("notice_id", "user_email"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    notice_id: Mapped[int] = mapped_column(ForeignKey("aviso.id", ondelete="CASCADE"))
    user_email: Mapped[str] = mapped_column(String(254))
    read_at: Mapped[datetime] = mapped_column(UtcDateTime())
