"""Tables of the Indices area: the Unidad Indexada DGI's Tabla E uses for each calendar year."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Boolean, Integer, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class UiValue(Base):
    """The UI in pesos that applies to receipts issued in `year`: INE's quote of 31 December of the year
    before ("cotización vigente al cierre del año civil anterior", DGI Tabla E)."""

    __tablename__ = "ui_value"

    year: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    value: Mapped[Decimal] = mapped_column(Numeric(10, 4))
    source: Mapped[str] = mapped_column(String(300))
    verified: Mapped[bool] = mapped_column(Boolean, default=False)  # checked against INE's publication
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
