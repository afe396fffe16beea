"""A receipt's totals as the service computed them (Totales encabezado, zona A), typed."""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal

from portal.client.models import JsonObject

ZERO = Decimal("0")

# Field -> the service's name (DGI's, in lower camelCase).
_NAMES = {
    "untaxed": "mntNoGrv",
    "export": "mntExpoyAsim",
    "perceived_tax": "mntImpuestoPerc",
    "suspended_iva": "mntIVaenSusp",
    "net_minimum_rate": "mntNetoIvaTasaMin",
    "net_basic_rate": "mntNetoIVATasaBasica",
    "net_other_rate": "mntNetoIVAOtra",
    "minimum_rate": "ivaTasaMin",
    "basic_rate": "ivaTasaBasica",
    "iva_minimum_rate": "mntIVATasaMin",
    "iva_basic_rate": "mntIVATasaBasica",
    "iva_other_rate": "mntIVAOtra",
    "total": "mntTotal",
    "withheld": "mntTotRetenido",
    "fiscal_credit": "mntTotCredFisc",
    "not_billable": "montoNF",
    "to_pay": "mntPagar",
}


@dataclass(frozen=True)
class Totals:
    """Every amount in the receipt's currency; the rates in percent. `line_amounts[n]` is line n's amount."""

    untaxed: Decimal = ZERO
    export: Decimal = ZERO
    perceived_tax: Decimal = ZERO
    suspended_iva: Decimal = ZERO
    net_minimum_rate: Decimal = ZERO
    net_basic_rate: Decimal = ZERO
    net_other_rate: Decimal = ZERO
    minimum_rate: Decimal = ZERO
    basic_rate: Decimal = ZERO
    iva_minimum_rate: Decimal = ZERO
    iva_basic_rate: Decimal = ZERO
    iva_other_rate: Decimal = ZERO
    total: Decimal = ZERO
    withheld: Decimal = ZERO
    fiscal_credit: Decimal = ZERO
    not_billable: Decimal = ZERO
    to_pay: Decimal = ZERO
    line_count: int = 0
    line_amounts: tuple[Decimal, ...] = ()

    def amount(self, name: str) -> Decimal:
        """An amount by field name (for tables that list several)."""
        return getattr(self, name) if name in _NAMES else ZERO

    @classmethod
    def from_json(cls, data: JsonObject) -> Totals:
        amounts = {name: Decimal(str(data[key])) for name, key in _NAMES.items() if data.get(key) is not None}
        return cls(
            **amounts,
            line_count=int(data.get("cantLinDet") or 0),
            line_amounts=tuple(Decimal(str(v)) for v in data.get("montosItems") or ()),
        )


AMOUNT_FIELDS = tuple(f.name for f in fields(Totals) if f.name in _NAMES)
