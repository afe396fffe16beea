"""Issuing a receipt: the company's issuer data and certificate, numbering, signing, storing, and the PDF.

The workflow for one `emitir`, in ONE write transaction: look the Idempotency-Key up, check the references,
take the next number, build and sign the CFE, store it and the key's outcome; commit. Any failure rolls the
number back, so numbering stays gapless. Issues arriving together share that transaction and its commit
(`db.grouped_write`), each in a savepoint of its own, so a failure stays its request's own.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from decimal import Decimal

from flask import Response, current_app, g
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.domain.cfe_types import NOTE_BASE_TYPE
from portal.service import db, idempotency
from portal.service.auth import Principal
from portal.service.cfe import (
    CfeInput,
    CfeSchemaError,
    CfeSigner,
    CfeValidationError,
    Issuer,
    Numbering,
    SignedCfe,
    Totals,
    build_signed_cfe,
    compute_totals,
    render_preview_pdf,
    render_signed_pdf,
)
from portal.service.cfe.rules import validate
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.numbering import allocate
from portal.service.errors import ApiError, FieldError, ValidationFailed
from portal.service.keystore import cached_per_certificate, private_key_pem
from portal.service.models import Certificate, Company


@dataclass(frozen=True)
class IssueResult:
    """The stored receipt and its warnings, or `replay`: the first outcome of the request's Idempotency-Key."""

    cfe: IssuedCfe | None
    warnings: list[dict]
    replay: Response | None = None


def issuer_for(company: Company) -> Issuer:
    return Issuer(rut=company.rut, razon_social=company.razon_social, nombre_comercial=company.nombre_comercial,
                  giro=company.giro, telefono=company.telefono, correo=company.correo, sucursal=company.sucursal,
                  cdg_dgi_sucursal=company.cdg_dgi_sucursal, domicilio_fiscal=company.domicilio_fiscal,
                  ciudad=company.ciudad, departamento=company.departamento)


def signing_certificate(session: Session, company_id: int, certificate_id: int | None = None) -> Certificate:
    """The certificate that signs for the company: the one asked for, or the valid one expiring last."""
    now = datetime.now(UTC)
    query = select(Certificate).where(Certificate.company_id == company_id)
    if certificate_id is not None:
        query = query.where(Certificate.id == certificate_id)
    candidates = [c for c in session.scalars(query.order_by(Certificate.not_after.desc()))
                  if _aware(c.not_before) <= now <= _aware(c.not_after)]
    if not candidates:
        raise ApiError("La empresa no tiene un certificado de firma vigente.", code="sin_certificado_vigente",
                       status=409)
    return candidates[0]


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def signer_for(cert: Certificate) -> CfeSigner:
    """The certificate's signer, built once per process (parsing a key costs ~30 ms)."""
    algorithm = current_app.config.get("CFE_SIGNATURE_ALGORITHM", "sha256")
    return cached_per_certificate(f"signer-{algorithm}", cert, lambda c: CfeSigner(
        private_key_pem(c), c.cert_pem.encode(), algorithm=algorithm))


def field_errors(exc: CfeValidationError) -> list[FieldError]:
    return [FieldError(e.field, e.code, e.message) for e in exc.errors]


def check_rules(cfe: CfeInput) -> None:
    """The engine's DGI and business rules, as a 422 with one entry per field."""
    errors = validate(cfe, ui_value=current_app.config["UI_VALUE_UYU"])
    if errors:
        raise ValidationFailed([FieldError(e.field, e.code, e.message) for e in errors],
                               message="El comprobante no es válido.")


def _check_references(session: Session, company_id: int, cfe: CfeInput) -> None:
    """A credit or debit note must point at receipts this company issued (same family of types)."""
    base = NOTE_BASE_TYPE.get(cfe.tipo_cfe)
    if base is None:
        return
    problems = []
    for index, ref in enumerate(cfe.referencias):
        if getattr(ref, "ind_global", None) == 1:
            continue
        found = session.scalar(select(IssuedCfe.id).where(
            IssuedCfe.company_id == company_id, IssuedCfe.tipo_cfe == ref.tpo_doc_ref,
            IssuedCfe.serie == ref.serie, IssuedCfe.nro == ref.nro_cfe_ref))
        if ref.tpo_doc_ref not in (base, base + 1, base + 2):
            problems.append(FieldError(f"referencias[{index}].tpoDocRef", "not_allowed",
                                       f"Una nota del tipo {cfe.tipo_cfe} solo puede referir comprobantes "
                                       f"{base}, {base + 1} o {base + 2}."))
        elif found is None:
            problems.append(FieldError(f"referencias[{index}].nroCFERef", "not_found",
                                       f"No existe el comprobante {ref.tpo_doc_ref} {ref.serie}-{ref.nro_cfe_ref} "
                                       "emitido por esta empresa."))
    if problems:
        raise ValidationFailed(problems, message="La nota refiere comprobantes que no existen.")


def totals_json(totals: Totals) -> dict:
    """The totals with DGI's names (lower camelCase), amounts as strings with their exact decimals."""
    names = {
        "mnt_no_grv": "mntNoGrv", "mnt_expo_y_asim": "mntExpoyAsim", "mnt_impuesto_perc": "mntImpuestoPerc",
        "mnt_iva_en_susp": "mntIVaenSusp", "mnt_neto_iva_tasa_min": "mntNetoIvaTasaMin",
        "mnt_neto_iva_tasa_basica": "mntNetoIVATasaBasica", "mnt_neto_iva_otra": "mntNetoIVAOtra",
        "iva_tasa_min": "ivaTasaMin", "iva_tasa_basica": "ivaTasaBasica", "mnt_iva_tasa_min": "mntIVATasaMin",
        "mnt_iva_tasa_basica": "mntIVATasaBasica", "mnt_iva_otra": "mntIVAOtra", "mnt_total": "mntTotal",
        "mnt_tot_retenido": "mntTotRetenido", "mnt_tot_cred_fisc": "mntTotCredFisc", "cant_lin_det": "cantLinDet",
        "monto_nf": "montoNF", "mnt_pagar": "mntPagar",
    }
    data = asdict(totals)
    result: dict = {camel: _plain(data[snake]) for snake, camel in names.items()}
    result["montosItems"] = [_plain(v) for v in totals.line_amounts]
    result["retencPercep"] = [{"codRet": code, "valRetPerc": _plain(value)} for code, value in totals.retenc_percep]
    return result


def _plain(value):
    return f"{value:.2f}" if isinstance(value, Decimal) and value == value.quantize(Decimal("0.01")) else (
        str(value) if isinstance(value, Decimal) else value)


def issue(principal: Principal, cfe: CfeInput, *, on_stored=None,
          idempotency_key: idempotency.RequestedKey | None = None) -> IssueResult:
    """Number, sign and store one receipt in a single write transaction. `on_stored(session, result)` runs
    inside that transaction (whatever must commit with the receipt: the idempotency key's outcome). With
    `idempotency_key`, a key already used answers with `replay` instead, and nothing is issued."""
    check_rules(cfe)

    def work(session: Session) -> IssueResult:
        if idempotency_key is not None:
            replay = idempotency.lookup(session, principal.company_id, idempotency_key)
            if replay is not None:
                return IssueResult(None, [], replay)
        return _issue_in(session, principal, cfe, on_stored)

    try:
        return db.grouped_write(work)
    except IntegrityError:
        if idempotency_key is None:
            raise
        # A first request with the same key committed while this one was issuing: answer with its outcome.
        return db.grouped_write(work)


def _issue_in(session: Session, principal: Principal, cfe: CfeInput, on_stored) -> IssueResult:
    """The issue itself, in the (shared) write transaction `session`."""
    company = session.get(Company, principal.company_id)
    _check_references(session, company.id, cfe)
    cert = signing_certificate(session, company.id)
    allocation = allocate(session, company.id, cfe.tipo_cfe, cfe.fch_emis)
    issuer = issuer_for(company)
    try:
        signed = build_signed_cfe(cfe, issuer, allocation.numbering, signer_for(cert),
                                  ui_value=current_app.config["UI_VALUE_UYU"])
    except CfeValidationError as exc:
        raise ValidationFailed(field_errors(exc), message=exc.message) from exc
    except CfeSchemaError:
        current_app.logger.exception("generated CFE failed DGI's XSD")
        raise
    record = _store(session, principal, company, cfe, issuer, allocation.numbering, allocation.range.id,
                    cert.id, signed)
    result = IssueResult(record, [allocation.warning] if allocation.warning else [])
    if on_stored is not None:
        on_stored(session, result)
    return result


def _store(session, principal, company, cfe, issuer, numbering: Numbering, range_id, cert_id, signed: SignedCfe):
    receptor = cfe.receptor
    record = IssuedCfe(
        id=uuid.uuid4().hex, company_id=company.id, cae_range_id=range_id, tipo_cfe=cfe.tipo_cfe,
        serie=numbering.serie, nro=numbering.nro, fch_emis=cfe.fch_emis, tmst_firma=signed.tmst_firma,
        tpo_moneda=cfe.tpo_moneda, mnt_total=signed.totals.mnt_total, mnt_pagar=signed.totals.mnt_pagar,
        receptor_doc=receptor.doc_recep if receptor else None,
        receptor_nombre=receptor.rzn_soc_recep if receptor else None,
        input_json=cfe.model_dump(mode="json", by_alias=True, exclude_none=True), issuer_json=asdict(issuer),
        totals_json=totals_json(signed.totals), xml=signed.xml, digest=signed.digest,
        security_code=signed.security_code, qr_url=signed.qr_url, certificate_id=cert_id,
        created_by=principal.actor, request_id=g.get("request_id"))
    session.add(record)
    session.flush()
    return record


def numbering_of(record: IssuedCfe, session: Session) -> Numbering:
    from portal.service.comprobante.models import CaeRangeRecord

    cae = session.get(CaeRangeRecord, record.cae_range_id)
    return Numbering(serie=record.serie, nro=record.nro, cae_id=cae.cae_id, dnro=cae.dnro, hnro=cae.hnro,
                     fec_venc=cae.vencimiento, cae_especial=cae.cae_especial, causal_cae_esp=cae.causal_cae_esp)


def receipt_pdf(session: Session, record: IssuedCfe) -> bytes:
    """The printed representation, rebuilt from the snapshots taken when it was issued."""
    cfe = CfeInput.model_validate(record.input_json)
    issuer = Issuer(**record.issuer_json)
    signed = SignedCfe(xml=record.xml, totals=compute_totals(cfe), digest=record.digest,
                       security_code=record.security_code, qr_url=record.qr_url, tmst_firma=record.tmst_firma)
    return render_signed_pdf(cfe, issuer, numbering_of(record, session), signed)


def preview_pdf(company: Company, cfe: CfeInput) -> bytes:
    check_rules(cfe)
    return render_preview_pdf(cfe, issuer_for(company))
