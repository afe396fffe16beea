"""Tables of the clientes area: the company's customers, and how far each company's receipts were read into them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class Customer(Base):
    """A receiver the company sells to: identified as DGI identifies receivers (document type, country and
    document), with what the company keeps about it."""

    __tablename__ = "cliente"
    __table_args__ = (
        UniqueConstraint("company_id", "doc_type", "country", "document"),
        # The list's order (name, then id) and its search by the start of the name.
        Index("ix_cliente_nombre", "company_id", "search_name", "id"),
        Index("ix_cliente_documento", "company_id", "document"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    doc_type: Mapped[int] = mapped_column(Integer)  # tipoDocRecep: 2 RUT, 3 CI, 4 other, 5 passport, 6 DNI, 7 NIFE
    country: Mapped[str] = mapped_column(String(2))
    document: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(150))
    search_name: Mapped[str] = mapped_column(String(150))  # comprobante.search.folded(name)
    address: Mapped[str | None] = mapped_column(String(70))
    city: Mapped[str | None] = mapped_column(String(30))
    department: Mapped[str | None] = mapped_column(String(30))
    email: Mapped[str | None] = mapped_column(String(254))  # where its receipts are sent
    currency: Mapped[str] = mapped_column(String(3), default="UYU")
    payment_terms: Mapped[int] = mapped_column(Integer, default=1)  # FmaPago: 1 cash, 2 credit
    credit_days: Mapped[int | None] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(12))  # "comprobante" (from a receipt) or "manual"
    last_receipt_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)


class CustomerWatermark(Base):
    """The creation moment of the newest receipt of the company already read into its customers."""

    __tablename__ = "cliente_lectura"

    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), primary_key=True)
    read_until: Mapped[datetime] = mapped_column(UtcDateTime())
