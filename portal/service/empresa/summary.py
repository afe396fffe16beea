"""The company's day at a glance: today's receipts and totals, where receipts stand at DGI, the CAE ranges
still numbering and the signing certificates, each with the warnings a person should act on.

CAE ranges and certificates come from the same queries and presenters as their own endpoints, so the
home and the Empresa pages never disagree.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Literal

from sqlalchemy import func, select

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.issuer import cached_issuer, has_address
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.numbering import LOW_RANGE_SHARE
from portal.service.empresa import cae_ranges, certificates
from portal.service.empresa.schemas import (
    CaeInUse,
    CertificateOut,
    DgiStateCount,
    DgiSummaryOut,
    RejectedReceipt,
    SetupStep,
    SummaryOut,
    TodayByCurrency,
    TodayByType,
    TodayOut,
)
from portal.service.platform import db
from portal.service.platform.auth import Principal

# DGI states in which a receipt is settled (nothing more will happen on its own); any other is waiting.
SETTLED_STATES = frozenset({"aceptado", "rechazado", "observado", "en_reporte"})
REJECTED_STATES = ("rechazado", "sobre_rechazado")
LATEST_REJECTED = 5
# A certificate in these states signs today (keystore.signing_certificate picks one of them).
_SIGNING_STATES = ("vigente", "por_vencer")
CENT = Decimal("0.01")


def day_summary(principal: Principal) -> SummaryOut:
    company_id = principal.company_id
    cae = _cae(company_id)
    signing = [  # a retired one is history, not something to act on
        certificates.present(c) for c in certificates.company_certificates(company_id) if c.retired_at is None
    ]
    return SummaryOut(
        hoy=_today(company_id),
        dgi=_dgi(company_id),
        **cae,
        certificados=signing,
        pendientes=_pending(company_id, cae["cae"], signing),
    )


def _pending(company_id: int, cae_in_use: list[CaeInUse], signing: list[CertificateOut]) -> list[SetupStep]:
    """What the company still lacks before its receipts are right (SummaryOut.pendientes). The certificate and CAE
    from what the summary already read; the legend and the address from the issuer a receipt without a branch
    code gets, the one issuing keeps per process (one primary-key read while the company is unchanged)."""
    issuer = cached_issuer(company_id)
    pending: list[SetupStep] = []
    if not (issuer.resolucion or issuer.fecha_emisor):  # pdf_text.issuer_legend would print none
        pending.append("sin_resolucion_ni_fecha_emisor")
    if not has_address(issuer):
        pending.append("sin_domicilio")
    if not any(c.estado in _SIGNING_STATES for c in signing):
        pending.append("sin_certificado")
    if not cae_in_use:
        pending.append("sin_cae")
    return pending


def _sign(tipo_cfe: int) -> int:
    """How a receipt type counts in what was invoiced: +1 sales and debit notes, -1 credit notes, 0 the
    rest (an e-Remito moves goods, an e-Resguardo certifies a retention, an e-Boleta de entrada is a purchase:
    none is a sale). Exports (121-123) and sales on behalf of others (131-143) are sales."""
    kind = CFE_TYPES.get(tipo_cfe)
    if kind is None or kind.element not in ("eTck", "eFact", "eFact_Exp"):
        return 0
    return kind.note_sign or 1


def _today(company_id: int) -> TodayOut:
    today = today_montevideo()
    rows = (
        db.session()
        .execute(
            select(IssuedCfe.tipo_cfe, IssuedCfe.tpo_moneda, func.count(), func.sum(IssuedCfe.mnt_pagar))
            .where(IssuedCfe.company_id == company_id, IssuedCfe.fch_emis == today)
            .group_by(IssuedCfe.tipo_cfe, IssuedCfe.tpo_moneda)
            .order_by(IssuedCfe.tipo_cfe, IssuedCfe.tpo_moneda)
        )
        .all()
    )
    by_type = [
        TodayByType(tipoCFE=tipo, moneda=currency, cantidad=count, total=Decimal(str(total or 0)).quantize(CENT))
        for tipo, currency, count, total in rows
    ]
    counts: dict[str, int] = defaultdict(int)
    net: dict[str, Decimal] = defaultdict(Decimal)
    for line in by_type:
        counts[line.moneda] += line.cantidad
        net[line.moneda] += _sign(line.tipoCFE) * line.total
    return TodayOut(
        fecha=today,
        cantidad=sum(counts.values()),
        porTipo=by_type,
        porMoneda=[TodayByCurrency(moneda=m, cantidad=counts[m], neto=net[m]) for m in sorted(counts)],
    )


def _dgi(company_id: int) -> DgiSummaryOut:
    session = db.session()
    counts = session.execute(
        select(IssuedCfe.dgi_status, func.count())
        .where(IssuedCfe.company_id == company_id)
        .group_by(IssuedCfe.dgi_status)
        .order_by(IssuedCfe.dgi_status)
    ).all()
    rejected = session.scalars(
        select(IssuedCfe)
        .where(IssuedCfe.company_id == company_id, IssuedCfe.dgi_status.in_(REJECTED_STATES))
        .order_by(IssuedCfe.created_at.desc(), IssuedCfe.id.desc())
        .limit(LATEST_REJECTED)
    )
    return DgiSummaryOut(
        porEstado=[DgiStateCount(estado=state, cantidad=count) for state, count in counts],
        enEspera=sum(count for state, count in counts if state not in SETTLED_STATES),
        rechazados=sum(count for state, count in counts if state in REJECTED_STATES),
        ultimosRechazados=[
            RejectedReceipt(
                id=r.id, tipoCFE=r.tipo_cfe, serie=r.serie, nro=r.nro, fecha=r.fch_emis, estado=r.dgi_status
            )
            for r in rejected
        ],
    )


def _cae(company_id: int) -> dict:
    """The ranges that still number (with their warnings) and the types left with none that does."""
    in_use, types_loaded = [], set()
    for record in cae_ranges.company_ranges(company_id):
        types_loaded.add(record.tipo_cfe)
        shown = cae_ranges.present(record)
        if shown.estado in ("agotado", "vencido"):
            continue
        warnings: list[Literal["pocos_numeros", "por_vencer"]] = []
        if record.remaining < record.size * LOW_RANGE_SHARE:
            warnings.append("pocos_numeros")
        if shown.estado == "por_vencer":
            warnings.append("por_vencer")
        in_use.append(CaeInUse(**shown.model_dump(), avisos=warnings))
    return {"cae": in_use, "tiposSinCae": sorted(types_loaded - {r.tipoCFE for r in in_use})}
