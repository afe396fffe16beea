"""Tables of the envios area: each receipt's road to DGI, the envelopes and daily reports we built (with their
exact bytes and DGI's answers), the voided number ranges, and the embedded DGI simulator's own memory.

The database is the truth. A receipt gets its `DgiSubmission` row in the same transaction that issues it;
an envelope's bytes are stored before they are sent, so after a crash the same bytes are resent (never a
new envelope for the same receipts).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from sqlalchemy import (
    JSON,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime

ReportState = Literal["armado", "aceptado", "rechazado", "error"]  # a daily report's
AckSignature = Literal["verificada", "invalida", "sin_certificado"]  # DGI's signature on an ack (ack_trust)


class DgiSubmission(Base):
    """One receipt's DGI state. `route` is "sobre" (sent one by one in an envelope) or "reporte" (an e-Ticket
    below the threshold, only summarised in the daily report). `state` (also copied to
    IssuedCfe.dgi_status) is one of STATES in portal/service/envios/states.py."""

    __tablename__ = "dgi_envio_cfe"
    __table_args__ = (Index("ix_dgi_envio_cfe_company_state", "company_id", "state"),)

    cfe_id: Mapped[str] = mapped_column(ForeignKey("cfe_emitido.id", ondelete="CASCADE"), primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    route: Mapped[str] = mapped_column(String(10))
    state: Mapped[str] = mapped_column(String(20))
    envelope_id: Mapped[int | None] = mapped_column(ForeignKey("dgi_sobre.id"), index=True)
    ordinal: Mapped[int | None] = mapped_column(Integer)  # Nro_ordinal within the envelope
    report_id: Mapped[int | None] = mapped_column(ForeignKey("dgi_reporte_diario.id"), index=True)
    motives: Mapped[list] = mapped_column(JSON, default=list)  # [{"codigo", "glosa", "detalle"}]
    corrects: Mapped[str | None] = mapped_column(String(40))  # the rejected receipt this one re-issues
    corrected_by: Mapped[str | None] = mapped_column(String(40))  # the receipt that re-issued this rejected one
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    packed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    received_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    reported_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    observations: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # CE answers (CFC)


class DgiEnvelope(Base):
    """An EnvioCFE exactly as built (`xml`), and DGI's two answers: ACKSobre, then ACKCFE."""

    __tablename__ = "dgi_sobre"
    __table_args__ = (UniqueConstraint("company_id", "idemisor"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    idemisor: Mapped[int] = mapped_column(Integer)
    file_name: Mapped[str] = mapped_column(String(60))
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    cfe_count: Mapped[int] = mapped_column(Integer)
    certificate_id: Mapped[int] = mapped_column(ForeignKey("certificate.id"))
    # armado (built, maybe sent) -> recibido (AS) -> respondido (ACKCFE) | rechazado (BS/BA) | error
    state: Mapped[str] = mapped_column(String(12), default="armado", index=True)
    ack_state: Mapped[str | None] = mapped_column(String(2))
    ack_motives: Mapped[list] = mapped_column(JSON, default=list)
    ack_xml: Mapped[bytes | None] = mapped_column(LargeBinary)
    # Whether ACKSobre (ack_) and ACKCFE (answer_) verify against DGI's trusted certificate (ack_trust.py).
    ack_signature: Mapped[AckSignature | None] = mapped_column(String(16))
    answer_signature: Mapped[AckSignature | None] = mapped_column(String(16))
    id_receptor: Mapped[str | None] = mapped_column(String(10))
    token: Mapped[str | None] = mapped_column(Text)
    query_after: Mapped[datetime | None] = mapped_column(UtcDateTime())
    answer_xml: Mapped[bytes | None] = mapped_column(LargeBinary)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(500))
    # The error (or S08 note) as i18n.stored keeps it, said in each reader's language (migration 0362).
    last_error_texts: Mapped[dict | None] = mapped_column(JSON)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    received_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class DgiDailyReport(Base):
    """A ReporteDiarioCFE as built and signed, and DGI's ACKRepDiario (AR / BR / BA)."""

    __tablename__ = "dgi_reporte_diario"
    __table_args__ = (UniqueConstraint("company_id", "fecha", "sec_envio"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    fecha: Mapped[date] = mapped_column(Date)
    sec_envio: Mapped[int] = mapped_column(Integer)
    file_name: Mapped[str] = mapped_column(String(60))
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    cfe_count: Mapped[int] = mapped_column(Integer)
    certificate_id: Mapped[int] = mapped_column(ForeignKey("certificate.id"))
    # armado -> aceptado (AR) | rechazado (BR/BA) | error
    state: Mapped[ReportState] = mapped_column(String(12), default="armado", index=True)
    ack_state: Mapped[str | None] = mapped_column(String(2))
    ack_motives: Mapped[list] = mapped_column(JSON, default=list)
    ack_xml: Mapped[bytes | None] = mapped_column(LargeBinary)
    ack_signature: Mapped[AckSignature | None] = mapped_column(String(16))  # as DgiEnvelope's
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(500))
    # The error as i18n.stored keeps it, said in each reader's language (migration 0362).
    last_error_texts: Mapped[dict | None] = mapped_column(JSON)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    created_by: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    answered_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class SimEnvelope(Base):
    """The simulator's record of an envelope it received, and the answers it gave (replayed on a resend)."""

    __tablename__ = "dgisim_sobre"
    __table_args__ = (UniqueConstraint("rut_emisor", "idemisor"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # IDReceptor
    rut_emisor: Mapped[str] = mapped_column(String(12))
    idemisor: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    token: Mapped[str] = mapped_column(String(100), unique=True)
    deliveries: Mapped[int] = mapped_column(Integer, default=1)
    ack_xml: Mapped[bytes] = mapped_column(LargeBinary)
    answer_xml: Mapped[bytes | None] = mapped_column(LargeBinary)
    ready_at: Mapped[datetime] = mapped_column(UtcDateTime())
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class SimCfe(Base):
    """A CFE the simulator has seen (accepted or rejected): the duplicate and reference checks read it."""

    __tablename__ = "dgisim_cfe"
    __table_args__ = (UniqueConstraint("rut_emisor", "tipo_cfe", "serie", "nro"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rut_emisor: Mapped[str] = mapped_column(String(12))
    tipo_cfe: Mapped[int] = mapped_column(Integer)
    serie: Mapped[str] = mapped_column(String(2))
    nro: Mapped[int] = mapped_column(Integer)
    envelope_id: Mapped[int] = mapped_column(ForeignKey("dgisim_sobre.id"))
    estado: Mapped[str] = mapped_column(String(2))
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class SimReport(Base):
    """A daily report the simulator received, and its answer."""

    __tablename__ = "dgisim_reporte"
    __table_args__ = (UniqueConstraint("rut_emisor", "fecha", "sec_envio"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rut_emisor: Mapped[str] = mapped_column(String(12))
    fecha: Mapped[date] = mapped_column(Date)
    sec_envio: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    estado: Mapped[str] = mapped_column(String(2))
    ack_xml: Mapped[bytes] = mapped_column(LargeBinary)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class SimKey(Base):
    """The simulator's own signing key and certificate (DGI signs its acknowledgements): made with the demo data, or on
    first use."""

    __tablename__ = "dgisim_clave"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key_pem: Mapped[bytes] = mapped_column(LargeBinary)
    cert_pem: Mapped[bytes] = mapped_column(LargeBinary)


class DgiStatus(Base):
    """What this service has seen of DGI's reception (one row, id 1): since when it does not answer
    (`down_since`, None while it answers), the last answer and failure, and when the next probe may call it.
    While DGI is down only one probe at a time calls it; everything else waits and is woken when it answers."""

    __tablename__ = "dgi_estado"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    down_since: Mapped[datetime | None] = mapped_column(UtcDateTime())
    last_ok_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    last_failure_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    last_error: Mapped[str | None] = mapped_column(String(500))
    # The error as i18n.stored keeps it, said in each reader's language (migration 0365).
    last_error_texts: Mapped[dict | None] = mapped_column(JSON)
    failures: Mapped[int] = mapped_column(Integer, default=0)  # consecutive, since down_since
    next_probe_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class SimMode(Base):
    """The embedded simulator's outage mode, switched by an operator (`envios-simulador-modo`) or a test; it
    overrides CFE_DGI_SIMULATOR_MODE. One row, id 1."""

    __tablename__ = "dgisim_modo"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mode: Mapped[str] = mapped_column(String(20))
    slow_seconds: Mapped[float | None] = mapped_column(Float)
    changed_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
