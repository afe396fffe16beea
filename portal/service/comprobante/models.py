"""Tables of the Comprobante area: CAE ranges (with their number counters), issued receipts, preview
tokens and the history of collection references. (Idempotency keys, shared by every area that honours
Idempotency-Key, are a platform table: portal/service/platform/models.py.)"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Numeric,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from portal.service.platform.db import Base, utcnow
from portal.sqltypes import UtcDateTime


class CaeRangeRecord(Base):
    """A CAE authorising numbers dnro..hnro of one CFE type and serie; `next_nro` is its counter row.

    Numbers are taken by incrementing `next_nro` inside the transaction that stores the receipt, so a
    failed issue gives its number back (gapless) and two issuers never get the same one.
    """

    __tablename__ = "cae_range"
    __table_args__ = (UniqueConstraint("company_id", "cae_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    tipo_cfe: Mapped[int] = mapped_column(Integer)
    serie: Mapped[str] = mapped_column(String(2))
    dnro: Mapped[int] = mapped_column(Integer)
    hnro: Mapped[int] = mapped_column(Integer)
    next_nro: Mapped[int] = mapped_column(Integer)
    cae_id: Mapped[int] = mapped_column(BigInteger)
    fecha_autorizacion: Mapped[date] = mapped_column(Date)
    vencimiento: Mapped[date] = mapped_column(Date)
    cae_especial: Mapped[int | None] = mapped_column(Integer)
    causal_cae_esp: Mapped[int | None] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(20), default="dgi")  # "dgi" file import or "demo"
    xml: Mapped[bytes | None] = mapped_column(LargeBinary)
    imported_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)

    @property
    def remaining(self) -> int:
        return max(self.hnro - self.next_nro + 1, 0)

    @property
    def size(self) -> int:
        return self.hnro - self.dnro + 1


_ORDER = ("fch_emis", "nro", "id")  # the receipt list's order (comprobante/search.py)


class IssuedCfe(Base):
    """A signed receipt. `xml` is kept exactly as signed; the input and issuer snapshots rebuild its PDF."""

    __tablename__ = "cfe_emitido"
    __table_args__ = (
        UniqueConstraint("company_id", "tipo_cfe", "serie", "nro"),
        # A number is authorised by a CAE range, or (a contingency receipt keyed in from paper) by a printed
        # contingency book: exactly one of the two (migration 0160).
        CheckConstraint("(cae_range_id IS NULL) <> (libreta_id IS NULL)", name="ck_cfe_emitido_cae_o_libreta"),
        # The receipt list (search.py): its order (date, number, id, newest first), then the columns its
        # totals add up and most filters test (the receiver filter included, migration 0017), so a page and
        # the totals of a filtered set read only the index.
        Index(
            "ix_cfe_emitido_listado",
            "company_id",
            "fch_emis",
            "nro",
            "id",
            "tipo_cfe",
            "tpo_moneda",
            "mnt_total",
            "dgi_status",
            "receptor_doc",
            "receptor_busqueda",
        ),
        # The filters by type, currency and DGI state in the list's order, with the columns the totals add up
        # (migration 0200); a range of amounts by amount.
        Index("ix_cfe_emitido_tipo_listado", "company_id", "tipo_cfe", *_ORDER, "tpo_moneda", "mnt_total"),
        Index("ix_cfe_emitido_moneda_listado", "company_id", "tpo_moneda", *_ORDER, "tipo_cfe", "mnt_total"),
        Index(
            "ix_cfe_emitido_dgi_status_listado",
            "company_id",
            "dgi_status",
            *_ORDER,
            "tipo_cfe",
            "tpo_moneda",
            "mnt_total",
        ),
        Index("ix_cfe_emitido_monto", "company_id", "mnt_total", "tipo_cfe", "tpo_moneda"),
        Index("ix_cfe_emitido_nro", "company_id", "nro"),
        # Past receivers (receptores/past.py): each document's newest receipt read from the index alone; its
        # leading columns serve every lookup by document.
        Index("ix_cfe_emitido_receptor_doc_reciente", "company_id", "receptor_doc", "created_at"),
        # With what the list's totals add up, so a common word's totals read this index alone (0170).
        Index(
            "ix_cfe_emitido_receptor_busqueda", "company_id", "receptor_busqueda", "tpo_moneda", "tipo_cfe", "mnt_total"
        ),
        Index("ix_cfe_emitido_request_id", "company_id", "request_id"),
        Index("ix_cfe_emitido_idempotency_key", "company_id", "idempotency_key"),
        # A company's receipts in the order they were made: what its customers are read from (clientes).
        Index("ix_cfe_emitido_creado", "company_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    cae_range_id: Mapped[int | None] = mapped_column(ForeignKey("cae_range.id"))
    libreta_id: Mapped[int | None] = mapped_column(
        ForeignKey("empresa_libreta_contingencia.id", name="fk_cfe_emitido_libreta_id")
    )
    tipo_cfe: Mapped[int] = mapped_column(Integer)
    serie: Mapped[str] = mapped_column(String(2))
    nro: Mapped[int] = mapped_column(Integer)
    fch_emis: Mapped[date] = mapped_column(Date)
    tmst_firma: Mapped[datetime] = mapped_column(UtcDateTime())
    tpo_moneda: Mapped[str] = mapped_column(String(3))
    mnt_total: Mapped[float] = mapped_column(Numeric(17, 2))
    mnt_pagar: Mapped[float] = mapped_column(Numeric(17, 2))
    # The rest of the IVA books' amounts (migration 0240), Zona A's totals as signed (the same as totals_json's),
    # set at issue time (amounts.book_amounts) so a book reads numbers, not every receipt's JSON.
    mnt_no_grv: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_expo_y_asim: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_iva_en_susp: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_neto_iva_tasa_min: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_neto_iva_tasa_basica: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_neto_iva_otra: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_iva_tasa_min: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_iva_tasa_basica: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_iva_otra: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_impuesto_perc: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    mnt_tot_retenido: Mapped[Decimal] = mapped_column(Numeric(17, 2), server_default="0")
    receptor_doc: Mapped[str | None] = mapped_column(String(20))
    receptor_nombre: Mapped[str | None] = mapped_column(String(150))
    # The name folded for prefix search (lower case, no accents): search.folded().
    receptor_busqueda: Mapped[str | None] = mapped_column(String(150))
    input_json: Mapped[dict] = mapped_column(JSON)
    issuer_json: Mapped[dict] = mapped_column(JSON)
    totals_json: Mapped[dict] = mapped_column(JSON)
    xml: Mapped[bytes] = mapped_column(LargeBinary)
    digest: Mapped[str] = mapped_column(String(100))
    security_code: Mapped[str] = mapped_column(String(6))
    qr_url: Mapped[str] = mapped_column(String(400))
    certificate_id: Mapped[int] = mapped_column(ForeignKey("certificate.id"))
    dgi_status: Mapped[str] = mapped_column(String(20), default="pendiente")
    referencia_cobro: Mapped[str | None] = mapped_column(String(100))
    created_by: Mapped[str] = mapped_column(String(254))
    request_id: Mapped[str | None] = mapped_column(String(128))
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    # What the company's settings printed when it was signed (migration 0020): the default paper and the logo
    # (PrintedLogo, by its SHA-256; None: no logo). print_paper None: issued before the snapshot existed, printed
    # with the settings of the day (docs/DGI-RULES.md, "The printed representation of an issued receipt").
    print_paper: Mapped[str | None] = mapped_column(String(8))
    print_logo_sha256: Mapped[str | None] = mapped_column(String(64))
    # Bumped by triggers (migration 0310) whenever what the receipt's answer shows changes; the answer's ETag
    # is made from it (answer_tag.py). Never written by the code.
    answer_version: Mapped[int] = mapped_column(BigInteger, server_default="0")


class PrintedLogo(Base):
    """A logo a receipt was issued with, kept as it was (one row per company and distinct image), so a logo
    uploaded or removed later never changes an issued receipt's PDF. Rows are never deleted."""

    __tablename__ = "cfe_logo"

    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class NoteReference(Base):
    """A credit or debit note's link to a receipt of the company it adjusts (zone F, one row per reference).

    `amount` is the part of the note's total set against that receipt: what is left to credit on a receipt
    is its total minus the amounts of the credit notes linked to it.
    """

    __tablename__ = "cfe_nota_referencia"
    __table_args__ = (UniqueConstraint("note_id", "original_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    note_id: Mapped[str] = mapped_column(ForeignKey("cfe_emitido.id", ondelete="CASCADE"), index=True)
    original_id: Mapped[str] = mapped_column(ForeignKey("cfe_emitido.id", ondelete="CASCADE"), index=True)
    is_credit: Mapped[bool] = mapped_column(Boolean)
    amount: Mapped[Decimal] = mapped_column(Numeric(17, 2))


class PreviewToken(Base):
    """A short-lived, unguessable handle on a preview PDF. Only the token's SHA-256 is stored."""

    __tablename__ = "preview_token"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    pdf: Mapped[bytes] = mapped_column(LargeBinary)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class ReferenceChange(Base):
    """Each application of a collection (payment) reference to a receipt: who, when, from what to what."""

    __tablename__ = "cfe_referencia_cobro"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    cfe_id: Mapped[str] = mapped_column(ForeignKey("cfe_emitido.id", ondelete="CASCADE"), index=True)
    company_id: Mapped[int] = mapped_column(Integer, index=True)
    previous: Mapped[str | None] = mapped_column(String(100))
    reference: Mapped[str] = mapped_column(String(100))
    note: Mapped[str | None] = mapped_column(String(200))
    actor: Mapped[str] = mapped_column(String(254))
    request_id: Mapped[str | None] = mapped_column(String(128))
    at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class ReceiverWord(Base):
    """A word of a receiver's name, as the receipt list searches it (search.name_words of the folded name):
    one row per company, word and folded name, so "arapey" finds "viajes arapey s.r.l." through the primary
    key's (company_id, palabra) prefix instead of reading every receipt (migration 0060_receptor_palabras).
    Written with the receipt that first uses the name; never deleted (a name once used stays findable)."""

    __tablename__ = "cfe_receptor_palabra"

    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), primary_key=True)
    palabra: Mapped[str] = mapped_column(String(150), primary_key=True)
    nombre: Mapped[str] = mapped_column(String(150), primary_key=True)


VoidSource = Literal["operador", "rechazo_dgi"]  # who voided a range: an operator, or DGI's rejection


class ContingencyBook(Base):
    """A printed contingency book (CFC, types 2xx) DGI authorised: its type, serie, number range, the CAE of
    the authorisation (request type F) and its dates. Paper receipts are keyed in against it."""

    __tablename__ = "empresa_libreta_contingencia"
    __table_args__ = (UniqueConstraint("company_id", "tipo_cfe", "serie", "nro_desde"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    tipo_cfe: Mapped[int] = mapped_column(Integer)
    serie: Mapped[str] = mapped_column(String(2))
    nro_desde: Mapped[int] = mapped_column(Integer)
    nro_hasta: Mapped[int] = mapped_column(Integer)
    cae_id: Mapped[str] = mapped_column(String(11))
    fecha_autorizacion: Mapped[date] = mapped_column(Date)
    fecha_vencimiento: Mapped[date] = mapped_column(Date)
    created_by: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class VoidedRange(Base):
    """Numbers of a CAE that will never be used: voided by an operator, or by DGI's rejection of a receipt
    (`source` "rechazo_dgi", DGI's CFEs_Anulados_x_RechazoDGI). The daily report of `fecha` carries them."""

    __tablename__ = "dgi_anulacion"
    # A CAE range's numbers, or a printed contingency book's paper numbers (migration 0161): one of the two.
    __table_args__ = (
        CheckConstraint("(cae_range_id IS NULL) <> (libreta_id IS NULL)", name="ck_dgi_anulacion_cae_o_libreta"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_id: Mapped[int] = mapped_column(ForeignKey("company.id", ondelete="CASCADE"), index=True)
    cae_range_id: Mapped[int | None] = mapped_column(ForeignKey("cae_range.id"))
    libreta_id: Mapped[int | None] = mapped_column(
        ForeignKey("empresa_libreta_contingencia.id", name="fk_dgi_anulacion_libreta_id"), index=True
    )
    tipo_cfe: Mapped[int] = mapped_column(Integer)
    serie: Mapped[str] = mapped_column(String(2))
    nro_desde: Mapped[int] = mapped_column(Integer)
    nro_hasta: Mapped[int] = mapped_column(Integer)
    fecha: Mapped[date] = mapped_column(Date, index=True)
    source: Mapped[VoidSource] = mapped_column(String(12))
    reason: Mapped[str] = mapped_column(String(200))
    # DGI's rejection's reason as i18n.stored keeps it, said in each reader's language (migration 0361); an
    # operator's own words have none.
    reason_texts: Mapped[dict | None] = mapped_column(JSON)
    cfe_id: Mapped[str | None] = mapped_column(String(40))
    created_by: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
