"""The service's core tables: companies, users, memberships, certificates, idempotency keys and the OIDC
provider's records.

Feature areas keep their own tables in their own packages (comprobante/models.py, apikeys/models.py, ...);
every one of them imports `Base` from portal.service.platform.db so Alembic sees a single metadata.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from authlib.integrations.sqla_oauth2 import (
    OAuth2AuthorizationCodeMixin,
    OAuth2ClientMixin,
    OAuth2TokenMixin,
)
from sqlalchemy import JSON, BigInteger, ForeignKey, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from portal.domain import roles
from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class Role(StrEnum):
    """What a member may do within one company (portal.domain.roles says each role and the groups of them)."""

    USUARIO = roles.USUARIO
    SOPORTE = roles.SOPORTE
    ADMIN = roles.ADMIN


class Company(Base):
    __tablename__ = "company"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rut: Mapped[str] = mapped_column(String(12), unique=True)
    razon_social: Mapped[str] = mapped_column(String(150))
    nombre_comercial: Mapped[str | None] = mapped_column(String(30))
    giro: Mapped[str | None] = mapped_column(String(60))
    telefono: Mapped[str | None] = mapped_column(String(20))
    correo: Mapped[str | None] = mapped_column(String(80))
    sucursal: Mapped[str | None] = mapped_column(String(20))
    cdg_dgi_sucursal: Mapped[int] = mapped_column(Integer, default=1)
    domicilio_fiscal: Mapped[str] = mapped_column(String(70))
    ciudad: Mapped[str] = mapped_column(String(30))
    departamento: Mapped[str] = mapped_column(String(30))
    # Printed on e-Tickets: "Puede verificar comprobante en <url>".
    verification_url: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    # Bumped by triggers on every change of the company, its settings, branches or certificates (migration
    # 0290): what a process keeps of them is used while this is unchanged (readcache). Never set by the code.
    cache_generation: Mapped[int] = mapped_column(BigInteger, server_default="0")

    memberships: Mapped[list[Membership]] = relationship(back_populates="company")
    certificates: Mapped[list[Certificate]] = relationship(back_populates="company")


class User(Base):
    __tablename__ = "user_account"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    password_hash: Mapped[str] = mapped_column(String(200))
    locale: Mapped[str] = mapped_column(String(10), default="es")
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)

    memberships: Mapped[list[Membership]] = relationship(back_populates="user")

    # authlib asks these of the resource owner.
    def get_user_id(self) -> str:
        return str(self.id)


class Membership(Base):
    __tablename__ = "membership"
    __table_args__ = (UniqueConstraint("user_id", "company_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(20))
    # Since when they are a member; empty for memberships made before it was recorded (migration 0430).
    created_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=utcnow)

    user: Mapped[User] = relationship(back_populates="memberships")
    company: Mapped[Company] = relationship(back_populates="memberships")


class Certificate(Base):
    """A company's signing certificate. The private key is stored encrypted (Fernet, key from secrets)."""

    __tablename__ = "certificate"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    cert_pem: Mapped[str] = mapped_column(Text)
    key_encrypted: Mapped[bytes] = mapped_column(LargeBinary)
    serial: Mapped[str] = mapped_column(String(80))
    subject: Mapped[str] = mapped_column(String(400))
    issuer: Mapped[str] = mapped_column(String(400))
    not_before: Mapped[datetime] = mapped_column(UtcDateTime())
    not_after: Mapped[datetime] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    # Retired ("dado de baja" by an admin, e.g. a compromised key): never signs again.
    retired_at: Mapped[datetime | None] = mapped_column(UtcDateTime())

    company: Mapped[Company] = relationship(back_populates="certificates")


class IdempotencyRecord(Base):
    """The first outcome of a request per (company, scope, Idempotency-Key), kept at least 24 hours.

    Shared by every endpoint that honours Idempotency-Key (`scope` tells them apart).
    """

    __tablename__ = "idempotency_key"
    __table_args__ = (UniqueConstraint("company_id", "scope", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(Integer)
    scope: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(255))
    request_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(12))  # in_progress | done
    response_status: Mapped[int | None] = mapped_column(Integer)
    response_body: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, index=True)


class OAuthClient(Base, OAuth2ClientMixin):
    __tablename__ = "oauth_client"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)


class OAuthAuthorizationCode(Base, OAuth2AuthorizationCodeMixin):
    __tablename__ = "oauth_code"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    user: Mapped[User] = relationship()


class OAuthToken(Base, OAuth2TokenMixin):
    """Issued tokens. Access tokens are JWTs checked by signature; the row exists for refresh and revocation."""

    __tablename__ = "oauth_token"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # A JWT is longer than the mixin's String(255).
    access_token: Mapped[str] = mapped_column(Text, nullable=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    user: Mapped[User] = relationship()

    def is_refresh_token_active(self) -> bool:
        import time

        if self.is_revoked():
            return False
        return self.issued_at + self.refresh_token_lifetime > time.time()

    refresh_token_lifetime: Mapped[int] = mapped_column(Integer, default=12 * 3600)
