"""The receipt list (GET /api/v1/comprobante/buscar): its typed filters and results."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import ClassVar

from portal.client.filters import ListFilters
from portal.client.models import JsonObject


@dataclass(frozen=True)
class ReceiptFilters(ListFilters):
    """What the list is narrowed to; every filter is optional. `number` as typed ("A-15", "15"),
    `receiver` a document or part of a name, `reference` a request id or an Idempotency-Key. The service's
    field errors come back named after these fields (`FIELDS`)."""

    since: date | None = None
    until: date | None = None
    tipo_cfe: int | None = None
    number: str | None = None
    receiver: str | None = None
    amount_from: Decimal | None = None
    amount_to: Decimal | None = None
    currency: str | None = None
    dgi_state: str | None = None
    reference: str | None = None

    PARAMS: ClassVar[dict[str, str]] = {  # field -> the service's query parameter
        "since": "desde",
        "until": "hasta",
        "tipo_cfe": "tipoCFE",
        "number": "numero",
        "receiver": "receptor",
        "amount_from": "montoDesde",
        "amount_to": "montoHasta",
        "currency": "moneda",
        "dgi_state": "estadoDGI",
        "reference": "referencia",
    }


@dataclass(frozen=True)
class CancellingNote:
    """The credit note that completed a receipt's cancellation."""

    id: str
    tipo_cfe: int
    number: str


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
    signed_total: Decimal  # negative for a credit note, as the list's totals count it
    cancelled: bool = False  # fully credited by its credit notes
    cancelled_by: CancellingNote | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> ReceiptSummary:
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
            Decimal(data["importe"]),
            bool(data.get("anulado")),
            CancellingNote(note["idCfeEmitido"], int(note["tipoCFE"]), note["numero"])
            if (note := data.get("anuladoPor"))
            else None,
        )
