"""Tables of the productos area."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Boolean, ForeignKey, Index, Integer, Numeric, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class Product(Base):
    """A product or service the company sells, as a receipt's line takes it (B-C7 code, B-C8 name, B-C10
    unit, B-C11 unit price, B-C4 IVA indicator)."""

    __tablename__ = "producto"
    __table_args__ = (
        UniqueConstraint("company_id", "code"),
        Index("ix_producto_nombre", "company_id", "search_name", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    code: Mapped[str] = mapped_column(String(35))
    name: Mapped[str] = mapped_column(String(80))
    search_name: Mapped[str] = mapped_column(String(80))  # catalog.search_name(name)
    unit: Mapped[str | None] = mapped_column(String(4))
    price: Mapped[Decimal] = mapped_column(Numeric(17, 6))
    price_includes_iva: Mapped[bool] = mapped_column(Boolean, default=False)
    ind_fact: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3), default="UYU")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
