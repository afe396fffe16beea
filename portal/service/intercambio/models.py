"""Tables of the exchange area: the directory of electronic issuers (DGI's ws_consultas)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, String
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class ElectronicIssuerRow(Base):
    """One electronic issuer as DGI's directory lists it (EFACCONSULTARRUCEMISORES, its PROV variant adds the
    web-service URL). Every electronic issuer is also an electronic receiver."""

    __tablename__ = "intercambio_emisor"

    rut: Mapped[str] = mapped_column(String(12), primary_key=True)
    name: Mapped[str] = mapped_column(String(150))
    exchange_email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    ws_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    transition_from: Mapped[date | None] = mapped_column(Date, nullable=True)
    transition_to: Mapped[date | None] = mapped_column(Date, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
