"""Tables of the exchange area: the directory of electronic issuers (DGI's ws_consultas) and its refreshes,
and the envelopes this company delivers to electronic receivers (sending.py) with each receipt's state there."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
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
    # Why it failed, in Spanish, for support and the logs: no answer shows it (the watch reads only whether it is
    # set); DirectoryUnavailable carries a catalogue message for one that would.
    error: Mapped[str | None] = mapped_column(String(500))


class ExchangeEnvelope(Base):
    """An EnvioCFE_entreEmpresas exactly as built (`xml`, never rebuilt) for one receiver, its delivery (state,
    failed attempts and when the last attempt was, the sender's lease or the next retry in `next_attempt_at`) and the
    receiver's ACKSobre.

    state: armado (built, maybe being delivered) -> entregado (the channel took it) | error (gave up: a
    permanent failure or too many attempts; support may retry)."""

    __tablename__ = "intercambio_sobre"
    __table_args__ = (UniqueConstraint("company_id", "idemisor"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    receiver_rut: Mapped[str] = mapped_column(String(12))
    idemisor: Mapped[int] = mapped_column(Integer)  # this company's own sequence of exchange envelopes
    file_name: Mapped[str] = mapped_column(String(60))
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    cfe_count: Mapped[int] = mapped_column(Integer)
    certificate_id: Mapped[int] = mapped_column(ForeignKey("certificate.id"))
    state: Mapped[str] = mapped_column(String(12), default="armado", index=True)
    channel: Mapped[str | None] = mapped_column(String(10))  # ws | correo, as the transport delivered it
    detail: Mapped[str | None] = mapped_column(String(500))  # the channel's answer
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(500))
    # The error as i18n.stored keeps it, said in each reader's language (migration 0360).
    last_error_texts: Mapped[dict | None] = mapped_column(JSON)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    # When the channel last answered an attempt (delivered or failed), written with that outcome (migration 0470);
    # NULL for envelopes tried before it was kept: unknown, and said so.
    last_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    ack_state: Mapped[str | None] = mapped_column(String(2))  # AS | BS
    ack_motives: Mapped[list] = mapped_column(JSON, default=list)
    ack_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    ack_xml: Mapped[bytes | None] = mapped_column(LargeBinary)
    id_receptor: Mapped[str | None] = mapped_column(String(10))


class ExchangeCfe(Base):
    """One receipt's road to its electronic receiver, recorded in the transaction that issues it.

    state: pendiente -> en_sobre -> enviado -> sobre_recibido (AS) | sobre_rechazado (BS) -> aceptado (AE) |
    rechazado (BE); error when its envelope could not be delivered for good."""

    __tablename__ = "intercambio_cfe"
    __table_args__ = (Index("ix_intercambio_cfe_company_state", "company_id", "state"),)

    cfe_id: Mapped[str] = mapped_column(ForeignKey("cfe_emitido.id", ondelete="CASCADE"), primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    receiver_rut: Mapped[str] = mapped_column(String(12))
    state: Mapped[str] = mapped_column(String(16), default="pendiente")
    envelope_id: Mapped[int | None] = mapped_column(ForeignKey("intercambio_sobre.id"), index=True)
    ordinal: Mapped[int | None] = mapped_column(Integer)
    motives: Mapped[list] = mapped_column(JSON, default=list)  # [{"codigo", "glosa", "detalle"}]
    commercial: Mapped[bool] = mapped_column(default=False)  # a BE with a commercial motive (E20-E60)
    note_id: Mapped[str | None] = mapped_column(
        String(40), index=True
    )  # the correcting credit note of a commercial rejection
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    packed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    envelope_answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    notice_id: Mapped[int | None] = mapped_column(ForeignKey("intercambio_aviso.id"))
    # migration 0460: the receiver's IDRespuesta of the ACKCFE that gave the verdict, and when a later ACKCFE of its
    # own confirmed an AE (a receiver acknowledges on arrival, then its accountant accepts: a second AE).
    answer_ref: Mapped[str | None] = mapped_column(String(20))
    confirmed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class DgiRejectionNotice(Base):
    """A CFEs_Anulados_x_RechazoDGI this company sent a receiver: receipts it had delivered that DGI then
    rejected (Motivo_Cod RD). Delivered like an envelope (operation NOTIFICACIONANULACIONCFE)."""

    __tablename__ = "intercambio_aviso"
    __table_args__ = (Index("uq_intercambio_aviso_id_comunicacion", "company_id", "id_comunicacion", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    # IDComunicacion: this company's own sequence of notices, in the file name Rech_<RUC>_<n>.xml (migration 0390).
    id_comunicacion: Mapped[int] = mapped_column(Integer)
    receiver_rut: Mapped[str] = mapped_column(String(12))
    file_name: Mapped[str] = mapped_column(String(60))
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    cfe_count: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(12), default="armado", index=True)
    channel: Mapped[str | None] = mapped_column(String(10))
    detail: Mapped[str | None] = mapped_column(String(500))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(500))
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class SenderNumbering(Base):
    """The company's counters of what it numbers for its electronic receivers: the last Idemisor given to an
    envelope and the last IDComunicacion given to a DGI-rejection notice. A row per company, bumped with
    `platform.counters.take` in the transaction that stores the envelope or the notice (migration 0390), so two
    packers or two notice runs for the same company at once take their numbers in turn."""

    __tablename__ = "intercambio_numeracion"

    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), primary_key=True)
    last_idemisor: Mapped[int] = mapped_column(Integer, default=0)
    last_id_comunicacion: Mapped[int] = mapped_column(Integer, default=0)
