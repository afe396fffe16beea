"""The provider's own state: its sign-in sessions (server-side) and the access tokens revoked before expiry."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class ProviderSession(Base):
    """A browser signed in at the provider. The cookie carries a random id; only its SHA-256 is stored here,
    so ending the row ends the session everywhere, whatever copies of the cookie exist."""

    __tablename__ = "idp_session"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class RevokedAccessToken(Base):
    """An access token (by its `jti`) that must not be accepted any more, kept until it would have expired."""

    __tablename__ = "revoked_access_token"

    jti: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[int] = mapped_column(Integer, index=True)  # the token's `exp`, seconds since the epoch
