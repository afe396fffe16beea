"""Client methods of the Comprobante endpoints, and their typed results."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from decimal import Decimal

import requests

from portal.client import errors
from portal.client.cfe import Adjustment, CfeRequest, Line, Payment, Principal, Receiver, field_path
from portal.client.comprobante_links import (
    AppliedReference,
    ReceiptReference,
    ReferenceChange,
    RelatedNote,
    reference_history,
)
from portal.client.comprobante_list import ReceiptFilters, ReceiptSummary
from portal.client.correo import MailSummary
from portal.client.dgi_state import DgiState
from portal.client.exchange_state import ExchangeState
from portal.client.informes import FILE_MEDIA, BookFormat
from portal.client.models import JsonObject, optional_date, parse_datetime
from portal.client.pages import CurrencyTotal, Page, page_params
from portal.client.totals import Totals
from portal.client.transport import ZIP, Transport
from portal.domain.receipt_numbers import printed

BASE = "/api/v1/comprobante"
__all__ = [
    "AppliedReference",
    "CaeInfo",
    "ComprobantesApi",
    "CurrencyTotal",
    "IssuedReceipt",
    "NoteDraft",
    "PreviewLink",
    "ReceiptFilters",
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
    """A receipt as the service issued it, with the totals the service computed."""

    id: str
    tipo_cfe: int
    serie: str
    nro: int
    issue_date: date
    signed_at: datetime
    currency: str
    receiver: Receiver | None
    totals: Totals
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
    transfer_kind: int | None = None  # e-Remito: 1 sale, 2 internal transfer
    sale_clause: str | None = None  # export: the Incoterm, or N/A (ClauVenta)
    sale_mode: int | None = None  # export: 1 general, 90 services, ... (ModVenta)
    transport: int | None = None  # export: 1 sea, 2 air, 3 land, 8 none, 9 other (ViaTransp)
    principal: Principal | None = None  # sales on behalf of others (zona K)
    prices_include_tax: bool = False
    exchange_rate: Decimal | None = None
    lines: tuple[Line, ...] = ()
    adjustments: tuple[Adjustment, ...] = ()
    payments: tuple[Payment, ...] = ()
    adenda: str | None = None
    references: tuple[ReceiptReference, ...] = ()
    notes: tuple[RelatedNote, ...] = ()
    creditable_balance: Decimal | None = None
    exchange: ExchangeState | None = None  # to an electronic receiver (intercambio)
    corrects_rejection_of: str | None = None  # a credit note correcting a receiver's commercial rejection
    mail: MailSummary | None = None  # its e-mail sends (getByIdCfeEmitido only), None when never sent
    # getByIdCfeEmitido: a digest of the service's whole answer. Equal versions, equal receipts in every field
    # (its DGI state, notes, sends included): what a page built from it may be cached by (comprobantes/page.py).
    version: str = field(default="", compare=False)
    replayed: bool = False  # the service answered an Idempotency-Key already used: issued before, not now

    @property
    def number(self) -> str:
        return printed(self.serie, self.nro)

    @classmethod
    def from_json(cls, data: JsonObject) -> IssuedReceipt:
        cae = data["cae"]
        return cls(
            id=data["idCfeEmitido"],
            tipo_cfe=int(data["tipoCFE"]),
            serie=data["serie"],
            nro=int(data["nro"]),
            issue_date=date.fromisoformat(data["fchEmis"]),
            signed_at=parse_datetime(data["tmstFirma"]),
            currency=data["tpoMoneda"],
            receiver=Receiver.from_json(data["receptor"]) if data.get("receptor") else None,
            totals=Totals.from_json(data["totales"]),
            security_code=data["codigoSeguridad"],
            qr_url=data["urlQR"],
            cae=CaeInfo(cae["caeId"], int(cae["dNro"]), int(cae["hNro"]), date.fromisoformat(cae["fecVenc"])),
            dgi_status=data["estadoDGI"],
            collection_reference=data.get("referenciaCobro"),
            created_by=data["creadoPor"],
            created_at=parse_datetime(data["creadoEn"]),
            warnings=tuple(ReceiptWarning(w["codigo"], w["mensaje"]) for w in data.get("advertencias", [])),
            reference_history=reference_history(data.get("historialReferencias", [])),
            payment_form=data.get("fmaPago"),
            due_date=optional_date(data.get("fchVenc")),
            transfer_kind=data.get("tipoTraslado"),
            sale_clause=data.get("clauVenta"),
            sale_mode=data.get("modVenta"),
            transport=data.get("viaTransp"),
            principal=Principal.from_json(data["complFiscal"]) if data.get("complFiscal") else None,
            prices_include_tax=data.get("mntBruto") in (1, True),
            exchange_rate=_decimal(data.get("tpoCambio")),
            lines=tuple(Line.from_json(item) for item in data.get("items", [])),
            adjustments=tuple(Adjustment.from_json(a) for a in data.get("dscRcgGlobal", [])),
            payments=tuple(Payment.from_json(p) for p in data.get("mediosPago", [])),
            adenda=data.get("adenda"),
            references=tuple(ReceiptReference.from_json(r) for r in data.get("referencias", [])),
            notes=tuple(RelatedNote.from_json(n) for n in data.get("notas", [])),
            creditable_balance=_decimal(data.get("saldoAcreditable")),
            dgi=DgiState.from_json(data["dgi"]) if data.get("dgi") else None,
            exchange=ExchangeState.from_json(data["intercambio"]) if data.get("intercambio") else None,
            corrects_rejection_of=data.get("corrigeRechazoComercial"),
            mail=MailSummary.from_json(data["correo"]) if data.get("correo") else None,
        )


def _decimal(value: str | int | float | Decimal | None) -> Decimal | None:
    return None if value is None else Decimal(str(value))


@dataclass(frozen=True)
class NoteDraft:
    """A note prefilled from its original, ready to edit and issue, and what is left to credit."""

    draft: CfeRequest
    original_id: str
    creditable_balance: Decimal | None

    @classmethod
    def from_json(cls, data: JsonObject) -> NoteDraft:
        return cls(
            CfeRequest.from_json(data["borrador"]), data["idCfeOriginal"], _decimal(data.get("saldoAcreditable"))
        )


@dataclass(frozen=True)
class PreviewLink:
    token: str
    url: str
    expires_at: datetime

    @classmethod
    def from_json(cls, data: JsonObject) -> PreviewLink:
        return cls(data["token"], data["url"], parse_datetime(data["expiresAt"]))


@dataclass(frozen=True)
class SignedXml:
    xml: bytes
    digest: str | None


def _issued(response: requests.Response) -> IssuedReceipt:
    receipt = IssuedReceipt.from_json(response.json())
    return replace(receipt, replayed=True) if response.headers.get("Idempotent-Replayed") == "true" else receipt


class ComprobantesApi(Transport):
    """The Comprobante endpoints."""

    def issue_receipt(self, cfe: CfeRequest, *, idempotency_key: str) -> IssuedReceipt:
        """POST emitir. The key makes a retry (or a double click) return the same receipt, `replayed`. Field
        errors name CfeRequest's fields ("lines[1].unit_price"), as do the previews'."""
        with errors.fields_named(field_path):
            return _issued(self._request("POST", f"{BASE}/emitir", json=cfe.to_json(), idempotency_key=idempotency_key))

    def correct_contingency(self, receipt_id: str, cfe: CfeRequest) -> IssuedReceipt:
        """POST contingencia/{id}/corregir: an observed paper contingency receipt, corrected (same paper), signed
        and sent to DGI again. Field errors name CfeRequest's fields."""
        with errors.fields_named(field_path):
            return _issued(self._request("POST", f"{BASE}/contingencia/{receipt_id}/corregir", json=cfe.to_json()))

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

    def search_receipts(
        self, filters: ReceiptFilters, *, cursor: str | None = None, limit: int | None = None
    ) -> Page[ReceiptSummary]:
        """GET buscar: a page of the receipts the filters match, newest first, with the count (`total`) and
        the per-currency `totals` of all."""
        params = {**filters.to_params(), **page_params(cursor, limit)}
        with errors.fields_named(ReceiptFilters.FIELDS):
            return Page.from_json(self._json("GET", f"{BASE}/buscar", params=params), ReceiptSummary.from_json)

    def export_receipts_csv(self, filters: ReceiptFilters) -> bytes:
        """Every receipt the filters match, as the service's CSV (es-UY, `;`, UTF-8 with BOM)."""
        return self.export_receipts(filters, "csv")

    def export_receipts(self, filters: ReceiptFilters, file_format: BookFormat) -> bytes:
        """Every receipt the filters match, as the service's CSV or XLSX (the same columns, typed)."""
        accept = FILE_MEDIA[file_format]
        with errors.fields_named(ReceiptFilters.FIELDS):
            return self._request("GET", f"{BASE}/buscar", params=filters.to_params(), accept=accept).content

    def export_receipts_xml(self, filters: ReceiptFilters) -> Iterator[bytes]:
        """Every receipt the filters match, as it was signed, in one ZIP passed on as the service writes it."""
        with errors.fields_named(ReceiptFilters.FIELDS):
            return self._stream(f"{BASE}/buscar", accept=ZIP, params=filters.to_params())

    def get_receipt(self, receipt_id: str) -> IssuedReceipt:
        """GET getByIdCfeEmitido. The answer is kept by its ETag (per receipt, credential, company and
        language): asked again with If-None-Match, a 304 (the service checked access first) reuses it."""
        kept_answers = self._client.kept_receipts
        key = kept_answers.key(receipt_id, self._headers)
        kept = kept_answers.get(key)
        response = self._request(
            "GET",
            f"{BASE}/getByIdCfeEmitido",
            params={"idCfeEmitido": receipt_id},
            headers_extra=None if kept is None else {"If-None-Match": kept[0]},
        )
        if response.status_code == 304 and kept is not None:
            return kept[1]
        etag = response.headers.get("ETag")
        version = etag or hashlib.blake2b(response.content, digest_size=16).hexdigest()
        receipt = replace(IssuedReceipt.from_json(response.json()), version=version)
        if etag:
            kept_answers.put(key, (etag, receipt))
        else:
            kept_answers.drop(key)
        return receipt

    def get_receipt_xml(self, receipt_id: str) -> bytes:
        """The signed XML exactly as signed."""
        return self._request(
            "GET", f"{BASE}/getByIdCfeEmitido", params={"idCfeEmitido": receipt_id}, accept="application/xml"
        ).content

    def get_receipt_pdf(self, receipt_id: str) -> bytes:
        return self._request(
            "GET", f"{BASE}/getByIdCfeEmitido", params={"idCfeEmitido": receipt_id}, accept="application/pdf"
        ).content

    def preview_pdf(self, cfe: CfeRequest) -> bytes:
        """POST previsualizar with Accept: application/pdf (watermarked, consumes no number)."""
        with errors.fields_named(field_path):
            return self._request("POST", f"{BASE}/previsualizar", json=cfe.to_json(), accept="application/pdf").content

    def preview_link(self, cfe: CfeRequest) -> PreviewLink:
        with errors.fields_named(field_path):
            return PreviewLink.from_json(self._json("POST", f"{BASE}/previsualizar", json=cfe.to_json()))

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
