"""Correcting a contingency receipt (CFC) DGI observed (CE, C03-C15): the same paper (type, serie, number) with
its data corrected, signed again and sent to DGI again. DGI never rejects a CFC, so it is not voided and
re-issued with another number as a rejected CFE is ("Emitir corregido"): the record keeps its number and its
count of observations (dgi_envio_cfe.observations), and its XML becomes the corrected one."""

from __future__ import annotations

from sqlalchemy import select

from portal.service.cfe import CfeInput
from portal.service.cfe.contingency import is_cfc
from portal.service.comprobante import contingency, hooks, issuing
from portal.service.comprobante.amounts import book_amounts
from portal.service.comprobante.issuer import signing_key
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.search import folded
from portal.service.platform import db, jobs
from portal.service.platform.auth import Principal
from portal.service.platform.errors import Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _, cfe_type


def correct(principal: Principal, cfe_id: str, cfe: CfeInput) -> IssuedCfe:
    """Replace an observed CFC's content with `cfe` (same type, serie and number), sign it and queue it for DGI."""
    contingency.check_shape(cfe)
    issuer, _ui_value, totals = issuing._checked(cfe, principal.company_id)
    key = signing_key(db.session(), principal.company_id)
    with db.write_transaction() as session:
        record = session.scalar(
            select(IssuedCfe)
            .where(IssuedCfe.id == cfe_id, IssuedCfe.company_id == principal.company_id)
            .with_for_update()
        )
        if record is None:
            raise NotFound(_("No existe ese comprobante en tu empresa."), code="cfe_no_encontrado")
        dgi = hooks.resubmission()
        if not is_cfc(record.tipo_cfe) or not dgi.observed(session, record):
            raise Conflict(
                _("Solo se corrige así un comprobante de contingencia que DGI observó."), code="cfc_no_observado"
            )
        paper = cfe.contingencia
        if (cfe.tipo_cfe, paper.serie if paper else None, paper.nro if paper else None) != (
            record.tipo_cfe,
            record.serie,
            record.nro,
        ):
            raise ValidationFailed(
                [
                    FieldError(
                        "contingencia",
                        "cfc_distinto",
                        _(
                            "La corrección es del mismo papel: tipo {tipo}, serie {serie}, número {nro}.",
                            tipo=cfe_type(record.tipo_cfe),
                            serie=record.serie,
                            nro=record.nro,
                        ),
                    )
                ],
                message=_("La corrección no es del mismo comprobante de contingencia."),
                code="cfc_distinto",
            )
        number = contingency.paper_number(session, principal.company_id, cfe, keyed=record)
        signed = issuing.sign_checked(cfe, totals, issuer, number.numbering, key.signer)
        receptor = cfe.receptor
        record.libreta_id, record.certificate_id = number.book_id, key.certificate_id
        record.fch_emis, record.tmst_firma, record.tpo_moneda = cfe.fch_emis, signed.tmst_firma, cfe.tpo_moneda
        # Numeric(17, 2) columns, typed float on the model; the constructor in issuing stores the same Decimals.
        record.mnt_total = signed.totals.mnt_total  # type: ignore[assignment]
        record.mnt_pagar = signed.totals.mnt_pagar  # type: ignore[assignment]
        for name, value in book_amounts(signed.totals).items():  # the IVA books' amount columns (migration 0240)
            setattr(record, name, value)
        record.receptor_doc = receptor.doc_recep if receptor else None
        record.receptor_nombre = receptor.rzn_soc_recep if receptor else None
        record.receptor_busqueda = folded(receptor.rzn_soc_recep) if receptor else None
        record.input_json = cfe.model_dump(mode="json", by_alias=True, exclude_none=True)
        record.issuer_json = dict(vars(issuer))
        record.totals_json = issuing.totals_json(signed.totals)
        record.xml, record.digest = signed.xml, signed.digest
        record.security_code, record.qr_url = signed.security_code, signed.qr_url
        wakeup = dgi.resend(session, record)  # back on the road to DGI
        session.flush()
    jobs.enqueue_safely(wakeup.run, wakeup.label)
    return record
