"""Client methods of the Emision Inteligente endpoints, and their typed results."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from portal.client import errors
from portal.client.cfe import CfeRequest
from portal.client.comprobantes import IssuedReceipt
from portal.client.inteligente_requests import (
    SmartIssueRequest,
    SmartLine,
    SmartReceiver,
    SmartReference,
    field_path,
)
from portal.client.models import JsonObject, optional_datetime, parse_datetime
from portal.client.pages import Page
from portal.client.totals import Totals
from portal.client.transport import Transport
from portal.domain.receipt_numbers import printed

__all__ = [
    "Inference",
    "InteligenteApi",
    "SmartIssueRequest",
    "SmartLine",
    "SmartReceiver",
    "SmartReference",
    "SmartRequest",
    "SmartRequestSummary",
]

BASE = "/api/v1/cfe"


@dataclass(frozen=True)
class Inference:
    field: str
    value: object
    reason: str


@dataclass(frozen=True)
class SmartWarning:
    code: str
    message: str


@dataclass(frozen=True)
class SetupBlock:
    """What the company's setup lacks to issue a preview now (the 409 code confirming would answer, and why)."""

    code: str
    message: str


@dataclass(frozen=True)
class TimelineEvent:
    state: str
    at: datetime
    by: str
    detail: str | None


@dataclass(frozen=True)
class SmartRequest:
    """An issuance request: `draft` is the complete CFE the service inferred (what emitir would take)."""

    id: str
    mode: str
    state: str
    final: bool
    draft: CfeRequest
    draft_hash: str
    totals: Totals
    inferences: tuple[Inference, ...]
    warnings: tuple[SmartWarning, ...]
    blocks: tuple[SetupBlock, ...]  # checked by the service on every read while it is a preview
    preview_url: str | None
    expires_at: datetime | None
    receipt_ids: tuple[str, ...]
    receipt: IssuedReceipt | None
    dgi_status: str | None
    error_code: str | None
    error_message: str | None
    timeline: tuple[TimelineEvent, ...]
    created_by: str
    created_at: datetime

    @property
    def preview_token(self) -> str | None:
        return self.preview_url.rsplit("/", 1)[-1] if self.preview_url else None

    @classmethod
    def from_json(cls, data: JsonObject) -> SmartRequest:
        error = data.get("error") or {}
        return cls(
            id=data["requestId"],
            mode=data["modo"],
            state=data["estado"],
            final=bool(data.get("final")),
            draft=CfeRequest.from_json(data["borrador"]),
            draft_hash=data["hashBorrador"],
            totals=Totals.from_json(data["totales"]),
            inferences=tuple(Inference(i["campo"], i["valor"], i["motivo"]) for i in data.get("inferencias", [])),
            warnings=tuple(SmartWarning(w["codigo"], w["mensaje"]) for w in data.get("advertencias", [])),
            blocks=tuple(SetupBlock(b["codigo"], b["mensaje"]) for b in data.get("bloqueos", [])),
            preview_url=data.get("previsualizacionUrl"),
            expires_at=optional_datetime(data.get("venceEn")),
            receipt_ids=tuple(data.get("cfeEmitidos", [])),
            receipt=IssuedReceipt.from_json(data["comprobante"]) if data.get("comprobante") else None,
            dgi_status=data.get("estadoDGI"),
            error_code=error.get("codigo"),
            error_message=error.get("mensaje"),
            timeline=tuple(
                TimelineEvent(e["estado"], parse_datetime(e["en"]), e["por"], e.get("detalle"))
                for e in data.get("lineaDeTiempo", [])
            ),
            created_by=data["creadoPor"],
            created_at=parse_datetime(data["creadoEn"]),
        )


@dataclass(frozen=True)
class SmartReceiptSummary:
    """The receipt a request issued, as the list shows it."""

    id: str
    tipo_cfe: int
    serie: str
    nro: int
    currency: str
    total: Decimal

    @property
    def number(self) -> str:
        return printed(self.serie, self.nro)


@dataclass(frozen=True)
class SmartRequestSummary:
    """One row of the company's requests: its state and what it produced (a receipt, or why it failed)."""

    id: str
    state: str
    mode: str
    created_at: datetime
    created_by: str
    receipt: SmartReceiptSummary | None
    error_code: str | None

    @classmethod
    def from_json(cls, data: JsonObject) -> SmartRequestSummary:
        cfe = data.get("comprobante")
        receipt = (
            SmartReceiptSummary(
                id=cfe["idCfeEmitido"],
                tipo_cfe=int(cfe["tipoCFE"]),
                serie=cfe["serie"],
                nro=int(cfe["nro"]),
                currency=cfe["tpoMoneda"],
                total=Decimal(str(cfe["mntTotal"])),
            )
            if cfe
            else None
        )
        return cls(
            id=data["requestId"],
            state=data["estado"],
            mode=data["modo"],
            created_at=parse_datetime(data["creadoEn"]),
            created_by=data["creadoPor"],
            receipt=receipt,
            error_code=data.get("codigoError"),
        )


class InteligenteApi(Transport):
    """The Emision Inteligente endpoints (Bearer JWT only)."""

    def smart_preview(self, request: SmartIssueRequest) -> SmartRequest:
        """Infer the complete CFE from a minimal input; kept 15 minutes for confirmation. Field errors name
        SmartIssueRequest's fields ("lines[0].price"), or CfeRequest's for the inferred CFE's."""
        with errors.fields_named(field_path):
            return SmartRequest.from_json(
                self._json("POST", f"{BASE}/previsualizar-emision-inteligente", json=request.to_json())
            )

    def smart_confirm(self, request_id: str, draft_hash: str, accepted_warnings: list[str]) -> SmartRequest:
        """Issue exactly the previewed draft; confirming twice returns the same receipt."""
        body = {"requestId": request_id, "hashBorrador": draft_hash, "advertenciasAceptadas": accepted_warnings}
        # Confirming is idempotent on the service side, so it is safe to retry like a keyed POST.
        return SmartRequest.from_json(
            self._json(
                "POST", f"{BASE}/confirmar-emision-inteligente", json=body, idempotency_key=f"confirm-{request_id}"
            )
        )

    def smart_issue(self, request: SmartIssueRequest, *, idempotency_key: str) -> SmartRequest:
        """Infer and issue at once; field errors are named as smart_preview's."""
        with errors.fields_named(field_path):
            return SmartRequest.from_json(
                self._json(
                    "POST", f"{BASE}/emitir-inteligente", json=request.to_json(), idempotency_key=idempotency_key
                )
            )

    def smart_request(self, request_id: str) -> SmartRequest:
        return SmartRequest.from_json(self._json("GET", f"{BASE}/emision-inteligente/{request_id}"))

    def smart_requests(
        self,
        *,
        state: str | None = None,
        created_by: str | None = None,
        since: date | None = None,
        until: date | None = None,
        number: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> Page[SmartRequestSummary]:
        """The company's requests, newest first. `number` is the receipt's number as typed ("A-15", "15");
        `since`/`until` are days in Montevideo, inclusive; `cursor` is a page's `next_cursor`."""
        params = {
            "estado": state,
            "creadoPor": created_by,
            "desde": since.isoformat() if since else None,
            "hasta": until.isoformat() if until else None,
            "numero": number,
            "cursor": cursor,
            "limite": limit,
        }
        params = {k: v for k, v in params.items() if v is not None}
        return Page.from_json(
            self._json("GET", f"{BASE}/emision-inteligente", params=params), SmartRequestSummary.from_json
        )
