"""From a minimal input to a complete CFE: the type, the receiver, each line's IVA, and what a careful
clerk would warn about. Every inference is reported with its reason; nothing is guessed silently."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from pydantic import ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import CREDIT_NOTE_OF, DEBIT_NOTE_OF, NO_UNIT, NOTE_BASE_TYPE
from portal.domain.empresa import SMALL_TAXPAYER_REGIMES
from portal.domain.identifiers import DocType, digits_only, is_valid_ci, is_valid_rut
from portal.domain.iva_categories import CATEGORY_RATES, RATE_TO_IND_FACT
from portal.domain.money import cfe_rate
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe import CfeInput, compute_totals
from portal.service.cfe.pdf_text import money
from portal.service.cfe.rules import ui_threshold_on
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe
from portal.service.comprobante.numbering import LOW_RANGE_SHARE
from portal.service.cotizaciones.rates import rate_on
from portal.service.dgi.receiver import receiver_from_dgi
from portal.service.dgi.registry import DgiError, TaxpayerRegistry
from portal.service.empresa.models import CompanySettings
from portal.service.indices.ui import ui_value_on
from portal.service.inteligente import exportation
from portal.service.inteligente.schemas import ReceptorInteligente, SolicitudInteligente
from portal.service.intercambio.directory import ELECTRONIC_RECEIVER, is_electronic_receiver
from portal.service.platform import i18n
from portal.service.platform.api import validation_fields
from portal.service.platform.errors import FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _, cfe_type

# A total above this multiple of the company's recent average for the type is flagged as unusual.
UNUSUAL_TOTAL_FACTOR = Decimal(3)
UNUSUAL_TOTAL_MIN_HISTORY = 5


@dataclass
class Findings:
    """What inference worked out (field, value, reason) and what it warns about (code, message)."""

    inferences: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)

    def infer(self, campo: str, valor, motivo: str) -> None:
        self.inferences.append({"campo": campo, "valor": valor, **i18n.stored(motivo, "motivo")})

    def warn(self, codigo: str, mensaje: str) -> None:
        self.warnings.append({"codigo": codigo, **i18n.stored(mensaje)})


def _doc_type(receptor: ReceptorInteligente, work: Findings) -> tuple[int, str]:
    number = receptor.documento
    if receptor.tipo_doc is not None:
        return receptor.tipo_doc, digits_only(number) if receptor.tipo_doc in (1, 2, 3) else number
    digits = digits_only(number)
    if (
        digits == number.replace(".", "").replace("-", "").replace(" ", "")
        and len(digits) == 12
        and is_valid_rut(digits)
    ):
        work.infer("receptor.tipoDocRecep", 2, _("El documento es un RUT válido."))
        return DocType.RUT, digits
    if digits and len(digits) <= 8 and is_valid_ci(digits):
        work.infer("receptor.tipoDocRecep", 3, _("El documento es una cédula válida."))
        return DocType.CI, digits
    raise ValidationFailed(
        [
            FieldError(
                "receptor.documento",
                "tipo_no_deducible",
                _(
                    "No es un RUT ni una cédula válidos; indicá qué documento es (pasaporte, DNI, NIFE u otro) "
                    "y su país."
                ),
            )
        ]
    )


def _receiver(receptor: ReceptorInteligente | None, registry: TaxpayerRegistry, work: Findings) -> dict | None:
    if receptor is None:
        return None
    doc_type, number = _doc_type(receptor, work)
    result = {"tipoDocRecep": doc_type, "docRecep": number}
    result["codPaisRecep"] = receptor.pais or ("UY" if doc_type in (1, 2, 3) else "99")
    overrides = {
        "rznSocRecep": receptor.nombre,
        "dirRecep": receptor.direccion,
        "ciudadRecep": receptor.ciudad,
        "deptoRecep": receptor.departamento,
    }
    if doc_type == DocType.RUT:
        _from_dgi(number, registry, result, work)
    result.update({k: v for k, v in overrides.items() if v})
    return result


def _from_dgi(rut: str, registry: TaxpayerRegistry, result: dict, work: Findings) -> None:
    try:
        found = receiver_from_dgi(registry, DocType.RUT, rut, electronic=is_electronic_receiver)
    except DgiError as exc:
        work.warn(
            "dgi_no_disponible",
            _("No se pudo consultar a DGI ({detalle}); se usan los datos ingresados.", detalle=exc.message),
        )
        return
    result.update(found.fields)
    if "rznSocRecep" in found.fields:
        work.infer("receptor.rznSocRecep", result["rznSocRecep"], _("Denominación registrada en DGI."))
    if "dirRecep" in found.fields:
        work.infer("receptor.dirRecep", result["dirRecep"], _("Domicilio fiscal registrado en DGI."))
    if found.electronic:
        work.infer("receptor.electronico", True, ELECTRONIC_RECEIVER)
    for warning in found.warnings:
        work.warn(warning.codigo, warning.mensaje)


def _cfe_type(
    request: SolicitudInteligente, receiver: dict | None, referenced: IssuedCfe | None, work: Findings
) -> int:
    if request.pistas and request.pistas.tipo_cfe:
        work.infer("tipoCFE", request.pistas.tipo_cfe, _("Indicado en las pistas."))
        return request.pistas.tipo_cfe
    if referenced is not None:
        assert request.referencia is not None  # `referenced` is the receipt it names
        table = CREDIT_NOTE_OF if request.referencia.tipo == "credito" else DEBIT_NOTE_OF
        base = NOTE_BASE_TYPE.get(referenced.tipo_cfe, referenced.tipo_cfe)
        tipo = table[base if base in table else 111]  # e-Remito and e-Resguardo: as before, the e-Factura's
        work.infer(
            "tipoCFE",
            tipo,
            _(
                "Nota de {tipo} de un comprobante {original}.",
                tipo=request.referencia.tipo,
                original=cfe_type(referenced.tipo_cfe),
            ),
        )
        return tipo
    if receiver is not None and exportation.is_foreign(request, receiver):
        work.infer(
            "tipoCFE",
            121,
            _("El receptor está en el exterior ({pais}): e-Factura de Exportación.", pais=receiver["codPaisRecep"]),
        )
        return 121
    if receiver and receiver["tipoDocRecep"] == DocType.RUT:
        work.infer("tipoCFE", 111, _("El receptor tiene RUT: corresponde e-Factura."))
        return 111
    work.infer("tipoCFE", 101, _("Receptor sin RUT (o sin receptor): corresponde e-Ticket."))
    return 101


def _items(request: SolicitudInteligente, work: Findings) -> list[dict]:
    items = []
    for index, line in enumerate(request.lineas):
        if line.tasa:
            ind_fact = RATE_TO_IND_FACT[line.tasa]
        elif line.categoria:
            ind_fact, label = CATEGORY_RATES[line.categoria]
            work.infer(
                f"items[{index}].indFact",
                ind_fact,
                _("Categoría {categoria}: {tasa}.", categoria=line.categoria, tasa=label),
            )
        else:
            ind_fact = 3
            work.infer(f"items[{index}].indFact", 3, _("Sin tasa ni categoría: tasa básica 22%."))
        item = {
            "indFact": ind_fact,
            "nomItem": line.descripcion,
            "cantidad": str(line.cantidad),
            "uniMed": line.unidad or NO_UNIT,
            "precioUnitario": str(line.precio),
        }
        if line.descuento_pct:
            discount = (line.cantidad * line.precio * line.descuento_pct / 100).quantize(Decimal("0.01"))
            item.update(descuentoPct=str(line.descuento_pct), descuentoMonto=str(discount))
        items.append(item)
    return items


def _referenced(session: Session, company_id: int, request: SolicitudInteligente) -> IssuedCfe | None:
    if request.referencia is None:
        return None
    found = session.scalar(
        select(IssuedCfe).where(IssuedCfe.id == request.referencia.id_cfe_emitido, IssuedCfe.company_id == company_id)
    )
    if found is None:
        raise NotFound(_("No existe el comprobante referenciado en tu empresa."), code="referencia_no_encontrada")
    return found


@dataclass
class Draft:
    cfe: CfeInput
    findings: Findings

    def warn(self, codigo: str, mensaje: str) -> None:
        self.findings.warn(codigo, mensaje)


def _day_rate(session: Session, currency: str, body: dict, work: Findings) -> None:
    """TpoCambio from the day's rate (the latest published, at most 10 days old), saying whose it is (the BCU's,
    its stand-in's invented one, an operator's); without one the CFE's own rule asks for it."""
    rate = rate_on(session, currency, today_montevideo())
    if rate is None:
        return
    value = cfe_rate(rate.sell)
    body["tpoCambio"] = str(value)
    day = f"{rate.day:%d/%m/%Y}"
    if rate.source == "simulador":
        reason = _("Cotización del simulador del BCU (venta, no oficial) del {dia}.", dia=day)
    elif rate.source == "operador":
        reason = _("Cotización corregida por un operador (venta) del {dia}.", dia=day)
    else:
        reason = _("Cotización del BCU (venta) del {dia}.", dia=day)
    work.infer("tpoCambio", str(value), reason)


def infer_draft(session: Session, company_id: int, request: SolicitudInteligente, registry: TaxpayerRegistry) -> Draft:
    """The complete CFE a careful clerk would issue, with the reasons and warnings."""
    work = Findings()
    receiver = _receiver(request.receptor, registry, work)
    referenced = _referenced(session, company_id, request)
    tipo = _cfe_type(request, receiver, referenced, work)
    body: dict = {
        "tipoCFE": tipo,
        "fmaPago": request.forma_pago,
        "mntBruto": request.precios_incluyen_iva,
        "tpoMoneda": request.moneda,
        "items": _items(request, work),
    }
    if tipo in exportation.EXPORT_INVOICES:
        exportation.fit(request, body, receiver, referenced, work)
    else:
        _fit_regime(session, company_id, body, work)
    if request.tipo_cambio is not None:
        body["tpoCambio"] = str(request.tipo_cambio)
    elif request.moneda != "UYU":
        _day_rate(session, request.moneda, body, work)
    if receiver:
        body["receptor"] = receiver
    if referenced is not None:
        assert request.referencia is not None  # `referenced` is the receipt it names
        body["referencias"] = [
            {
                "tpoDocRef": referenced.tipo_cfe,
                "serie": referenced.serie,
                "nroCFERef": referenced.nro,
                "razonRef": request.referencia.razon,
                "fechaCFEref": referenced.fch_emis.isoformat(),
            }
        ]
    if request.adenda:
        body["adenda"] = request.adenda
    try:
        cfe = CfeInput.model_validate(body)
    except ValidationError as exc:
        raise ValidationFailed(validation_fields(exc), message=_("El borrador deducido no es válido.")) from exc
    draft = Draft(cfe, work)
    _warn_about_amounts(session, company_id, draft)
    return draft


def _fit_regime(session: Session, company_id: int, body: dict, work: Findings) -> None:
    """IVA mínimo and Monotributo issuers sell without IVA: MntBruto 3 and indicator 16 on the lines that
    would carry IVA or be exempt (DGI A-C10 and B-C4)."""
    settings = session.get(CompanySettings, company_id)
    regimen = settings.regimen if settings is not None else "general"
    if regimen not in SMALL_TAXPAYER_REGIMES:
        return
    body["mntBruto"] = 3
    work.infer("mntBruto", 3, _("La empresa es contribuyente IVA mínimo o Monotributo: ventas sin IVA."))
    for index, item in enumerate(body["items"]):
        if item["indFact"] in (1, 2, 3, 4, 11, 12):
            item["indFact"] = 16
            work.infer(f"items[{index}].indFact", 16, _("Venta de un contribuyente IVA mínimo o Monotributo."))


def _warn_about_amounts(session: Session, company_id: int, draft: Draft) -> None:
    cfe = draft.cfe
    totals = compute_totals(cfe)
    rate = cfe.tpo_cambio or Decimal(1)
    threshold = ui_threshold_on(cfe.fch_emis)
    limit = threshold * ui_value_on(cfe.fch_emis, session)
    if cfe.tipo_cfe in (101, 102, 103) and cfe.receptor and totals.mnt_neto * rate > limit:
        draft.warn(
            "eticket_supera_tope",
            _(
                "El neto supera {tope} UI: este e-Ticket se envía a DGI individualmente y debe identificar al "
                "receptor.",
                tope=threshold,
            ),
        )
    ranges = session.scalars(
        select(CaeRangeRecord).where(
            CaeRangeRecord.company_id == company_id,
            CaeRangeRecord.tipo_cfe == cfe.tipo_cfe,
            CaeRangeRecord.next_nro <= CaeRangeRecord.hnro,
        )
    ).all()
    if ranges and sum(r.remaining for r in ranges) < max(r.size for r in ranges) * LOW_RANGE_SHARE:
        draft.warn(
            "cae_por_agotarse",
            _(
                "Quedan {cantidad} números de CAE para el tipo {tipo}. Pedí un nuevo CAE a DGI.",
                cantidad=sum(r.remaining for r in ranges),
                tipo=cfe_type(cfe.tipo_cfe),
            ),
        )
    recent = (
        select(IssuedCfe.mnt_total)
        .where(
            IssuedCfe.company_id == company_id,
            IssuedCfe.tipo_cfe == cfe.tipo_cfe,
            IssuedCfe.tpo_moneda == cfe.tpo_moneda,
        )
        .order_by(IssuedCfe.created_at.desc())
        .limit(50)
        .subquery()
    )
    count, average = session.execute(select(func.count(), func.avg(recent.c.mnt_total))).one()
    if (
        count >= UNUSUAL_TOTAL_MIN_HISTORY
        and average
        and totals.mnt_total > Decimal(str(average)) * UNUSUAL_TOTAL_FACTOR
    ):
        draft.warn(
            "total_inusual",
            _(
                "El total ({total}) es más del triple del promedio de los últimos {cantidad} comprobantes de "
                "este tipo ({promedio}).",
                total=money(totals.mnt_total),
                cantidad=count,
                promedio=money(Decimal(str(average))),
            ),
        )
