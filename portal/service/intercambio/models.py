"""Tables of the exchange area: the directory of electronic issuers (DGI's ws_consultas) and its refreshes,
and the envelopes this company delivers to electronic receivers (sending.py) with each receipt's state there."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, Integer, String
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
    # migration 0081: the provider's technical contact (PROV variant) and where the entry came from.
    tech_email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    source: Mapped[str] = mapped_column(String(12), default="dgi", server_default="dgi")  # dgi | simulador


class DirectoryRefresh(Base):
    """One refresh of the directory: what was asked (`since`, DGI's Filtro_eFacRUCEmisorAudFchHora), how many
    entries came back, or why it failed. The next refresh asks for the changes since the last good one."""

    __tablename__ = "intercambio_actualizacion"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source: Mapped[str] = mapped_column(String(12))
    since: Mapped[datetime | None] = mapped_column(UtcDateTime())
    started_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, index=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    count: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(String(500))
