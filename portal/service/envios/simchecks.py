"""What the DGI simulator checks on each CFE of an envelope, as DGI does (CFE-URUGUAY.md §6-7): its
signature against the envelope's certificate, its RUT, type and number against the CAE DGI granted, the
signature date against the CAE's dates, duplicates, numbers already voided, the totals by DGI's formulas,
and references to receipts DGI has seen. Each check names DGI's motive code."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from lxml import etree
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import CFC_TYPES, NOTE_BASE_TYPE, electronic_type, with_cfc
from portal.service.cfe.signing import verify_signature
from portal.service.comprobante.models import CaeRangeRecord, ContingencyBook, VoidedRange
from portal.service.envios.models import SimCfe
from portal.service.envios.simchecks_types import type_problems
from portal.service.envios.states import motive
from portal.service.platform.i18n import _
from portal.service.platform.models import Company

NS = {"d": "http://cfe.dgi.gub.uy"}
_CENT = Decimal("0.01")
_TICKET_TYPES = with_cfc(frozenset({101, 102, 103, 131, 132, 133}))
# (net, rate, IVA) per IVA rate, DGI's A-C116/A-C119/A-C121 and A-C117/A-C120/A-C122.
_RATES = (
    ("MntNetoIvaTasaMin", "IVATasaMin", "MntIVATasaMin"),
    ("MntNetoIVATasaBasica", "IVATasaBasica", "MntIVATasaBasica"),
)
_NETS = (
    "MntNoGrv",
    "MntExpoyAsim",
    "MntImpuestoPerc",
    "MntIVaenSusp",
    "MntNetoIvaTasaMin",
    "MntNetoIVATasaBasica",
    "MntNetoIVAOtra",
    "MntIVATasaMin",
    "MntIVATasaBasica",
    "MntIVAOtra",
)


@dataclass(frozen=True)
class CfeFacts:
    """What the checks read from one CFE."""

    tipo_cfe: int
    serie: str
    nro: int
    fecha: str
    tmst: str
    rut: str
    cae_id: int
    receiver_name: str
    element: etree._Element


def standalone(cfe: etree._Element, envelope: etree._Element) -> bytes:
    """The CFE as it was signed: without the namespace declarations it only inherits from the envelope
    (inclusive C14N would count them; CFE-URUGUAY.md §4)."""
    own = [prefix for prefix, uri in cfe.nsmap.items() if prefix and envelope.nsmap.get(prefix) != uri]
    alone = copy.deepcopy(cfe)
    etree.cleanup_namespaces(alone, keep_ns_prefixes=own)
    # UTF-8, not lxml's default ASCII: a non-ASCII element name would become a character reference, which
    # is not XML, and the CFE could not even be read to be checked.
    return etree.tostring(alone, encoding="UTF-8")


def facts(cfe: etree._Element) -> CfeFacts:
    doc = next(child for child in cfe if isinstance(child.tag, str) and not child.tag.endswith("Signature"))

    def text(path: str) -> str:
        return (doc.findtext(path, namespaces=NS) or "").strip()

    return CfeFacts(
        tipo_cfe=int(text("d:Encabezado/d:IdDoc/d:TipoCFE")),
        serie=text("d:Encabezado/d:IdDoc/d:Serie"),
        nro=int(text("d:Encabezado/d:IdDoc/d:Nro")),
        fecha=text("d:Encabezado/d:IdDoc/d:FchEmis"),
        tmst=text("d:TmstFirma"),
        rut=text("d:Encabezado/d:Emisor/d:RUCEmisor"),
        cae_id=int(text("d:CAEData/d:CAE_ID") or 0),
        receiver_name=text("d:Encabezado/d:Receptor/d:RznSocRecep"),
        element=doc,
    )


def check_cfe(
    session: Session, cfe: etree._Element, envelope: etree._Element, cert_pem: bytes, rut: str, reject_marker: str = ""
) -> tuple[CfeFacts, list[dict]]:
    """The motives DGI would reject this CFE for (empty: accepted)."""
    found = facts(cfe)
    motives = []
    if not verify_signature(standalone(cfe, envelope), cert_pem):
        motives.append(motive("E04", "La firma no verifica con el certificado del sobre."))
    contingency = found.tipo_cfe in CFC_TYPES
    motives += _book_checks(session, found, rut) if contingency else _cae_checks(session, found, rut)
    earlier = session.scalar(
        select(SimCfe.estado).where(
            SimCfe.rut_emisor == rut,
            SimCfe.tipo_cfe == found.tipo_cfe,
            SimCfe.serie == found.serie,
            SimCfe.nro == found.nro,
        )
    )
    if earlier is not None and not (contingency and earlier == "CE"):  # an observed CFC comes back corrected
        motives.append(motive("E02"))
    wrong_totals = totals_problem(found.element)
    if wrong_totals:
        motives.append(motive("E05", wrong_totals))
    motives += _reference_checks(session, found, rut)
    motives += type_problems(found.element, electronic_type(found.tipo_cfe))  # a CFC's zones are its 1xx type's
    if reject_marker and reject_marker in found.receiver_name:
        code = found.receiver_name.split(reject_marker, 1)[1][:3]
        motives.append(motive(code, "Rechazo pedido por la configuración de desarrollo del simulador."))
    return found, motives


def _book_checks(session: Session, found: CfeFacts, rut: str) -> list[dict]:
    """A CFC against the printed book DGI authorised (its CAE number, type, serie, range and dates)."""
    book = session.scalar(
        select(ContingencyBook)
        .join(Company, Company.id == ContingencyBook.company_id)
        .where(ContingencyBook.cae_id == str(found.cae_id), Company.rut == rut)
    )
    if book is None or book.tipo_cfe != found.tipo_cfe or found.rut != rut:
        return [motive("E09", f"La constancia {found.cae_id} no autoriza el tipo {found.tipo_cfe} al RUT {found.rut}.")]
    problems = []
    first, last = book.nro_desde, book.nro_hasta  # numbers, not days
    if book.serie != found.serie or not first <= found.nro <= last:
        problems.append(
            motive("E03", f"{found.serie}-{found.nro} fuera de la libreta {book.serie}, números {first} a {last}.")
        )
    issued_on = date.fromisoformat(found.fecha) if found.fecha else date.min
    if not book.fecha_autorizacion <= issued_on <= book.fecha_vencimiento:
        problems.append(motive("E07", f"El {issued_on:%d/%m/%Y} la libreta no estaba vigente."))
    return problems


def _cae_checks(session: Session, found: CfeFacts, rut: str) -> list[dict]:
    cae = session.scalar(
        select(CaeRangeRecord)
        .join(Company, Company.id == CaeRangeRecord.company_id)
        .where(CaeRangeRecord.cae_id == found.cae_id, Company.rut == rut)
    )
    if cae is None or cae.tipo_cfe != found.tipo_cfe or found.rut != rut:
        return [motive("E09", f"El CAE {found.cae_id} no autoriza el tipo {found.tipo_cfe} al RUT {found.rut}.")]
    problems = []
    if cae.serie != found.serie or not cae.dnro <= found.nro <= cae.hnro:
        problems.append(motive("E03", f"{found.serie}-{found.nro} fuera del rango {cae.serie} {cae.dnro}-{cae.hnro}."))
    signed_on = datetime.fromisoformat(found.tmst).date() if found.tmst else date.min
    if not cae.fecha_autorizacion <= signed_on <= cae.vencimiento:
        problems.append(
            motive(
                "E07",
                f"Firmado el {signed_on:%d/%m/%Y}, CAE vigente del "
                f"{cae.fecha_autorizacion:%d/%m/%Y} al {cae.vencimiento:%d/%m/%Y}.",
            )
        )
    voided = session.scalar(
        select(VoidedRange.id).where(
            VoidedRange.cae_range_id == cae.id,
            VoidedRange.source == "operador",
            VoidedRange.serie == found.serie,
            VoidedRange.nro_desde <= found.nro,
            VoidedRange.nro_hasta >= found.nro,
        )
    )
    if voided:
        problems.append(motive("E01"))
    return problems


def _amount(totales: etree._Element, name: str) -> Decimal:
    try:
        return Decimal(totales.findtext(f"d:{name}", default="0", namespaces=NS).strip())
    except InvalidOperation:
        return Decimal(0)


def totals_problem(doc: etree._Element) -> str | None:
    """DGI's formulas: each rate's IVA = net x rate, and MntTotal = the sum of nets and IVA, with one cent of
    tolerance per IVA rate present and nothing more."""
    totales = doc.find("d:Encabezado/d:Totales", namespaces=NS)
    if totales is None or totales.find("d:MntTotal", namespaces=NS) is None:
        return None  # e-Remito and e-Resguardo carry no IVA totals
    tolerance = Decimal(0)
    for net, rate, iva in _RATES:
        if totales.find(f"d:{net}", namespaces=NS) is None:
            continue
        tolerance += _CENT
        expected = (_amount(totales, net) * _amount(totales, rate) / 100).quantize(_CENT, rounding=ROUND_HALF_UP)
        if abs(expected - _amount(totales, iva)) > _CENT:
            return _(
                "{iva} {amount} no es {net} por la tasa ({expected}).",
                iva=iva,
                amount=_amount(totales, iva),
                net=net,
                expected=expected,
            )
    total = sum((_amount(totales, name) for name in _NETS), Decimal(0))
    if abs(total - _amount(totales, "MntTotal")) > tolerance:
        return _(
            "MntTotal {amount} no es la suma de netos e IVA ({total}).",
            amount=_amount(totales, "MntTotal"),
            total=total,
        )
    return None


def _reference_checks(session: Session, found: CfeFacts, rut: str) -> list[dict]:
    """A note must refer to receipts DGI holds. e-Tickets below the threshold reach DGI only summarised in
    the daily report, so references to the e-Ticket family are not checked one by one."""
    if found.tipo_cfe not in NOTE_BASE_TYPE:
        return []
    problems = []
    for ref in found.element.findall("d:Referencia/d:Referencia", namespaces=NS):
        if (ref.findtext("d:IndGlobal", namespaces=NS) or "").strip() == "1":
            continue
        tipo = int(ref.findtext("d:TpoDocRef", default="0", namespaces=NS))
        serie = (ref.findtext("d:Serie", default="", namespaces=NS)).strip()
        nro = int(ref.findtext("d:NroCFERef", default="0", namespaces=NS))
        if tipo in _TICKET_TYPES:
            continue
        seen = session.scalar(
            select(SimCfe.estado).where(
                SimCfe.rut_emisor == rut, SimCfe.tipo_cfe == tipo, SimCfe.serie == serie, SimCfe.nro == nro
            )
        )
        if seen not in ("AE", "CE"):
            problems.append(motive("E12", f"DGI no tiene registrado el comprobante {tipo} {serie}-{nro}."))
    return problems
