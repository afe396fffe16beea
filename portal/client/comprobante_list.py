"""Typed results of the receipt list (GET /api/v1/comprobante/buscar)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class ReceiptSummary:
    """One receipt of the list."""

    id: str
    tipo_cfe: int
    serie: str
    nro: int
    number: str
    issue_date: date
    currency: str
    total: Decimal
    amount_to_pay: Decimal
    receiver_doc: str | None
    receiver_name: str | None
    dgi_status: str
    request_id: str | None

    @classmethod
    def from_json(cls, data: dict) -> ReceiptSummary:
        receiver = data.get("receptor") or {}
        return cls(
            data["idCfeEmitido"],
            int(data["tipoCFE"]),
            data["serie"],
            int(data["nro"]),
            data["numero"],
            date.fromisoformat(data["fchEmis"]),
            data["tpoMoneda"],
            Decimal(data["mntTotal"]),
            Decimal(data["mntPagar"]),
            receiver.get("docRecep"),
            receiver.get("rznSocRecep"),
            data["estadoDGI"],
            data.get("solicitud"),
        )


@dataclass(frozen=True)
class CurrencyTotal:
    currency: str
    count: int
    total: Decimal


@dataclass(frozen=True)
class ReceiptPage:
    """A page of the company's receipts and the totals of everything the filters match."""

    receipts: tuple[ReceiptSummary, ...]
    next_cursor: str | None
    count: int
    totals: tuple[CurrencyTotal, ...]

    @classmethod
    def from_json(cls, data: dict) -> ReceiptPage:
        return cls(
            tuple(ReceiptSummary.from_json(r) for r in data["comprobantes"]),
            data.get("siguiente"),
            int(data["cantidad"]),
            tuple(CurrencyTotal(t["moneda"], int(t["cantidad"]), Decimal(t["mntTotal"])) for t in data["totales"]),
        )
