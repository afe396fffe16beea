"""Client methods of the Comprobante endpoints, and their typed results."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from portal.client.base import Transport
from portal.client.envios import DgiState
from portal.client.models import parse_datetime as _dt

BASE = "/api/v1/comprobante"


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

    @property
    def number(self) -> str:
        return f"{self.serie}-{self.nro:07d}"

    @classmethod
    def from_json(cls, data: dict) -> IssuedReceipt:
        cae = data["cae"]
        return cls(
            id=data["idCfeEmitido"], tipo_cfe=int(data["tipoCFE"]), serie=data["serie"], nro=int(data["nro"]),
            issue_date=date.fromisoformat(data["fchEmis"]), signed_at=_dt(data["tmstFirma"]),
            currency=data["tpoMoneda"], receiver=data.get("receptor"), totals=data["totales"],
            security_code=data["codigoSeguridad"], qr_url=data["urlQR"],
            cae=CaeInfo(cae["caeId"], int(cae["dNro"]), int(cae["hNro"]), date.fromisoformat(cae["fecVenc"])),
            dgi_status=data["estadoDGI"], collection_reference=data.get("referenciaCobro"),
            created_by=data["creadoPor"], created_at=_dt(data["creadoEn"]),
            warnings=tuple(ReceiptWarning(w["codigo"], w["mensaje"]) for w in data.get("advertencias", [])),
            reference_history=_reference_history(data.get("historialReferencias", [])),
            dgi=DgiState.from_json(data["dgi"]) if data.get("dgi") else None)


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
    return tuple(ReferenceChange(h.get("referenciaAnterior"), h["referenciaCobro"], h.get("observacion"), h["por"],
                                 _dt(h["en"])) for h in items)


@dataclass(frozen=True)
class AppliedReference:
    receipt_id: str
    reference: str
    changed: bool
    history: tuple[ReferenceChange, ...]

    @classmethod
    def from_json(cls, data: dict) -> AppliedReference:
        return cls(data["idCfeEmitido"], data["referenciaCobro"], bool(data["cambio"]),
                   _reference_history(data.get("historial", [])))


@dataclass(frozen=True)
class SignedXml:
    xml: bytes
    digest: str | None




class ComprobantesApi(Transport):
    """The Comprobante endpoints."""

    def issue_receipt(self, cfe: dict, *, idempotency_key: str) -> IssuedReceipt:
        """POST emitir. The key makes a retry (or a double click) return the same receipt."""
        return IssuedReceipt.from_json(self._json("POST", f"{BASE}/emitir", json=cfe, idempotency_key=idempotency_key))

    def get_receipt(self, receipt_id: str) -> IssuedReceipt:
        return IssuedReceipt.from_json(self._json("GET", f"{BASE}/getByIdCfeEmitido",
                                                  params={"idCfeEmitido": receipt_id}))

    def get_receipt_xml(self, receipt_id: str) -> bytes:
        """The signed XML exactly as signed."""
        return self._request("GET", f"{BASE}/getByIdCfeEmitido", params={"idCfeEmitido": receipt_id},
                             accept="application/xml").content

    def get_receipt_pdf(self, receipt_id: str) -> bytes:
        return self._request("GET", f"{BASE}/getByIdCfeEmitido", params={"idCfeEmitido": receipt_id},
                             accept="application/pdf").content

    def preview_pdf(self, cfe: dict) -> bytes:
        """POST previsualizar with Accept: application/pdf (watermarked, consumes no number)."""
        return self._request("POST", f"{BASE}/previsualizar", json=cfe, accept="application/pdf").content

    def preview_link(self, cfe: dict) -> PreviewLink:
        return PreviewLink.from_json(self._json("POST", f"{BASE}/previsualizar", json=cfe))

    def preview_by_token(self, token: str) -> bytes:
        return self._request("GET", f"{BASE}/previsualizar/{token}", accept="application/pdf").content

    def sign_xml(self, xml: bytes) -> SignedXml:
        response = self._request("POST", f"{BASE}/firmarXml", data=xml, accept="application/xml",
                                 headers_extra={"Content-Type": "application/xml"})
        return SignedXml(response.content, response.headers.get("X-CFE-Digest"))

    def reapply_reference(self, receipt_id: str, reference: str, note: str | None = None) -> AppliedReference:
        body = {"idCfeEmitido": receipt_id, "referenciaCobro": reference}
        if note:
            body["observacion"] = note
        return AppliedReference.from_json(self._json("POST", f"{BASE}/reaplicarReferencia", json=body))
