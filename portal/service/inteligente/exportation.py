"""Smart issuance of an export: a foreign receiver of a sale of services or goods gets an e-Factura de
Exportación (121), its lines as export (IndFact 10), no IVA, and its terms of sale (A-C13 to A-C15) inferred
for services (N/A, 90, 8) or taken from the hints for goods; every choice is reported with its reason."""

from __future__ import annotations

from typing import Any, Protocol

from babel import Locale

from portal.domain.cfe_types import (
    IND_FACT_NOT_BILLABLE,
    MOD_VENTA_SERVICES,
    VIA_TRANSP_NOT_APPLICABLE,
)
from portal.domain.identifiers import URUGUAYAN_DOC_TYPES
from portal.service.inteligente.schemas import SolicitudInteligente
from portal.service.platform.errors import FieldError, ValidationFailed
from portal.service.platform.i18n import _

EXPORT_INVOICES = frozenset({121, 122, 123})
_IND_FACT_EXPORT = 10
_TERMS = ("clauVenta", "modVenta", "viaTransp")


class _Findings(Protocol):
    def infer(self, campo: str, valor, motivo: str) -> None: ...


def is_foreign(request: SolicitudInteligente, receiver: dict | None) -> bool:
    """A receiver identified by a foreign document whose country was given (and is not Uruguay)."""
    if receiver is None or request.receptor is None or request.receptor.pais in (None, "UY", "99"):
        return False
    return receiver["tipoDocRecep"] not in URUGUAYAN_DOC_TYPES


def fit(request: SolicitudInteligente, body: dict, receiver: dict | None, referenced, work: _Findings) -> None:
    """Turn the inferred body into an export: lines at IndFact 10, no gross prices, terms of sale, the
    receiver's country name."""
    if body.pop("mntBruto", None):
        work.infer("mntBruto", None, _("La exportación no lleva IVA: los precios son netos."))
    for index, item in enumerate(body["items"]):
        if item["indFact"] != IND_FACT_NOT_BILLABLE:
            item["indFact"] = _IND_FACT_EXPORT
            work.infer(f"items[{index}].indFact", _IND_FACT_EXPORT, _("Exportación y asimiladas (sin IVA)."))
    if referenced is not None:  # a note repeats the terms of the export it adjusts
        body.update({key: referenced.input_json[key] for key in _TERMS if key in referenced.input_json})
    else:
        body.update(_terms(request, work))
    if receiver is not None and not receiver.get("paisRecep"):
        name = Locale.parse("es").territories.get(receiver["codPaisRecep"])
        if name:
            receiver["paisRecep"] = name[:30]
            work.infer("receptor.paisRecep", receiver["paisRecep"], _("Nombre del país del documento."))


def _terms(request: SolicitudInteligente, work: _Findings) -> dict:
    hints = request.pistas
    given = {
        "clauVenta": hints.clau_venta if hints else None,
        "modVenta": hints.mod_venta if hints else None,
        "viaTransp": hints.via_transp if hints else None,
    }
    services = all(line.categoria == "servicios" for line in request.lineas)
    if services:
        defaults = {"clauVenta": "N/A", "modVenta": MOD_VENTA_SERVICES, "viaTransp": VIA_TRANSP_NOT_APPLICABLE}
        reason = _("Exportación de servicios (todas las líneas son servicios).")
    else:
        missing = [key for key in ("clauVenta", "viaTransp") if given[key] is None]
        if missing:
            raise ValidationFailed(
                [
                    FieldError(
                        f"pistas.{key}",
                        "required",
                        _("Para exportar bienes indicá la cláusula de venta (Incoterm) y la vía de transporte."),
                    )
                    for key in missing
                ],
                message=_("Faltan los términos de la exportación."),
            )
        defaults = {"modVenta": 1}
        reason = _("Exportación de bienes: régimen general.")
    terms: dict[str, Any] = {}
    for key in _TERMS:
        if given[key] is not None:
            terms[key] = given[key]
        elif key in defaults:
            terms[key] = defaults[key]
            work.infer(key, defaults[key], reason)
    return terms
