"""DGI's blocking ("*") validations that depend on more than the request: who issues it (the issuer's
regime and its CAE especial) and when it is signed.

Sources: DGI "Formato de los CFE" v25-1 (23/12/2025): A-C5, A-C5.1, A-C10, B-C4, B-C6, B-C11, D-C7, F-C7,
G-C5. docs/DGI-RULES.md lists every rule, the error code it answers and the test that checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from portal.domain.cfe_types import IND_FACT_NOT_FOR_SMALL_TAXPAYERS, CfeType
from portal.domain.empresa import SMALL_TAXPAYER_REGIMES
from portal.service.cfe.model import CfeInput
from portal.service.platform.i18n import _

# A-C5 and F-C7: "debe ser ≤ fecha del servidor de DGI + 60 días"; we sign at once, so the signature date
# stands for DGI's server date.
DAYS_AHEAD_ALLOWED = 60
# G-C5: "Si G-C5=1, ... B-C4 debe ser distinto de 2, 3, 4, 11 y 12" (an exonerated issuer charges no IVA).
_NOT_FOR_EXONERATED = frozenset({2, 3, 4, 11, 12})
# B-C4 16: "Sólo para ítems vendidos por contribuyentes con obligación IVA mínimo, Monotributo o
# Monotributo Social MIDES".
_ONLY_SMALL_TAXPAYERS = frozenset({16})
_REGIME_NAMES = {
    "general": "IVA general",
    "iva_minimo": "IVA mínimo",
    "monotributo": "Monotributo",
    "monotributo_mides": "Monotributo Social MIDES",
    "exonerado": "exonerado",
}


@dataclass(frozen=True)
class Emission:
    """Who issues the receipt and when: the facts the blocking rules need besides the request.

    The CAE range's `cae_especial` (G-C5) is known once a number is allocated (`cae_allocated`); before
    that the issuer's regime says which CAE especial it must have.
    """

    signing_date: date
    regimen: str = "general"
    cae_allocated: bool = False
    cae_especial: int | None = None


def check(cfe: CfeInput, kind: CfeType, emission: Emission, errors) -> None:
    """Add to `errors` (rules._Errors) every blocking rule this receipt breaks for this emission."""
    _dates(cfe, kind, emission.signing_date, errors)
    if kind.element in ("eTck", "eFact"):
        _prices(cfe, errors)
        _gross_indicator(cfe, emission, errors)
        _indicators(cfe, emission, errors)
    elif kind.element in ("eFact_Exp", "eRem_Exp", "eBoleta"):
        _prices(cfe, errors)  # B-C11: an export's lines are priced too; only a free delivery (5) is 0


def check_cae(cfe: CfeInput, kind: CfeType, emission: Emission, errors) -> None:
    """The part of `check` the allocated CAE decides (G-C5 with A-C10, an exonerated CAE's indicators). Run
    alone for a receipt `check` passed before its number was taken: the rest would only repeat."""
    if kind.element in ("eTck", "eFact"):
        _gross_indicator(cfe, emission, errors)
        _indicators(cfe, emission, errors)


def _dates(cfe: CfeInput, kind: CfeType, signing_date: date, errors) -> None:
    latest = signing_date + timedelta(days=DAYS_AHEAD_ALLOWED)
    if cfe.fch_emis > latest:
        errors.add(
            "fchEmis",
            "too_far_ahead",
            _(
                "La fecha del comprobante puede ser a lo sumo {days_ahead_allowed} días posterior a hoy (hasta el "
                "{latest:%d/%m/%Y}).",
                days_ahead_allowed=DAYS_AHEAD_ALLOWED,
                latest=latest,
            ),
        )
    for i, ref in enumerate(cfe.referencias):
        if ref.fecha_cfe_ref and ref.fecha_cfe_ref > latest:
            errors.add(
                f"referencias[{i}].fechaCFEref",
                "too_far_ahead",
                _("La fecha del comprobante referenciado no puede pasar del {latest:%d/%m/%Y}.", latest=latest),
            )
    if kind.element == "eResg" and cfe.fch_valor is not None:
        if (cfe.fch_valor.year, cfe.fch_valor.month) > (cfe.fch_emis.year, cfe.fch_emis.month):
            errors.add(
                "fchValor",
                "after_issue_month",
                _("La fecha valor no puede ser de un mes posterior al de la fecha del comprobante."),
            )


def _prices(cfe: CfeInput, errors) -> None:
    for i, item in enumerate(cfe.items):
        if item.precio_unitario is not None and item.precio_unitario <= 0 and item.ind_fact != 5:
            errors.add(
                f"items[{i}].precioUnitario",
                "must_be_positive",
                _("El precio unitario debe ser mayor que 0 (solo una entrega gratuita vale 0)."),
            )
        if item.ind_agente_resp is not None and not item.retenc_percep:
            errors.add(
                f"items[{i}].retencPercep",
                "required",
                _("Un ítem con agente o responsable de retención debe detallar sus retenciones o percepciones."),
            )


def _gross_indicator(cfe: CfeInput, emission: Emission, errors) -> None:
    small = emission.regimen in SMALL_TAXPAYER_REGIMES
    regime = _REGIME_NAMES.get(emission.regimen, emission.regimen)
    if cfe.mnt_bruto == 2:
        errors.add(
            "mntBruto",
            "not_supported",
            _(
                "Los precios con IMEBA y adicionales incluidos (montos brutos 2) solo corresponden a la "
                "e-Boleta de entrada."
            ),
        )
    elif small and cfe.mnt_bruto != 3:
        errors.add(
            "mntBruto",
            "regime_requires_3",
            _(
                "Como contribuyente {regime}, el comprobante se emite como venta sin IVA discriminado (montos "
                "brutos 3).",
                regime=regime,
            ),
        )
    elif not small and cfe.mnt_bruto == 3:
        errors.add(
            "mntBruto",
            "not_allowed_for_regime",
            _(
                "Las ventas sin IVA discriminado (montos brutos 3) son solo de contribuyentes IVA mínimo, "
                "Monotributo o Monotributo Social MIDES."
            ),
        )
    if not emission.cae_allocated:
        return
    # G-C5 and A-C10, "y viceversa": the CAE especial 2-4 and MntBruto 3 go together.
    if emission.cae_especial in (2, 3, 4) and cfe.mnt_bruto != 3:
        errors.add(
            "mntBruto",
            "cae_requires_3",
            _(
                "El CAE de tu empresa es especial de IVA mínimo o Monotributo: el comprobante se emite como "
                "venta sin IVA discriminado (montos brutos 3)."
            ),
        )
    elif emission.cae_especial not in (2, 3, 4) and cfe.mnt_bruto == 3:
        errors.add(
            "caeData.caeEspecial",
            "required",
            _(
                "Para vender sin IVA discriminado hace falta el CAE especial que DGI otorga a IVA mínimo o "
                "Monotributo; importá ese CAE."
            ),
        )


def _indicators(cfe: CfeInput, emission: Emission, errors) -> None:
    small = emission.regimen in SMALL_TAXPAYER_REGIMES or cfe.mnt_bruto == 3
    exonerated = emission.regimen == "exonerado" or emission.cae_especial == 1
    lines = [(f"items[{i}].indFact", item.ind_fact) for i, item in enumerate(cfe.items)]
    lines += [(f"dscRcgGlobal[{i}].indFactDR", dr.ind_fact_dr) for i, dr in enumerate(cfe.dsc_rcg_global)]
    for field, indicator in lines:
        if indicator is None:
            continue
        if small and indicator in IND_FACT_NOT_FOR_SMALL_TAXPAYERS:  # B-C4 / D-C7
            errors.add(
                field,
                "not_allowed_for_regime",
                _(
                    "Las ventas sin IVA discriminado (IVA mínimo o Monotributo) no llevan ítems con IVA ni "
                    "exentos (indicadores 1, 2, 3, 4, 11, 12): usá el indicador 16."
                ),
            )
        elif exonerated and indicator in _NOT_FOR_EXONERATED:
            errors.add(
                field,
                "not_allowed_for_regime",
                _("Un contribuyente exonerado no factura ítems gravados (indicadores 2, 3, 4, 11, 12)."),
            )
        elif not small and indicator in _ONLY_SMALL_TAXPAYERS:
            errors.add(
                field,
                "not_allowed_for_regime",
                _("El indicador 16 es solo para contribuyentes IVA mínimo, Monotributo o Monotributo Social MIDES."),
            )
