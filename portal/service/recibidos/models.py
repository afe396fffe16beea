"""Tables of the recibidos area: received envelopes, the CFEs in them, and the answers we owe their senders.

Everything about one envelope (the envelope, each CFE, the answers) is written in one transaction by
`intake.receive`; the answers are rows with a state, sent later by a leased background task, so a crash
between storing and answering neither loses an answer nor sends one twice."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    or_,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime

# Answer states (as correo's sends).
QUEUED = "en_cola"
SENDING = "enviando"
SENT = "enviado"
FAILED = "fallido"
NO_ROUTE = "sin_destino"  # no channel to the sender is known: the answer is kept, downloadable
FINAL_ANSWER_STATES = (SENT, FAILED, NO_ROUTE)

CHANNELS = ("ws", "correo", "api", "portal")


class ReceivedEnvelope(Base):
    """One EnvioCFE_entreEmpresas received, accepted (AS) or rejected (BS), with its bytes."""

    __tablename__ = "recibidos_sobre"
    __table_args__ = (
        # Only an accepted envelope claims its (issuer, Idemisor): the same number again is S20.
        UniqueConstraint("company_id", "dedupe_key", name="uq_recibidos_sobre_dedupe"),
        Index("ix_recibidos_sobre_sha", "company_id", "sha256"),
        Index("uq_recibidos_sobre_id_receptor", "company_id", "id_receptor", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # internal: never sent outside the service
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    # The company's own number for the envelope (the answers' IDReceptor), from 1 per company (`numbering`).
    id_receptor: Mapped[int] = mapped_column(Integer)
    channel: Mapped[str] = mapped_column(String(10))
    reply_to: Mapped[str | None] = mapped_column(String(254))  # the sender's address, for the correo channel
    source_name: Mapped[str | None] = mapped_column(String(200))  # file name or Message-ID
    rut_emisor: Mapped[str | None] = mapped_column(String(12))
    idemisor: Mapped[int | None] = mapped_column(BigInteger)
    cant_cfe: Mapped[int] = mapped_column(Integer, default=0)
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)
    xml: Mapped[bytes | None] = mapped_column(LargeBinary)  # None only when too big to keep (S07)
    estado: Mapped[str] = mapped_column(String(2))  # AS | BS
    motives: Mapped[list] = mapped_column(JSON, default=list)
    dedupe_key: Mapped[str | None] = mapped_column(String(40))
    accepted: Mapped[int] = mapped_column(Integer, default=0)
    rejected: Mapped[int] = mapped_column(Integer, default=0)
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class ReceivedCfe(Base):
    """One CFE of a received envelope: its signed bytes unchanged, what it says, and what we did with it."""

    __tablename__ = "recibidos_cfe"
    __table_args__ = (
        # An accepted CFE claims its (issuer, type, serie, number): the same again is E02.
        UniqueConstraint("company_id", "dedupe_key", name="uq_recibidos_cfe_dedupe"),
        Index("ix_recibidos_cfe_lista", "company_id", "received_at", "id"),
        Index("ix_recibidos_cfe_emisor", "company_id", "rut_emisor"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    sobre_id: Mapped[int] = mapped_column(ForeignKey("recibidos_sobre.id", ondelete="CASCADE"))
    ordinal: Mapped[int] = mapped_column(Integer)
    rut_emisor: Mapped[str | None] = mapped_column(String(12))
    nombre_emisor: Mapped[str | None] = mapped_column(String(150))
    tipo_cfe: Mapped[int | None] = mapped_column(Integer)
    serie: Mapped[str | None] = mapped_column(String(2))
    nro: Mapped[int | None] = mapped_column(Integer)
    fch_emis: Mapped[date | None] = mapped_column(Date)
    tmst_firma: Mapped[str | None] = mapped_column(String(40))
    moneda: Mapped[str | None] = mapped_column(String(3))
    mnt_total: Mapped[Decimal | None] = mapped_column(Numeric(17, 2))
    mnt_pagar: Mapped[Decimal | None] = mapped_column(Numeric(17, 2))
    xml: Mapped[bytes] = mapped_column(LargeBinary)  # the signed CFE, byte for byte as it came
    adenda: Mapped[str | None] = mapped_column(Text)
    estado: Mapped[str] = mapped_column(String(2))  # AE | BE: the automatic answer
    motives: Mapped[list] = mapped_column(JSON, default=list)
    dedupe_key: Mapped[str | None] = mapped_column(String(40))
    # The company's own commercial decision (a second ACKCFE): None, "aceptado" or "rechazado".
    decision: Mapped[str | None] = mapped_column(String(10))
    decision_motive: Mapped[str | None] = mapped_column(String(3))
    decision_text: Mapped[str | None] = mapped_column(String(500))
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    decided_by: Mapped[str | None] = mapped_column(String(254))
    anulado_dgi: Mapped[bool] = mapped_column(Boolean, default=False)
    anulado_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    contabilizado: Mapped[bool] = mapped_column(Boolean, default=False)
    contabilizado_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)

    @property
    def is_purchase(self) -> bool:
        """Accepted on arrival, rejected neither by the company nor by DGI: it counts in the purchases book, and
        only such a CFE can be booked. PURCHASE says the same in SQL."""
        return self.estado == "AE" and not self.anulado_dgi and self.decision != "rechazado"


# ReceivedCfe.is_purchase as a query's conditions (the list's totals, the day's unbooked count).
PURCHASE = (
    ReceivedCfe.estado == "AE",
    ReceivedCfe.anulado_dgi.is_(False),
    or_(ReceivedCfe.decision.is_(None), ReceivedCfe.decision != "rechazado"),
)


class ExchangeAnswer(Base):
    """One signed answer (ACKSobre or ACKCFE) owed to a sender, and what became of its delivery.

    The row is the truth; `lease_until` marks an attempt in progress, so two wake-ups never deliver it twice
    and an attempt by a worker that died is retried once the lease runs out."""

    __tablename__ = "recibidos_respuesta"
    __table_args__ = (
        Index("ix_recibidos_respuesta_sobre", "sobre_id", "id"),
        Index("ix_recibidos_respuesta_pendientes", "state", "next_attempt_at"),
        Index("uq_recibidos_respuesta_id_respuesta", "company_id", "id_respuesta", unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # internal: never sent outside the service
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    # The company's own number for the answer: the document's IDRespuesta and its file name (`numbering`).
    id_respuesta: Mapped[int] = mapped_column(Integer)
    sobre_id: Mapped[int] = mapped_column(ForeignKey("recibidos_sobre.id", ondelete="CASCADE"))
    cfe_id: Mapped[int | None] = mapped_column(ForeignKey("recibidos_cfe.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))  # ACKSobre | ACKCFE
    channel: Mapped[str] = mapped_column(String(10))
    document: Mapped[bytes] = mapped_column(LargeBinary)
    filename: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(12), default=QUEUED)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(500))
    # The error as i18n.stored keeps it, said in each reader's language; None before migration 0350 (Spanish).
    last_error_texts: Mapped[dict | None] = mapped_column(JSON)
    next_attempt_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime())
    delivered_by: Mapped[str | None] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class ExchangeNumbering(Base):
    """The company's counters of what it numbers for its suppliers: the last IDReceptor given to an envelope and
    the last IDRespuesta given to an answer. A row per company, bumped in the transaction that stores the
    envelope or the answer (`platform.counters.take`), as a CAE range's `next_nro`: the numbers a supplier reads
    are the company's own, one after another (from 1 for a company that never received before 0380; after its
    largest old id, which its suppliers hold, for one that did), and say nothing of how much the service receives
    for other companies."""

    __tablename__ = "recibidos_numeracion"

    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), primary_key=True)
    last_id_receptor: Mapped[int] = mapped_column(Integer, default=0)
    last_id_respuesta: Mapped[int] = mapped_column(Integer, default=0)


class ExchangeMailbox(Base):
    """A company's exchange mailbox, read over IMAP by UID: where its suppliers' envelopes and the answers to its
    own envelopes arrive. `last_uid` is the last message handled under `uidvalidity` (a new UIDVALIDITY starts
    over, and what was already handled is recognised by `ProcessedMail`)."""

    __tablename__ = "recibidos_buzon"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), unique=True)
    url_encrypted: Mapped[bytes] = mapped_column(LargeBinary)  # imap[s]://user:password@host:port/FOLDER
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    uidvalidity: Mapped[int | None] = mapped_column(BigInteger)
    last_uid: Mapped[int] = mapped_column(BigInteger, default=0)
    last_polled_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    last_error: Mapped[str | None] = mapped_column(String(500))
    # The error as i18n.stored keeps it, said in each reader's language; None before migration 0381 (Spanish).
    last_error_texts: Mapped[dict | None] = mapped_column(JSON)
    configured_at: Mapped[datetime | None] = mapped_column(UtcDateTime())  # this URL's; the watch counts from it
    last_ok_at: Mapped[datetime | None] = mapped_column(UtcDateTime())  # the last read without error


class ProcessedMail(Base):
    """One document of one message of the mailbox, handled once: the message's Message-ID and the document's
    hash. A bad one is kept here with what went wrong (and answered BS when it claimed to be an envelope)."""

    __tablename__ = "recibidos_mensaje"
    __table_args__ = (UniqueConstraint("company_id", "message_id", "sha256", name="uq_recibidos_mensaje"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"))
    message_id: Mapped[str] = mapped_column(String(255))
    sha256: Mapped[str] = mapped_column(String(64))
    uid: Mapped[int] = mapped_column(BigInteger)
    sender: Mapped[str | None] = mapped_column(String(254))
    filename: Mapped[str | None] = mapped_column(String(200))
    outcome: Mapped[str] = mapped_column(String(20))  # sobre | respuesta | anulacion | aparte
    # Why one `aparte` was: one of SET_ASIDE_REASONS (recibidos/watch.py says each to the company); null before 0450.
    reason: Mapped[str | None] = mapped_column(String(20))
    # Why it was set aside, in Spanish, for support: no answer of the API shows it. One that does must keep it as
    # i18n.stored does (AnswerRejected and NoticeRefused carry catalogue messages) to say it in the reader's language.
    detail: Mapped[str | None] = mapped_column(String(500))
    sobre_id: Mapped[int | None] = mapped_column(ForeignKey("recibidos_sobre.id", ondelete="SET NULL"))
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
