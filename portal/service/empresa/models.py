"""Tables of the empresa area: the company's fiscal settings and logo, its DGI branches, and the audit trail.

The company's name, RUT and verification URL stay on `company` (core); certificates and CAE ranges keep
their own tables (core and comprobante). This area adds what issuing and printing need beyond them.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class CompanySettings(Base):
    """One row per company, created on first change; a company without one uses the defaults."""

    __tablename__ = "empresa_config"

    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), primary_key=True)
    regimen: Mapped[str] = mapped_column(String(20), default="general")
    norma_exoneracion: Mapped[str | None] = mapped_column(String(100))
    # The printed authorisation: DGI's resolution ("1234/2020") or the date the company entered the regime.
    resolucion: Mapped[str | None] = mapped_column(String(20))
    fecha_emisor: Mapped[date | None] = mapped_column(Date)
    iva_al_dia: Mapped[bool] = mapped_column(Boolean, default=True)
    formato_papel: Mapped[str] = mapped_column(String(5), default="a4")
    logo: Mapped[bytes | None] = mapped_column(LargeBinary)
    logo_tipo: Mapped[str | None] = mapped_column(String(20))  # image/png | image/jpeg
    logo_ancho: Mapped[int | None] = mapped_column(Integer)
    logo_alto: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    updated_by: Mapped[str | None] = mapped_column(String(254))


class Branch(Base):
    """A DGI branch (CdgDGISucur, A-C47) from which receipts are issued, with its printed address."""

    __tablename__ = "empresa_sucursal"
    __table_args__ = (UniqueConstraint("company_id", "codigo"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    codigo: Mapped[int] = mapped_column(Integer)
    nombre: Mapped[str] = mapped_column(String(20))
    domicilio: Mapped[str] = mapped_column(String(70))
    ciudad: Mapped[str] = mapped_column(String(30))
    departamento: Mapped[str] = mapped_column(String(30))
    predeterminada: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    # Retired ("dada de baja"): kept for the receipts issued from it, never offered or used again.
    retired_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class AuditEvent(Base):
    """One change to the company's settings: who, when, what, and each field's value before and after.

    Secrets never get here: a certificate is recorded by subject, serial and expiry, never its key or
    password; a logo by its type and size, not its bytes.
    """

    __tablename__ = "empresa_evento"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    actor: Mapped[str] = mapped_column(String(254))
    action: Mapped[str] = mapped_column(String(30))
    target: Mapped[str | None] = mapped_column(String(120))
    changes: Mapped[dict] = mapped_column(JSON)
