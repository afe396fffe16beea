"""How receipts refer to each other, typed: the receipts a note refers to, the notes that refer to a
receipt, and a receipt's collection reference with its history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from portal.client.cfe_parts import decimal_or_none as _decimal
from portal.client.models import JsonObject, optional_date, parse_datetime


@dataclass(frozen=True)
class ReceiptReference:
    """A receipt a note refers to; `receipt_id` when it is one of the company's."""

    tipo_cfe: int | None
    serie: str | None
    nro: int | None
    reason: str | None
    issue_date: date | None
    amount: Decimal | None
    currency: str | None
    receipt_id: str | None
    global_reference: bool = False

    @property
    def number(self) -> str:
        return f"{self.serie}-{self.nro:07d}" if self.serie and self.nro else ""

    @classmethod
    def from_json(cls, data: JsonObject) -> ReceiptReference:
        return cls(
            data.get("tpoDocRef"),
            data.get("serie"),
            data.get("nroCFERef"),
            data.get("razonRef"),
            optional_date(data.get("fechaCFEref")),
            _decimal(data.get("mntCFEref")),
            data.get("tpoMonedaRef"),
            data.get("idCfeEmitido"),
            data.get("indGlobal") == 1,
        )


@dataclass(frozen=True)
class RelatedNote:
    """A credit or debit note that refers to the receipt."""

    receipt_id: str
    tipo_cfe: int
    serie: str
    nro: int
    issue_date: date
    currency: str
    total: Decimal
    applied: Decimal

    @property
    def number(self) -> str:
        return f"{self.serie}-{self.nro:07d}"

    @classmethod
    def from_json(cls, data: JsonObject) -> RelatedNote:
        return cls(
            data["idCfeEmitido"],
            int(data["tipoCFE"]),
            data["serie"],
            int(data["nro"]),
            date.fromisoformat(data["fchEmis"]),
            data["tpoMoneda"],
            Decimal(data["mntTotal"]),
            Decimal(data["montoAplicado"]),
        )


@dataclass(frozen=True)
class ReferenceChange:
    previous: str | None
    reference: str
    note: str | None
    by: str
    at: datetime


def reference_history(items: list[JsonObject]) -> tuple[ReferenceChange, ...]:
    return tuple(
        ReferenceChange(
            h.get("referenciaAnterior"), h["referenciaCobro"], h.get("observacion"), h["por"], parse_datetime(h["en"])
        )
        for h in items
    )


@dataclass(frozen=True)
class AppliedReference:
    receipt_id: str
    reference: str
    changed: bool
    history: tuple[ReferenceChange, ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> AppliedReference:
        return cls(
            data["idCfeEmitido"],
            data["referenciaCobro"],
            bool(data["cambio"]),
            reference_history(data.get("historial", [])),
        )
