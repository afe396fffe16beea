"""Business rules of DGI's "Formato de los CFE" v25 that the JSON schema alone cannot express.

Field paths use the API's JSON names with indexes from 0 ("items[2].precioUnitario"). Whether a referenced
receipt exists needs the database and is the caller's check, not this module's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from stdnum import ean

from portal.domain.cfe_types import (
    FIRST_CFE_DAY,
    LAST_CFE_DAY,
    NOTE_REFERENCE_TYPES,
    CfeType,
    cfe_type,
)
from portal.domain.identifiers import DNI_COUNTRIES, URUGUAYAN_DOC_TYPES, DocType, document_error
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.amounts import Totals, compute_totals, line_amount
from portal.service.cfe.codes import (
    ALL_CFE_TYPES,
    COUNTRIES,
    CURRENCIES,
    ELEMENT_TYPES,
    IND_FACT_BOLETA,
    IND_FACT_EFACT_EXP,
    IND_FACT_EREM,
    IND_FACT_EREM_EXP,
    IND_FACT_ERESG,
    IND_FACT_ETCK_EFACT,
)
from portal.service.cfe.emission import Numbering
from portal.service.cfe.errors import CfeValidationError, FieldError
from portal.service.cfe.model import CfeInput, Item, Receptor
from portal.service.cfe.model_parts import MAX_AMOUNT
from portal.service.cfe.pdf_text import money
from portal.service.cfe.rules_dgi import Emission, check, check_cae
from portal.service.cfe.rules_types import check_type_fields
from portal.service.platform import i18n
from portal.service.platform.i18n import _

# Tabla E: an e-Ticket whose net amount exceeds this many UI must identify the receiver and be sent to DGI:
# 10.000 UI from 08/05/2012 to 31/10/2022, 5.000 UI since 01/11/2022.
UI_THRESHOLD = Decimal(5000)
_UI_THRESHOLD_BEFORE = Decimal(10000)
_UI_THRESHOLD_SINCE = date(2022, 11, 1)
_MIN_DATE, _MAX_DATE = FIRST_CFE_DAY, LAST_CFE_DAY
_TOO_LARGE = _("pasaría de 999.999.999.999.999,99, lo más que admite DGI.")
_DOC_ERRORS = {
    "required": _("Falta el número de documento."),
    "format": _("Formato de documento inválido."),
    "check_digit": _("Dígito verificador incorrecto."),
}
_GTIN_LENGTHS = {"GTIN8": 8, "GTIN12": 12, "GTIN13": 13, "GTIN14": 14}
# The IndFact each priced detail line admits (XSD), by the element that carries it.
_PRICED_IND_FACT = {
    "eTck": IND_FACT_ETCK_EFACT,
    "eFact": IND_FACT_ETCK_EFACT,
    "eFact_Exp": IND_FACT_EFACT_EXP,
    "eBoleta": IND_FACT_BOLETA,
}
# Elements whose header has payment terms (FmaPago) and whose lines are priced and totalled.
_INVOICE_ELEMENTS = ("eTck", "eFact", "eFact_Exp", "eBoleta")
_REMITO_ELEMENTS = ("eRem", "eRem_Exp")
# Item fields that each kind of detail line does not have in the XSD (JSON names).
_NOT_IN_REMITO = (
    "precioUnitario",
    "descuentoPct",
    "descuentoMonto",
    "recargoPct",
    "recargoMnt",
    "retencPercep",
    "indAgenteResp",
)
_NOT_IN_RESGUARDO = (
    "nomItem",
    "dscItem",
    "cantidad",
    "uniMed",
    "precioUnitario",
    "descuentoPct",
    "descuentoMonto",
    "recargoPct",
    "recargoMnt",
    "codItem",
    "indAgenteResp",
)


class _Errors(list):
    def add(self, field: str, code: str, message: str) -> None:
        error = FieldError(field, code, message)
        if error not in self:  # several lines can break the same header rule
            self.append(error)


def _attr(model, alias: str) -> str:
    """The Python attribute behind a JSON name."""
    return next(name for name, info in type(model).model_fields.items() if (info.alias or name) == alias)


def _given(model, alias: str) -> bool:
    """Whether the caller sent this field (by its JSON name), so defaults are not mistaken for input."""
    return _attr(model, alias) in model.model_fields_set


def ui_threshold_on(fch_emis: date) -> Decimal:
    """Tabla E's threshold in UI for an e-Ticket issued on `fch_emis`."""
    return UI_THRESHOLD if fch_emis >= _UI_THRESHOLD_SINCE else _UI_THRESHOLD_BEFORE


@dataclass(frozen=True)
class Validation:
    """What `validate` found: every rule the input breaks (`errors`, empty when the receipt can be built) and
    the totals it computed on the way (None when the lines are in error), which signing uses as they are."""

    errors: list[FieldError]
    totals: Totals | None


def validate(cfe: CfeInput, *, ui_value: Decimal, emission: Emission | None = None) -> Validation:
    """Every rule the input breaks, and the totals computed to check them.

    `ui_value` is the Unidad Indexada in pesos that Tabla E says to use (the quote at the close of the
    year before the issue date); foreign-currency amounts are converted with tpoCambio before comparing.
    `emission` says who issues it and when (by default a general-regime issuer signing today).
    """
    kind = cfe_type(cfe.tipo_cfe)
    errors = _Errors()
    _header(cfe, kind, errors)
    _items(cfe, kind, errors)
    _references(cfe, kind, errors)
    check_type_fields(cfe, kind, errors)
    check(cfe, kind, emission or Emission(signing_date=today_montevideo()), errors)
    totals = None if any(e.field.startswith("items") for e in errors) else compute_totals(cfe)
    if totals is not None:
        _totals(cfe, totals, errors)
    _receptor(cfe, kind, receiver_required(cfe, ui_value, totals), errors)
    return Validation(list(errors), totals)


def cae_errors(cfe: CfeInput, emission: Emission) -> list[FieldError]:
    """What `validate` adds once the number is allocated (`emission.cae_allocated`): the rules its CAE
    especial decides. For a receipt `validate` found clean with the same ui_value, regime and input, before
    its number was taken (the issue checks before it numbers): the other rules would only repeat that."""
    errors = _Errors()
    check_cae(cfe, cfe_type(cfe.tipo_cfe), emission, errors)
    return list(errors)


def receiver_required(cfe: CfeInput, ui_value: Decimal, totals: Totals | None) -> bool:
    """Whether the receipt must identify its receiver: always for e-Factura, e-Remito and e-Resguardo; an
    e-Ticket when it has retentions or perceptions or its net amount in pesos passes Tabla E's threshold
    (`ui_value` is the UI of the issue date's year). `totals` is compute_totals(cfe), None when its lines
    are in error (then only retentions count)."""
    kind = cfe_type(cfe.tipo_cfe)
    if kind.element != "eTck":
        return kind.element in ("eFact", "eRem", "eResg", "eFact_Exp", "eRem_Exp", "eBoleta")
    if any(item.retenc_percep for item in cfe.items):
        return True
    net = totals.mnt_neto if totals else Decimal(0)
    net_uyu = net if cfe.tpo_moneda == "UYU" else net * (cfe.tpo_cambio or 0)
    return net_uyu > ui_value * ui_threshold_on(cfe.fch_emis)


def ensure_valid(cfe: CfeInput, *, ui_value: Decimal, emission: Emission | None = None) -> None:
    """Raise CfeValidationError when `validate` finds anything."""
    errors = validate(cfe, ui_value=ui_value, emission=emission).errors
    if errors:
        raise CfeValidationError(errors)


def numbering_errors(numbering: Numbering, fch_emis: date) -> list[FieldError]:
    """The allocated number and CAE as FieldErrors under "caeData" (the caller's state, not its input)."""
    return [FieldError(f"caeData.{field}", code, msg) for field, code, msg in numbering.problems(fch_emis)]


def _header(cfe: CfeInput, kind: CfeType, errors: _Errors) -> None:
    invoice_like = kind.element in _INVOICE_ELEMENTS
    if not _MIN_DATE <= cfe.fch_emis <= _MAX_DATE:
        errors.add("fchEmis", "out_of_range", _("La fecha debe estar entre el 01/10/2011 y el 31/12/2050."))
    if invoice_like and cfe.fma_pago is None:
        errors.add("fmaPago", "required", _("Indicá la forma de pago: 1 contado, 2 crédito."))
    if cfe.fch_valor and not _MIN_DATE <= cfe.fch_valor <= _MAX_DATE:
        errors.add("fchValor", "out_of_range", _("La fecha valor debe estar entre el 01/10/2011 y el 31/12/2050."))
    if cfe.fch_venc and cfe.fch_venc < cfe.fch_emis:
        errors.add(
            "fchVenc", "before_issue_date", _("El vencimiento no puede ser anterior a la fecha del comprobante.")
        )
    if cfe.fch_venc and cfe.fch_venc > _MAX_DATE:
        errors.add(
            "fchVenc", "out_of_range", _("El vencimiento no puede pasar del 31/12/2050 (lo más que admite DGI).")
        )
    not_applicable = {
        "fmaPago": not invoice_like,
        "fchVenc": not invoice_like,
        "mntBruto": not invoice_like,
        "dscRcgGlobal": not invoice_like,
        "mediosPago": not invoice_like,
        "mntIVAOtra": not invoice_like,
        "tpoMoneda": kind.element == "eRem",
        "tpoCambio": kind.element == "eRem",
        "tipoTraslado": kind.element not in _REMITO_ELEMENTS,
        "fchValor": kind.element != "eResg",
    }
    for alias, flagged in not_applicable.items():
        if flagged and _given(cfe, alias):
            errors.add(alias, "not_applicable", _("No corresponde a {name_es}.", name_es=i18n.cfe_type(kind.code)))
    if cfe.mnt_iva_otra is not None and not any(item.ind_fact == 4 for item in cfe.items):
        errors.add(
            "mntIVAOtra", "not_applicable", _("Solo corresponde si hay ítems gravados a otra tasa (indicador 4).")
        )
    if kind.element in _REMITO_ELEMENTS and cfe.tipo_traslado is None:
        errors.add("tipoTraslado", "required", _("Indicá el tipo de traslado: 1 venta, 2 traslado interno."))
    if kind.element != "eRem":
        if cfe.tpo_moneda not in CURRENCIES:
            errors.add("tpoMoneda", "not_allowed", _("Moneda desconocida (ISO 4217, UYI o UYR)."))
        elif cfe.tpo_moneda != "UYU" and cfe.tpo_cambio is None:
            errors.add("tpoCambio", "required", _("El tipo de cambio es obligatorio si la moneda no es UYU."))


def _items(cfe: CfeInput, kind: CfeType, errors: _Errors) -> None:
    if len(cfe.items) > kind.max_lines:
        errors.add(
            "items",
            "too_many",
            _("{name_es} admite hasta {max_lines} líneas.", name_es=i18n.cfe_type(kind.code), max_lines=kind.max_lines),
        )
    for i, item in enumerate(cfe.items):
        where = f"items[{i}]"
        if kind.element == "eRem":
            _item_fields(item, where, "nomItem cantidad", _NOT_IN_REMITO, IND_FACT_EREM, kind, errors)
        elif kind.element == "eResg":
            _item_fields(item, where, "retencPercep", _NOT_IN_RESGUARDO, IND_FACT_ERESG, kind, errors)
            for j, ret in enumerate(item.retenc_percep):
                if ret.mnt_sujetoa_ret is None:
                    errors.add(
                        f"{where}.retencPercep[{j}].mntSujetoaRet",
                        "required",
                        _("El monto sujeto a retención es obligatorio en e-Resguardo."),
                    )
        elif kind.element == "eRem_Exp":
            _item_fields(
                item, where, "nomItem cantidad precioUnitario", _NOT_IN_REMITO[1:], IND_FACT_EREM_EXP, kind, errors
            )
            _priced_item(cfe, item, where, errors)
        else:
            absent = ("retencPercep", "indAgenteResp") if kind.element == "eFact_Exp" else ()
            allowed = _PRICED_IND_FACT[kind.element]
            _item_fields(item, where, "indFact nomItem cantidad precioUnitario", absent, allowed, kind, errors)
            _priced_item(cfe, item, where, errors)


def _item_fields(
    item: Item,
    where: str,
    required: str,
    absent: tuple[str, ...],
    allowed: frozenset[int],
    kind: CfeType,
    errors: _Errors,
) -> None:
    for alias in required.split():
        if alias == "retencPercep" and not item.retenc_percep:
            errors.add(f"{where}.retencPercep", "required", _("Indicá al menos una retención o percepción."))
        elif alias != "retencPercep" and getattr(item, _attr(item, alias)) is None:
            errors.add(f"{where}.{alias}", "required", _("Campo obligatorio."))
    for alias in absent:
        if _given(item, alias) and getattr(item, _attr(item, alias)) not in (None, []):
            errors.add(
                f"{where}.{alias}", "not_applicable", _("No corresponde a {name_es}.", name_es=i18n.cfe_type(kind.code))
            )
    for j, code in enumerate(item.cod_item):
        # B-C3: DGI checks the GS1 check digit of GTIN codes.
        length = _GTIN_LENGTHS.get(code.tpo_cod.upper())
        if length and not (len(code.cod) == length and ean.is_valid(code.cod)):
            errors.add(
                f"{where}.codItem[{j}].cod", "check_digit", _("Código {tpo_cod} inválido.", tpo_cod=code.tpo_cod)
            )
    if item.ind_fact is not None and item.ind_fact not in allowed:
        allowed_text = ", ".join(str(v) for v in sorted(allowed))
        errors.add(
            f"{where}.indFact",
            "not_allowed",
            _(
                "{name_es} admite los indicadores de facturación {allowed_text}.",
                name_es=i18n.cfe_type(kind.code),
                allowed_text=allowed_text,
            ),
        )


def _priced_item(cfe: CfeInput, item: Item, where: str, errors: _Errors) -> None:
    if item.descuento_pct is not None and item.descuento_monto is None:
        errors.add(
            f"{where}.descuentoMonto", "required", _("Si hay un porcentaje de descuento, indicá también su monto.")
        )
    if item.recargo_pct is not None and item.recargo_mnt is None:
        errors.add(f"{where}.recargoMnt", "required", _("Si hay un porcentaje de recargo, indicá también su monto."))
    if item.retenc_percep and item.ind_agente_resp is None:
        errors.add(
            f"{where}.indAgenteResp",
            "required",
            _("Indicá si sos agente o responsable (R o A) cuando el ítem lleva retenciones."),
        )
    if item.ind_fact == 5 and (item.precio_unitario or line_amount(item)):
        errors.add(f"{where}.precioUnitario", "must_be_zero", _("Una entrega gratuita (indicador 5) vale 0."))
    if item.ind_fact == 4:
        if cfe.mnt_bruto == 1:
            errors.add(
                f"{where}.indFact",
                "not_supported",
                _("Los ítems gravados a otra tasa (indicador 4) no se admiten con precios con IVA incluido."),
            )
        if not cfe.mnt_iva_otra:
            errors.add("mntIVAOtra", "required", _("Indicá el IVA a otra tasa de los ítems con indicador 4."))


def _references(cfe: CfeInput, kind: CfeType, errors: _Errors) -> None:
    if kind.is_note and not cfe.referencias:
        errors.add(
            "referencias", "required", _("Una nota de crédito o débito debe referenciar al menos un comprobante.")
        )
    seen = set()
    for i, ref in enumerate(cfe.referencias):
        where = f"referencias[{i}]"
        if ref.ind_global == 1:
            if not ref.razon_ref:
                errors.add(f"{where}.razonRef", "required", _("Una referencia global necesita su razón."))
            for alias in ("tpoDocRef", "serie", "nroCFERef"):
                if getattr(ref, _attr(ref, alias)) is not None:
                    errors.add(f"{where}.{alias}", "not_applicable", _("No corresponde en una referencia global."))
            continue
        for alias in ("tpoDocRef", "serie", "nroCFERef"):
            if getattr(ref, _attr(ref, alias)) is None:
                errors.add(
                    f"{where}.{alias}", "required", _("Campo obligatorio (o una referencia global con su razón).")
                )
        if ref.tpo_doc_ref is not None:
            noted = NOTE_REFERENCE_TYPES.get(kind.code)
            allowed = noted or (ELEMENT_TYPES[kind.element] if kind.is_note else None)
            if ref.tpo_doc_ref not in (allowed or ALL_CFE_TYPES):
                only = i18n.cfe_types_either(noted) if noted else ""
                errors.add(
                    f"{where}.tpoDocRef",
                    "not_allowed",
                    _(
                        "Tipo de comprobante no admitido como referencia de {name_es}: solo {only}.",
                        name_es=i18n.cfe_type(kind.code),
                        only=only,
                    )
                    if only
                    else _(
                        "Tipo de comprobante no admitido como referencia de {name_es}.",
                        name_es=i18n.cfe_type(kind.code),
                    ),
                )
        key = (ref.tpo_doc_ref, ref.serie, ref.nro_cfe_ref)
        if key in seen:
            errors.add(where, "duplicate", _("Comprobante referenciado más de una vez."))
        seen.add(key)
        if ref.fecha_cfe_ref and not _MIN_DATE <= ref.fecha_cfe_ref <= _MAX_DATE:
            errors.add(
                f"{where}.fechaCFEref", "out_of_range", _("La fecha debe estar entre el 01/10/2011 y el 31/12/2050.")
            )


def _totals(cfe: CfeInput, totals: Totals, errors: _Errors) -> None:
    non_negative = {
        "no gravado": totals.mnt_no_grv,
        "de impuesto percibido": totals.mnt_impuesto_perc,
        "de IVA en suspenso": totals.mnt_iva_en_susp,
        "neto a tasa mínima": totals.mnt_neto_iva_tasa_min,
        "neto a tasa básica": totals.mnt_neto_iva_tasa_basica,
        "neto a otra tasa": totals.mnt_neto_iva_otra,
        "del comprobante": totals.mnt_total,
    }
    for name, value in non_negative.items():
        if value < 0:
            errors.add(
                "dscRcgGlobal" if cfe.dsc_rcg_global else "items",
                "negative_total",
                _("El total {name} quedaría negativo ({money}): revisá los descuentos.", name=name, money=money(value)),
            )
    if len(totals.retenc_percep) > 20:
        errors.add("items", "too_many", _("Hasta 20 códigos de retención o percepción distintos por comprobante."))
    # Each amount fits in its own field, but a line (quantity x price) or a total may not fit DGI's.
    for index, amount in enumerate(totals.line_amounts):
        if abs(amount) > MAX_AMOUNT:
            errors.add(
                f"items[{index}].precioUnitario",
                "too_large",
                _("El monto de la línea {too_large}", too_large=_TOO_LARGE),
            )
    amounts = [value for value in vars(totals).values() if isinstance(value, Decimal)]
    amounts += [amount for _code, amount in totals.retenc_percep]
    if any(abs(amount) > MAX_AMOUNT for amount in amounts):
        errors.add("items", "too_large", _("Un total del comprobante {too_large}", too_large=_TOO_LARGE))


def _receptor(cfe: CfeInput, kind: CfeType, must_identify: bool, errors: _Errors) -> None:
    receptor = cfe.receptor
    if receptor is None:
        if must_identify:
            errors.add(
                "receptor", "required", _("{name_es} debe identificar al receptor.", name_es=i18n.cfe_type(kind.code))
            )
        return
    if must_identify or receptor.tipo_doc_recep is not None or receptor.doc_recep is not None:
        _document(receptor, errors)
    if kind.requires_rut_receiver and receptor.tipo_doc_recep not in (None, DocType.RUT):
        errors.add(
            "receptor.tipoDocRecep", "rut_required", _("La e-Factura y sus notas exigen un receptor con RUT (2).")
        )
    required = {
        "eFact": "rznSocRecep dirRecep ciudadRecep",
        "eRem": "rznSocRecep dirRecep ciudadRecep",
        "eResg": "rznSocRecep",
        # An export names its buyer abroad: name, address and country (its document is checked above).
        "eFact_Exp": "rznSocRecep dirRecep paisRecep",
        "eRem_Exp": "rznSocRecep dirRecep paisRecep",
        # The e-Boleta de entrada's receiver is the seller, printed in its "RUC VENDEDOR" box.
        "eBoleta": "rznSocRecep dirRecep",
    }.get(kind.element, "")
    for alias in required.split():
        if not getattr(receptor, _attr(receptor, alias)):
            errors.add(
                f"receptor.{alias}", "required", _("Obligatorio en {name_es}.", name_es=i18n.cfe_type(kind.code))
            )


def _document(receptor: Receptor, errors: _Errors) -> None:
    doc_type, number, country = receptor.tipo_doc_recep, receptor.doc_recep, receptor.cod_pais_recep
    if doc_type is None:
        errors.add("receptor.tipoDocRecep", "required", _("Indicá el tipo de documento del receptor."))
        return
    problem = document_error(doc_type, number or "")
    if problem:
        errors.add("receptor.docRecep", problem, _DOC_ERRORS[problem])
    if doc_type in URUGUAYAN_DOC_TYPES:
        if country not in (None, "UY"):
            errors.add("receptor.codPaisRecep", "not_allowed", _("NIE, RUT y C.I. son de Uruguay: el país es UY."))
    elif doc_type == DocType.DNI:
        if country not in DNI_COUNTRIES:
            errors.add("receptor.codPaisRecep", "not_allowed", _("El DNI corresponde a AR, BR, CL o PY."))
    elif country is None:
        errors.add("receptor.codPaisRecep", "required", _("Indicá el país del documento (o 99)."))
    elif country not in COUNTRIES:
        errors.add(
            "receptor.codPaisRecep",
            "not_allowed",
            _("No conocemos ese país: usá su código de dos letras (AR, BR, US…) o 99 si no está en la lista."),
        )
