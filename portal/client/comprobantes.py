"""Client methods of the Comprobante endpoints, and their typed results."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal

from portal.client.comprobante_list import CurrencyTotal, ReceiptPage, ReceiptSummary
from portal.client.envios import DgiState
from portal.client.models import parse_datetime as _dt
from portal.client.transport import Transport

BASE = "/api/v1/comprobante"
__all__ = [
    "AppliedReference",
    "CaeInfo",
    "ComprobantesApi",
    "CurrencyTotal",
    "IssuedReceipt",
    "NoteDraft",
    "PreviewLink",
    "ReceiptPage",
    "ReceiptReference",
    "ReceiptSummary",
    "ReceiptWarning",
    "ReferenceChange",
    "RelatedNote",
    "SignedXml",
]


@dataclass(frozen=True)
class CaeInfo:
    cae_id: str
    dnro: int
    hnro: int
    expires: date


@dataclass(frozen=True)
class ReceiptWarning:
    code: str
    message: str


@dataclass(frozen=True)
class IssuedReceipt:
    """A receipt as the service issued it. `totals` keeps DGI's names (mntTotal, mntPagar, ...)."""

    id: str
    tipo_cfe: int
    serie: str
    nro: int
    issue_date: date
    signed_at: datetime
    currency: str
    receiver: dict | None
    totals: dict
    security_code: str
    qr_url: str
    cae: CaeInfo
    dgi_status: str
    collection_reference: str | None
    created_by: str
    created_at: datetime
    warnings: tuple[ReceiptWarning, ...]
    reference_history: tuple[ReferenceChange, ...] = ()
    dgi: DgiState | None = None
    payment_form: int | None = None
    due_date: date | None = None
    prices_include_tax: bool = False
    exchange_rate: Decimal | None = None
    lines: tuple[dict, ...] = ()
    adjustments: tuple[dict, ...] = ()
    payments: tuple[dict, ...] = ()
    adenda: str | None = None
    references: tuple[ReceiptReference, ...] = ()
    notes: tuple[RelatedNote, ...] = ()
    creditable_balance: Decimal | None = None
    replayed: bool = False  # the service answered an Idempotency-Key already used: issued before, not now

    @property
    def number(self) -> str:
        return f"{self.serie}-{self.nro:07d}"

    @classmethod
    def from_json(cls, data: dict) -> IssuedReceipt:
        cae = data["cae"]
        return cls(
            id=data["idCfeEmitido"],
            tipo_cfe=int(data["tipoCFE"]),
            serie=data["serie"],
            nro=int(data["nro"]),
            issue_date=date.fromisoformat(data["fchEmis"]),
            signed_at=_dt(data["tmstFirma"]),
            currency=data["tpoMoneda"],
            receiver=data.get("receptor"),
            totals=data["totales"],
            security_code=data["codigoSeguridad"],
            qr_url=data["urlQR"],
            cae=CaeInfo(cae["caeId"], int(cae["dNro"]), int(cae["hNro"]), date.fromisoformat(cae["fecVenc"])),
            dgi_status=data["estadoDGI"],
            collection_reference=data.get("referenciaCobro"),
            created_by=data["creadoPor"],
            created_at=_dt(data["creadoEn"]),
            warnings=tuple(ReceiptWarning(w["codigo"], w["mensaje"]) for w in data.get("advertencias", [])),
            reference_history=_reference_history(data.get("historialReferencias", [])),
            payment_form=data.get("fmaPago"),
            due_date=_day(data.get("fchVenc")),
            prices_include_tax=data.get("mntBruto") in (1, True),
            exchange_rate=_decimal(data.get("tpoCambio")),
            lines=tuple(data.get("items", [])),
            adjustments=tuple(data.get("dscRcgGlobal", [])),
            payments=tuple(data.get("mediosPago", [])),
            adenda=data.get("adenda"),
            references=tuple(ReceiptReference.from_json(r) for r in data.get("referencias", [])),
            notes=tuple(RelatedNote.from_json(n) for n in data.get("notas", [])),
            creditable_balance=_decimal(data.get("saldoAcreditable")),
            dgi=DgiState.from_json(data["dgi"]) if data.get("dgi") else None,
        )


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _decimal(value) -> Decimal | None:
    return None if value is None else Decimal(str(value))


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
    def from_json(cls, data: dict) -> ReceiptReference:
        return cls(
            data.get("tpoDocRef"),
            data.get("serie"),
            data.get("nroCFERef"),
            data.get("razonRef"),
            _day(data.get("fechaCFEref")),
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
    def from_json(cls, data: dict) -> RelatedNote:
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
class NoteDraft:
    """The body of a note prefilled from its original (the emitir format), and what is left to credit."""

    body: dict
    original_id: str
    creditable_balance: Decimal | None

    @classmethod
    def from_json(cls, data: dict) -> NoteDraft:
        return cls(data["borrador"], data["idCfeOriginal"], _decimal(data.get("saldoAcreditable")))


@dataclass(frozen=True)
class PreviewLink:
    token: str
    url: str
    expires_at: datetime

    @classmethod
    def from_json(cls, data: dict) -> PreviewLink:
        return cls(data["token"], data["url"], _dt(data["expiresAt"]))


@dataclass(frozen=True)
class ReferenceChange:
    previous: str | None
    reference: str
    note: str | None
    by: str
    at: datetime


def _reference_history(items: list[dict]) -> tuple[ReferenceChange, ...]:
    return tuple(
        ReferenceChange(h.get("referenciaAnterior"), h["referenciaCobro"], h.get("observacion"), h["por"], _dt(h["en"]))
        for h in items
    )


@dataclass(frozen=True)
class AppliedReference:
    receipt_id: str
    reference: str
    changed: bool
    history: tuple[ReferenceChange, ...]

    @classmethod
    def from_json(cls, data: dict) -> AppliedReference:
        return cls(
            data["idCfeEmitido"],
            data["referenciaCobro"],
            bool(data["cambio"]),
            _reference_history(data.get("historial", [])),
        )


@dataclass(frozen=True)
class SignedXml:
    xml: bytes
    digest: str | None


def _issued(response) -> IssuedReceipt:
    receipt = IssuedReceipt.from_json(response.json())
    return replace(receipt, replayed=True) if response.headers.get("Idempotent-Replayed") == "true" else receipt


def _present(filters: dict) -> dict:
    return {name: value for name, value in filters.items() if value not in (None, "")}


class ComprobantesApi(Transport):
    """The Comprobante endpoints."""

    def issue_receipt(self, cfe: dict, *, idempotency_key: str) -> IssuedReceipt:
        """POST emitir. The key makes a retry (or a double click) return the same receipt, `replayed`."""
        return _issued(self._request("POST", f"{BASE}/emitir", json=cfe, idempotency_key=idempotency_key))

    def cancel_with_credit_note(self, receipt_id: str, reason: str, *, idempotency_key: str) -> IssuedReceipt:
        """POST notaCreditoTotal: the credit note of the whole receipt."""
        return _issued(
            self._request(
                "POST",
                f"{BASE}/notaCreditoTotal",
                idempotency_key=idempotency_key,
                json={"idCfeEmitido": receipt_id, "razon": reason},
            )
        )

    def note_draft(self, receipt_id: str, kind: str) -> NoteDraft:
        """GET borradorNota; `kind` is "credito" or "debito"."""
        return NoteDraft.from_json(
            self._json("GET", f"{BASE}/borradorNota", params={"idCfeEmitido": receipt_id, "tipo": kind})
        )

    def search_receipts(self, filters: dict, *, cursor: str | None = None, limit: int = 50) -> ReceiptPage:
        """GET buscar with the service's filter names (desde, hasta, tipoCFE, numero, receptor, ...)."""
        params = {**_present(filters), "limite": limit, **({"cursor": cursor} if cursor else {})}
        return ReceiptPage.from_json(self._json("GET", f"{BASE}/buscar", params=params))

    def export_receipts_csv(self, filters: dict) -> bytes:
        """Every receipt the filters match, as the service's CSV (es-UY, `;`, UTF-8 with BOM)."""
        return self._request("GET", f"{BASE}/buscar", params=_present(filters), accept="text/csv").content

    def get_receipt(self, receipt_id: str) -> IssuedReceipt:
        return IssuedReceipt.from_json(
            self._json("GET", f"{BASE}/getByIdCfeEmitido", params={"idCfeEmitido": receipt_id})
        )

    def get_receipt_xml(self, receipt_id: str) -> bytes:
        """The signed XML exactly as signed."""
        return self._request(
            "GET", f"{BASE}/getByIdCfeEmitido", params={"idCfeEmitido": receipt_id}, accept="application/xml"
        ).content

    def get_receipt_pdf(self, receipt_id: str) -> bytes:
        return self._request(
            "GET", f"{BASE}/getByIdCfeEmitido", params={"idCfeEmitido": receipt_id}, accept="application/pdf"
        ).content

    def preview_pdf(self, cfe: dict) -> bytes:
        """POST previsualizar with Accept: application/pdf (watermarked, consumes no number)."""
        return self._request("POST", f"{BASE}/previsualizar", json=cfe, accept="application/pdf").content

    def preview_link(self, cfe: dict) -> PreviewLink:
        return PreviewLink.from_json(self._json("POST", f"{BASE}/previsualizar", json=cfe))

    def preview_by_token(self, token: str) -> bytes:
        return self._request("GET", f"{BASE}/previsualizar/{token}", accept="application/pdf").content

    def sign_xml(self, xml: bytes) -> SignedXml:
        response = self._request(
            "POST",
            f"{BASE}/firmarXml",
            data=xml,
            accept="application/xml",
            headers_extra={"Content-Type": "application/xml"},
        )
        return SignedXml(response.content, response.headers.get("X-CFE-Digest"))

    def reapply_reference(self, receipt_id: str, reference: str, note: str | None = None) -> AppliedReference:
        body = {"idCfeEmitido": receipt_id, "referenciaCobro": reference}
        if note:
            body["observacion"] = note
        return AppliedReference.from_json(self._json("POST", f"{BASE}/reaplicarReferencia", json=body))
