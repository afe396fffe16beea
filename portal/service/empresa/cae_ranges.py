"""DGI's CAE files uploaded by admins: validated against CAE.xsd, the company's own, not overlapping.

The same parsing and storage as `import-cae` (cfe.cae.parse_cae, comprobante.numbering.import_range).
Uploading a CAE already loaded changes nothing and answers it as it is; a file with the number of a CAE loaded
and other contents is a 409 (`numbering.import_range`)."""

from __future__ import annotations

from sqlalchemy import select

from portal.domain.empresa import CAE_MAX_BYTES, EXPIRY_WARNING_DAYS
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.cae import parse_cae
from portal.service.cfe.errors import CaeError, XmlInputError
from portal.service.comprobante.models import CaeRangeRecord
from portal.service.comprobante.numbering import import_range
from portal.service.empresa import audit
from portal.service.empresa.schemas import CaeList, CaeOut
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError, FieldError, ValidationFailed
from portal.service.platform.models import Company


def present(record: CaeRangeRecord) -> CaeOut:
    today = today_montevideo()
    days_left = (record.vencimiento - today).days
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


def upload(principal: Principal, xml: bytes) -> tuple[CaeOut, bool]:
    """(the range, whether it was new). 413 over the size limit, 422 for anything DGI would not accept."""
    if not xml:
        raise _invalid("requerido", "Adjuntá el archivo de CAE que descargaste de DGI.")
    if len(xml) > CAE_MAX_BYTES:
        raise ApiError(
            f"El archivo de CAE supera los {CAE_MAX_BYTES // 1024} KB.", code="archivo_muy_grande", status=413
        )
    try:
        cae = parse_cae(xml, strict=True)
    except XmlInputError:
        raise _invalid(
            "xml_invalido", "El archivo no es un XML legible: subí el CAE tal como lo descargaste de DGI."
        ) from None
    except CaeError as exc:
        # parse_cae says the first thing wrong in words (the XSD's element and line, not libxml2's English), so
        # the person can tell an edited file from an old one (DGI's files before 2013 have no TA element). Its
        # messages are ours, checked for the voice where CaeError is raised (tests/unit/test_voice.py).
        problem = str(exc)
        raise _invalid(
            "cae_invalido",
            f"El archivo no es un CAE válido de DGI: {problem} Subilo tal como lo descargaste, sin editarlo.",
        ) from None
    with db.write_transaction() as session:
        company = session.get(Company, principal.company_id)
        if cae.rut != company.rut:
            raise _invalid("otro_rut", f"El CAE es del RUT {cae.rut}, no del de la empresa ({company.rut}).")
        if cae.vencimiento < today_montevideo():
            raise _invalid("vencido", f"El CAE venció el {cae.vencimiento:%d/%m/%Y}.")
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
                f"Los números {cae.dnro} a {cae.hnro} de la serie {cae.serie} se superponen "
                f"con el CAE {overlapping.cae_id} ({overlapping.dnro} a {overlapping.hnro}).",
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
