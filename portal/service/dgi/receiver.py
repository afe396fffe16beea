"""A receipt's receiver as DGI knows it: the data to fill in, and what to warn about that taxpayer.

The ONE place these rules live: smart issuance (inteligente.inference) and the receipts form (through
GET /api/v1/receptores/dgi) both ask `receiver_from_dgi`, so a closed RUT is warned about the same way
wherever a receipt is made. DGI failures (unavailable, timeout) are raised: each caller decides whether
they stop it (an endpoint answers 502/504) or only become a warning (smart issuance goes on).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from portal.domain.identifiers import DocType
from portal.service.platform.i18n import _

from .errors import DgiError, TaxpayerNotFound
from .models import Entity
from .registry import TaxpayerRegistry

# Lengths of the receiver fields in DGI's CFE schema (RznSocRecep, DirRecep, CiudadRecep, DeptoRecep).
_LENGTHS = {"rznSocRecep": 150, "dirRecep": 70, "ciudadRecep": 30, "deptoRecep": 30}


@dataclass(frozen=True)
class TaxpayerWarning:
    codigo: str
    mensaje: str


@dataclass(frozen=True)
class DgiReceiver:
    """The receiver fields DGI registers (CFE names: rznSocRecep, dirRecep, ...) and the warnings."""

    found: bool
    fields: dict[str, str] = field(default_factory=dict)
    warnings: tuple[TaxpayerWarning, ...] = ()
    electronic: bool = False  # in the directory of electronic issuers: CFEs to it also go by the exchange


def receiver_from_dgi(
    registry: TaxpayerRegistry, doc_type: int, number: str, electronic: Callable[[str], bool] | None = None
) -> DgiReceiver:
    """What DGI says of the receiver with this document: a RUT's name, fiscal address and warnings; a
    person's (CI, NIE) registered name. Raises DgiError when DGI cannot answer (never for "not found").
    `electronic(rut)` says whether the RUT is in the directory of electronic issuers (DGI's ws_consultas, the
    intercambio area); it outranks the lookup's own guess."""
    if doc_type != DocType.RUT:
        try:
            person = registry.consulta_nombre_entidad(doc_type, number)
        except TaxpayerNotFound:
            return DgiReceiver(found=False)  # most people have no record at DGI: nothing to warn about
        return DgiReceiver(found=True, fields=_fit({"rznSocRecep": person.nombre}))
    try:
        entity = registry.consulta_datos_entidad(number)
    except TaxpayerNotFound:
        unknown = _("DGI no tiene registrado el RUT {rut}; revisá el documento.", rut=number)
        return DgiReceiver(found=False, warnings=(TaxpayerWarning("receptor_no_encontrado", unknown),))
    listed = electronic is not None and electronic(number)
    warnings = [w for w in _warnings(registry, entity) if not (listed and w.codigo == "receptor_no_emisor_electronico")]
    return DgiReceiver(found=True, fields=_fields(entity), warnings=tuple(warnings), electronic=listed)


def _fields(entity: Entity) -> dict[str, str]:
    data: dict[str, str | None] = {"rznSocRecep": entity.denominacion}
    address = entity.domicilio_fiscal
    if address:
        data.update(
            dirRecep=" ".join(p for p in (address.calle, address.numero) if p),
            ciudadRecep=address.localidad,
            deptoRecep=address.departamento_nombre,
        )
    return _fit(data)


def _fit(data: dict[str, str | None]) -> dict[str, str]:
    return {k: v[: _LENGTHS[k]].strip() for k, v in data.items() if v and v.strip()}


def _warnings(registry: TaxpayerRegistry, entity: Entity) -> list[TaxpayerWarning]:
    """What a careful clerk warns about a taxpayer before invoicing them."""
    found = []
    if not entity.activo:
        found.append(
            TaxpayerWarning(
                "receptor_inactivo",
                _(
                    "El RUT {rut} figura sin actividad en DGI ({estado}).",
                    rut=entity.rut,
                    estado=entity.estado_actividad_descripcion,
                ),
            )
        )
    if entity.emisor_electronico is False:
        found.append(
            TaxpayerWarning(
                "receptor_no_emisor_electronico",
                _("El receptor no es emisor electrónico: entregale el comprobante impreso o por correo."),
            )
        )
    try:
        if not registry.consulta_cva(entity.rut).vigente:
            found.append(
                TaxpayerWarning("cva_vencido", _("El receptor no tiene el Certificado Único (CVA) de DGI vigente."))
            )
    except DgiError:
        pass  # no CVA service (SOAP backend) or not found: nothing to warn about
    return found
