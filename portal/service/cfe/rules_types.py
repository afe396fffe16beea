"""DGI's rules for the fields only some CFE types carry: export (121-124: ClauVenta, ModVenta, ViaTransp), the
e-Boleta de entrada (151-153: MntBruto 2 for IMEBA, its indicators) and sales on behalf of others (131-133,
141-143: the principal of the Complemento Fiscal, zona K).

Sources: CFEType.xsd 1.44.2 (`IdDoc_Fact_Exp`, `IdDoc_Rem_Exp`, `Totales_Fact_Exp`, `Item_Det_Fact_Exp`,
`Item_Rem_Exp`) and DGI's "Formato de los CFE" v25-1 (A-C10, A-C13 to A-C15, A-C113). Each rule, its error
code and its test are listed in docs/DGI-RULES.md. Called by rules.validate before a number is taken.
"""

from __future__ import annotations

from portal.domain.cfe_types import (
    CUENTA_AJENA_TYPES,
    IND_FACT_IMEBA,
    MOD_VENTA_SERVICES,
    VIA_TRANSP_NOT_APPLICABLE,
    CfeType,
)
from portal.domain.identifiers import DNI_COUNTRIES, URUGUAYAN_DOC_TYPES, DocType, document_error
from portal.service.cfe.codes import COUNTRIES, IND_FACT_DR_BOLETA, IND_FACT_DR_EXP, IND_FACT_ETCK_EFACT
from portal.service.cfe.model import CfeInput
from portal.service.platform import i18n
from portal.service.platform.i18n import _

# Which export header fields each element has (XSD): "required", "optional" or absent (not applicable).
# ModVenta is optional in IdDoc_Fact_Exp's schema but DGI checks it "programmatically" on the 121 itself;
# its notes carry it only when they change the sale's terms.
_EXPORT_FIELDS: dict[str, dict[str, str]] = {
    "eFact_Exp": {"clauVenta": "required", "modVenta": "optional", "viaTransp": "required"},
    "eRem_Exp": {"clauVenta": "optional", "modVenta": "required", "viaTransp": "required"},
}
_REQUIRED_ON_TYPE = {"modVenta": frozenset({121, 124})}
_ATTRS = {"clauVenta": "clau_venta", "modVenta": "mod_venta", "viaTransp": "via_transp"}
# D-C7 per element: the indicators its lines admit, less 5 (a free delivery has nothing to discount).
_DR_ALLOWED = {
    "eTck": IND_FACT_ETCK_EFACT - {5},
    "eFact": IND_FACT_ETCK_EFACT - {5},
    "eFact_Exp": IND_FACT_DR_EXP,
    "eBoleta": IND_FACT_DR_BOLETA,
}
_MISSING = {
    "clauVenta": _("Indicá la cláusula de venta: el Incoterm (FOB, CIF, EXW...) o N/A si exportás servicios."),
    "modVenta": _(
        "Indicá la modalidad de venta, un código de la tabla de DGI: 1 régimen general, 2 consignación,"
        " 90 exportación de servicios, 99 otras transacciones."
    ),
    "viaTransp": _("Indicá la vía de transporte: 1 marítimo, 2 aéreo, 3 terrestre, 8 no aplica (servicios), 9 otro."),
}
# What an export never has: IVA (so no gross prices, no "other rate" IVA).
# (mntIVAOtra needs a line at "other rate", indicator 4, which no export line admits: rules._header says so.)
_NOT_IN_EXPORT = {"mntBruto": "mnt_bruto"}


def check_type_fields(cfe: CfeInput, kind: CfeType, errors) -> None:
    """Add to `errors` (rules._Errors) what the type-specific header fields break."""
    fields = _EXPORT_FIELDS.get(kind.element, {})
    for alias, attr in _ATTRS.items():
        need = fields.get(alias)
        if need is None and getattr(cfe, attr) is not None:
            errors.add(
                alias,
                "not_applicable",
                _("Solo corresponde a la exportación, no a {name_es}.", name_es=i18n.cfe_type(kind.code)),
            )
        elif getattr(cfe, attr) is None and (
            need == "required" or kind.code in _REQUIRED_ON_TYPE.get(alias, frozenset())
        ):
            errors.add(alias, "required", _MISSING[alias])
    if fields:
        _export(cfe, kind, errors)
    if kind.element == "eBoleta":
        _boleta(cfe, errors)
    _global_adjustments(cfe, kind, errors)
    _principal(cfe, kind, errors)


_DOC_MESSAGES = {
    "required": _("Falta el documento del mandante."),
    "format": _("Formato de documento inválido."),
    "check_digit": _("Dígito verificador incorrecto."),
}


def _principal(cfe: CfeInput, kind: CfeType, errors) -> None:
    """Zona K: a sale on behalf of others names its principal; no other type has one."""
    part = cfe.compl_fiscal
    if kind.code not in CUENTA_AJENA_TYPES:
        if part is not None:
            errors.add(
                "complFiscal",
                "not_applicable",
                _("Solo las ventas por cuenta ajena llevan mandante, no {name_es}.", name_es=i18n.cfe_type(kind.code)),
            )
        return
    if part is None:
        errors.add(
            "complFiscal", "required", _("Indicá el mandante por cuenta de quien vendés (documento, país y nombre).")
        )
        return
    problem = document_error(part.tipo_doc_mdte, part.doc_mdte)
    if problem:
        errors.add("complFiscal.docMdte", problem, _DOC_MESSAGES[problem])
    if part.tipo_doc_mdte in URUGUAYAN_DOC_TYPES and part.pais != "UY":
        errors.add("complFiscal.pais", "not_allowed", _("NIE, RUT y C.I. son de Uruguay: el país es UY."))
    elif part.tipo_doc_mdte == DocType.DNI and part.pais not in DNI_COUNTRIES:
        errors.add("complFiscal.pais", "not_allowed", _("El DNI corresponde a AR, BR, CL o PY."))
    elif part.pais not in COUNTRIES:
        errors.add("complFiscal.pais", "not_allowed", _("País desconocido: usá su código de dos letras o 99."))


def _global_adjustments(cfe: CfeInput, kind: CfeType, errors) -> None:
    """D-C7: a global discount or surcharge adjusts an indicator the type's own lines can have."""
    allowed = _DR_ALLOWED.get(kind.element)
    if allowed is None:
        return
    for i, dr in enumerate(cfe.dsc_rcg_global):
        if dr.ind_fact_dr not in allowed:
            shown = ", ".join(str(v) for v in sorted(allowed))
            errors.add(
                f"dscRcgGlobal[{i}].indFactDR",
                "not_allowed",
                _(
                    "En {name_es} un descuento o recargo global va a los indicadores {indicadores}.",
                    name_es=i18n.cfe_type(kind.code),
                    indicadores=shown,
                ),
            )


def _boleta(cfe: CfeInput, errors) -> None:
    """A-C10: a purchase carries no IVA, so prices never include it (1) and the seller is never an IVA mínimo
    issuer of the buyer's own regime (3); 2 says the prices include IMEBA and additional taxes, which only a
    purchase from an IMEBA taxpayer (IndFact 15) has."""
    if cfe.mnt_bruto in (1, 3):
        errors.add(
            "mntBruto", "not_allowed", _("En la e-Boleta de entrada los montos brutos solo pueden ser 2 (IMEBA).")
        )
    elif cfe.mnt_bruto == 2 and not any(item.ind_fact == IND_FACT_IMEBA for item in cfe.items):
        errors.add(
            "mntBruto",
            "not_allowed",
            _(
                "Los precios con IMEBA incluido (2) solo corresponden a compras a contribuyentes de IMEBA "
                "(indicador 15)."
            ),
        )


def _export(cfe: CfeInput, kind: CfeType, errors) -> None:
    if cfe.mod_venta == MOD_VENTA_SERVICES:
        if kind.element == "eRem_Exp":
            errors.add("modVenta", "not_allowed", _("Un e-Remito de Exportación traslada bienes, no servicios (90)."))
        elif cfe.via_transp not in (None, VIA_TRANSP_NOT_APPLICABLE):
            errors.add(
                "viaTransp", "not_allowed", _("La exportación de servicios (modalidad 90) no tiene transporte: usá 8.")
            )
    if kind.element != "eFact_Exp":
        return  # the e-Remito de Exportación has no payment terms, IVA or discounts: rules._header says so
    for alias, attr in _NOT_IN_EXPORT.items():
        if getattr(cfe, attr) is not None:
            errors.add(alias, "not_applicable", _("La exportación no lleva IVA: no corresponde."))
