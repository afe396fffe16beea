"""DGI's CAE files uploaded by admins: validated against CAE.xsd, the company's own, not overlapping.

The same parsing and storage as `import-cae` (cfe.cae.parse_cae, comprobante.numbering.import_range).
Uploading a CAE already loaded changes nothing and answers it as it is; a file with the number of a CAE loaded
and other contents is a 409 (`numbering.import_range`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import select

from portal.domain.empresa import CAE_MAX_BYTES, EXPIRY_WARNING_DAYS
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.cae import parse_cae
from portal.service.cfe.errors import CaeError, XmlInputError
from portal.service.cfe.signing import embedded_certificate, verify_signature
from portal.service.comprobante import hooks
from portal.service.comprobante.models import CaeRangeRecord
from portal.service.comprobante.numbering import import_range
from portal.service.empresa import audit
from portal.service.empresa.schemas import CaeBajaIn, CaeBajaOut, CaeList, CaeOut
from portal.service.platform import accredited_cas, db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError, Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.models import Company


def present(record: CaeRangeRecord) -> CaeOut:
    today = today_montevideo()
    days_left = (record.vencimiento - today).days
    state: Literal["vigente", "por_vencer", "vencido", "agotado", "no_vigente"]
    if record.remaining == 0:
        state = "agotado"
    elif days_left < 0:
        state = "vencido"
    elif today < record.fecha_autorizacion:
        state = "no_vigente"  # numbers nothing before its authorization day (numbering.allocate)
    else:
        state = "por_vencer" if days_left < EXPIRY_WARNING_DAYS else "vigente"
    return CaeOut(
        id=record.id,
        caeId=record.cae_id,
        tipoCFE=record.tipo_cfe,
        serie=record.serie,
        desde=record.dnro,
        hasta=record.hnro,
        proximo=min(record.next_nro, record.hnro),
        restantes=record.remaining,
        fechaAutorizacion=record.fecha_autorizacion,
        vencimiento=record.vencimiento,
        diasRestantes=days_left,
        estado=state,
        caeEspecial=record.cae_especial,
        origen=record.source,
    )


def company_ranges(company_id: int) -> list[CaeRangeRecord]:
    """The company's CAE ranges by type, serie and first number."""
    return list(
        db.session().scalars(
            select(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == company_id)
            .order_by(CaeRangeRecord.tipo_cfe, CaeRangeRecord.serie, CaeRangeRecord.dnro)
        )
    )


def list_ranges(principal: Principal) -> CaeList:
    return CaeList(items=[present(r) for r in company_ranges(principal.company_id)])


def _invalid(code: str, message: str) -> ValidationFailed:
    return ValidationFailed([FieldError("archivo", code, message)], message=message)


def _signature_holds(xml: bytes) -> bool:
    try:
        return verify_signature(xml)
    except (XmlInputError, ValueError):  # already parsed once, but a signature xmlsec cannot read does not hold
        return False


def upload(principal: Principal, xml: bytes) -> tuple[CaeOut, bool]:
    """(the range, whether it was new). 413 over the size limit, 422 for anything DGI would not accept."""
    if not xml:
        raise _invalid("requerido", _("Adjuntá el archivo de CAE que descargaste de DGI."))
    if len(xml) > CAE_MAX_BYTES:
        raise ApiError(
            _("El archivo de CAE supera los {kb} KB.", kb=CAE_MAX_BYTES // 1024), code="archivo_muy_grande", status=413
        )
    try:
        cae = parse_cae(xml, strict=True)
    except XmlInputError:
        raise _invalid(
            "xml_invalido", _("El archivo no es un XML legible: subí el CAE tal como lo descargaste de DGI.")
        ) from None
    except CaeError as exc:
        if exc.old_format:  # genuine but from before 2013: no editing to undo, a current file to download
            raise _invalid("cae_formato_anterior", exc.text) from None
        # parse_cae says the first thing wrong in words (the XSD's element and line, not libxml2's English), so
        # the person can tell an edited file from an old one (DGI's files before 2013 have no TA element). Its
        # messages are ours, checked for the voice where CaeError is raised (tests/unit/test_voice.py).
        problem = exc.text
        raise _invalid(
            "cae_invalido",
            _(
                "El archivo no es un CAE válido de DGI: {problem} Subilo tal como lo descargaste, sin editarlo.",
                problem=problem,
            ),
        ) from None
    # CAE.xsd only asks for a ds:Signature; a file edited after DGI signed it (a longer range, a later expiry)
    # would number receipts DGI rejects. Checked against the certificate the file carries: that proves it is
    # unchanged. Who signed it: with CFE_ACCREDITED_CAS, that certificate must come from an accredited CA, as
    # DGI's does (DGI's own certificate is not pinned: it is not among the domain documents).
    if not _signature_holds(xml):
        raise _invalid(
            "firma_invalida",
            _("La firma de DGI del archivo de CAE no es válida: subilo tal como lo descargaste, sin editarlo."),
        )
    if accredited_cas.checking():
        signer = embedded_certificate(xml)
        if signer is None or not accredited_cas.issued_by_accredited_ca(signer, datetime.now(UTC)):
            raise _invalid(
                "firmante_no_acreditado",
                _(
                    "El archivo de CAE no lo firmó DGI: el certificado de su firma no lo emitió una autoridad "
                    "certificadora acreditada en Uruguay. Descargalo de nuevo del sitio de DGI."
                ),
            )
    with db.write_transaction() as session:
        # The company locked for the check and the insert: two overlapping files uploaded at once would otherwise
        # each find no overlap (PostgreSQL; SQLite writes one at a time), and both ranges would number receipts.
        # NO KEY UPDATE: another upload waits, issuing (its receipts' foreign key takes KEY SHARE) does not.
        company = session.get_one(Company, principal.company_id, with_for_update={"key_share": True})
        if cae.rut != company.rut:
            raise _invalid(
                "otro_rut", _("El CAE es del RUT {rut}, no del de la empresa ({own}).", rut=cae.rut, own=company.rut)
            )
        if cae.vencimiento < today_montevideo():
            raise _invalid("vencido", _("El CAE venció el {day}.", day=f"{cae.vencimiento:%d/%m/%Y}"))
        overlapping = session.scalar(
            select(CaeRangeRecord).where(
                CaeRangeRecord.company_id == company.id,
                CaeRangeRecord.tipo_cfe == cae.tipo_cfe,
                CaeRangeRecord.serie == cae.serie,
                CaeRangeRecord.cae_id != cae.cae_id,
                CaeRangeRecord.dnro <= cae.hnro,
                CaeRangeRecord.hnro >= cae.dnro,
            )
        )
        if overlapping is not None:
            raise _invalid(
                "superpuesto",
                _(
                    "Los números {first} a {last} de la serie {serie} se superponen con el CAE {cae} "
                    "({other_first} a {other_last}).",
                    first=cae.dnro,
                    last=cae.hnro,
                    serie=cae.serie,
                    cae=overlapping.cae_id,
                    other_first=overlapping.dnro,
                    other_last=overlapping.hnro,
                ),
            )
        record, created = import_range(session, company, cae, xml)
        session.flush()
        if created:
            audit.record(
                session,
                principal,
                "cae_cargado",
                {
                    "tipoCFE": cae.tipo_cfe,
                    "serie": cae.serie,
                    "desde": cae.dnro,
                    "hasta": cae.hnro,
                    "vencimiento": cae.vencimiento.isoformat(),
                },
                target=str(cae.cae_id),
            )
        result = present(record)
    return result, created


def retire(principal: Principal, range_id: int, body: CaeBajaIn) -> CaeBajaOut:
    """Void every unused number of one of the company's ranges at once (it numbers nothing more), in the
    audit like its upload. `body.cantidad` must be the count left, as the person saw it: a range that moved
    meanwhile (a receipt issued, another void) is a 409 that states the new count, never a larger void."""
    with db.write_transaction() as session:
        cae = session.get(CaeRangeRecord, range_id, with_for_update=True)
        if cae is None or cae.company_id != principal.company_id:
            raise NotFound(_("No existe ese rango de CAE en la empresa."), code="cae_no_encontrado")
        left = cae.remaining
        if left == 0:
            raise Conflict(
                _("El CAE {cae} no tiene números sin usar: no hay nada que anular.", cae=cae.cae_id),
                code="cae_sin_numeros",
            )
        if body.cantidad != left:
            raise Conflict(
                _(
                    "Al CAE {cae} le quedan {left} números sin usar ({first} a {last}), no {asked}: "
                    "indicá esa cantidad para anularlos.",
                    cae=cae.cae_id,
                    left=left,
                    first=cae.next_nro,
                    last=cae.hnro,
                    asked=body.cantidad,
                ),
                code="cantidad_distinta",
            )
        voided = hooks.void_up_to(session, principal, cae, cae.hnro, body.motivo)
        audit.record(
            session,
            principal,
            "cae_dado_de_baja",
            {
                "tipoCFE": cae.tipo_cfe,
                "serie": cae.serie,
                "anuladosDesde": voided.nro_desde,
                "anuladosHasta": voided.nro_hasta,
                "cantidad": left,
                "motivo": body.motivo,
            },
            target=str(cae.cae_id),
        )
        return CaeBajaOut(
            cae=present(cae),
            idAnulacion=voided.id,
            nroDesde=voided.nro_desde,
            nroHasta=voided.nro_hasta,
            cantidad=left,
            fechaReporte=voided.fecha,
        )
