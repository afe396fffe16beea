"""Tables of the apikeys area: a company's API keys and the record of what was done to each.

The key itself is never stored: only HMAC-SHA256(pepper, key), looked up through a unique index. The row is
the truth about a key's state, read on every request, so a revocation holds at once in every process.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class ApiKey(Base):
    __tablename__ = "api_key"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # What the API and the portal call the key ("ak_" + 12 characters); not a secret.
    public_id: Mapped[str] = mapped_column(String(24), unique=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    # The key's first characters, enough to recognise it in a list, far too few to use it.
    prefix: Mapped[str] = mapped_column(String(24))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    rate_limit: Mapped[int] = mapped_column(Integer)
    rate_window_seconds: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    created_by: Mapped[str] = mapped_column(String(254))
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    revoked_by: Mapped[str | None] = mapped_column(String(254))

    events: Mapped[list[ApiKeyEvent]] = relationship(
        back_populates="api_key", order_by="ApiKeyEvent.id.desc()", cascade="all, delete-orphan"
    )

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class ApiKeyEvent(Base):
    """One create, revoke or rate-limit change: who, when, the value before and after."""

    __tablename__ = "api_key_event"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    api_key_id: Mapped[int] = mapped_column(ForeignKey("api_key.id", ondelete="CASCADE"), index=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    action: Mapped[str] = mapped_column(String(20))  # create | revoke | rate_limit
    actor: Mapped[str] = mapped_column(String(254))
    at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    old_value: Mapped[dict | None] = mapped_column(JSON)
    new_value: Mapped[dict | None] = mapped_column(JSON)

    api_key: Mapped[ApiKey] = relationship(back_populates="events")
