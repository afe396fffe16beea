"""The sandbox registry: DGI's lookups answered from the seeded data of `sandbox_data`, with no network.

The default backend for development and tests. CVA dates are computed against a clock (`today`), by default
today's date in Montevideo, so the sandbox never rots; tests pass a fixed date.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from portal.domain.identifiers import DocType
from portal.domain.uruguay_time import today_montevideo
from portal.service.platform.i18n import _

from .errors import TaxpayerNotFound
from .models import CvaStatus, Entity, EntityName
from .registry import TaxpayerRegistry
from .sandbox_data import SandboxTaxpayer, cva_status, people, taxpayers


class SandboxRegistry(TaxpayerRegistry):
    """Answers from the sandbox data. `today` is a date or a callable returning one (the CVA clock)."""

    def __init__(self, today: Callable[[], date] | date | None = None):
        if isinstance(today, date):
            fixed = today
            self._today: Callable[[], date] = lambda: fixed
        else:
            self._today = today or today_montevideo

    def _taxpayer(self, rut: str) -> SandboxTaxpayer:
        taxpayer = taxpayers().get(rut)
        if taxpayer is None:
            raise TaxpayerNotFound(_("No hay un contribuyente con RUT {rut} en el registro.", rut=rut))
        return taxpayer

    def _consulta_datos_entidad(self, rut: str) -> Entity:
        return self._taxpayer(rut).entity

    def _consulta_cva(self, rut: str) -> CvaStatus:
        return cva_status(self._taxpayer(rut), self._today())

    def _consulta_nombre_entidad(self, doc_type: DocType, number: str) -> EntityName:
        name: str | None
        if doc_type == DocType.RUT:
            name = self._taxpayer(number).entity.denominacion
        else:
            name = people().get((doc_type, number))
            if name is None:
                raise TaxpayerNotFound(
                    _("No hay una persona con {doc} {number} en el registro.", doc=doc_type.name, number=number)
                )
        if name is None:  # the registry always names a taxpayer
            raise TaxpayerNotFound(_("El RUT {number} no tiene denominación en el registro.", number=number))
        return EntityName(int(doc_type), number, name)
