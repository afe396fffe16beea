"""Client side of the envios area: the "Envíos a DGI" endpoints (envelopes, receipts waiting, daily reports,
voided ranges, voiding a range). A receipt's DGI state is in dgi_state.py (re-exported here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import quote

from portal.client import errors
from portal.client.correo import Download
from portal.client.dgi_state import DgiMoments, DgiMotive, DgiState, EnvelopeRef, ReportRef, int_or_none, motives
from portal.client.models import JsonObject, json_object, optional_datetime, parse_date, parse_datetime
from portal.client.pages import Page, page_params
from portal.client.transport import Transport
from portal.domain.receipt_numbers import printed

__all__ = [
    "DailyReport",
    "DgiAvailability",
    "DgiMoments",
    "DgiMotive",
    "DgiNotice",
    "DgiState",
    "Download",
    "Envelope",
    "EnvelopeRef",
    "EnviosApi",
    "Page",
    "ReportRef",
    "VoidedRange",
    "WaitingReceipt",
]


@dataclass(frozen=True)
class Envelope:
    """An EnvioCFE the service sent (or is sending), with DGI's acknowledgement and the retries so far."""

    id: int
    idemisor: int
    file_name: str
    count: int
    state: str
    ack: str | None
    motives: tuple[DgiMotive, ...]
    # Whether DGI's ACKSobre / ACKCFE verified against DGI's trusted certificate: "verificada", "invalida",
    # "sin_certificado", or None (no acknowledgement yet, or one received before the check existed).
    ack_signature: str | None
    answer_signature: str | None
    documents: tuple[str, ...]  # what envelope_document downloads: "sobre", "acuse", "respuesta"
    id_receptor: str | None
    query_after: datetime | None
    attempts: int
    last_error: str | None
    next_attempt: datetime | None
    accepted: int
    rejected: int
    overdue: bool
    created_at: datetime
    sent_at: datetime | None
    received_at: datetime | None
    answered_at: datetime | None

    @classmethod
    def from_json(cls, data: JsonObject) -> Envelope:
        return cls(
            id=int(data["idSobre"]),
            idemisor=int(data["idEmisor"]),
            file_name=data["archivo"],
            count=int(data["cantidadCfe"]),
            state=data["estado"],
            ack=data.get("acuse"),
            motives=motives(data.get("motivos")),
            ack_signature=data.get("firmaAcuse"),
            answer_signature=data.get("firmaRespuesta"),
            documents=tuple(data.get("documentos") or ()),
            id_receptor=data.get("idReceptor"),
            query_after=optional_datetime(data.get("consultarDesde")),
            attempts=int(data.get("intentos") or 0),
            last_error=data.get("ultimoError"),
            next_attempt=optional_datetime(data.get("proximoIntento")),
            accepted=int(data.get("aceptados") or 0),
            rejected=int(data.get("rechazados") or 0),
            overdue=bool(data.get("demorado")),
            created_at=parse_datetime(data["creadoEn"]),
            sent_at=optional_datetime(data.get("enviadoEn")),
            received_at=optional_datetime(data.get("recibidoEn")),
            answered_at=optional_datetime(data.get("respondidoEn")),
        )


@dataclass(frozen=True)
class WaitingReceipt:
    """A receipt sent one by one that has no final answer from DGI yet, and why it is waiting."""

    id: str
    tipo_cfe: int
    serie: str
    nro: int
    state: str
    description: str
    wait_reason: str | None
    motives: tuple[DgiMotive, ...]
    envelope_id: int | None
    attempts: int
    next_attempt: datetime | None
    overdue: bool
    registered_at: datetime

    @property
    def number(self) -> str:
        return printed(self.serie, self.nro)

    @classmethod
    def from_json(cls, data: JsonObject) -> WaitingReceipt:
        return cls(
            id=data["idCfeEmitido"],
            tipo_cfe=int(data["tipoCFE"]),
            serie=data["serie"],
            nro=int(data["nro"]),
            state=data["estado"],
            description=data.get("descripcion") or "",
            wait_reason=data.get("motivoEspera"),
            motives=motives(data.get("motivos")),
            envelope_id=int_or_none(data.get("idSobre")),
            attempts=int(data.get("intentos") or 0),
            next_attempt=optional_datetime(data.get("proximoIntento")),
            overdue=bool(data.get("demorado")),
            registered_at=parse_datetime(data["registradoEn"]),
        )


@dataclass(frozen=True)
class DailyReport:
    """A ReporteDiarioCFE the service built and sent, with DGI's answer (AR / BR / BA)."""

    id: int
    day: date
    sequence: int
    file_name: str
    count: int
    state: str
    ack: str | None
    motives: tuple[DgiMotive, ...]
    ack_signature: str | None  # as Envelope's, for the ACKRepDiario
    documents: tuple[str, ...]  # what report_document downloads: "reporte", "acuse"
    attempts: int
    last_error: str | None
    created_by: str
    created_at: datetime
    answered_at: datetime | None

    @classmethod
    def from_json(cls, data: JsonObject) -> DailyReport:
        return cls(
            id=int(data["idReporte"]),
            day=parse_date(data["fecha"]),
            sequence=int(data["secEnvio"]),
            file_name=data["archivo"],
            count=int(data["cantidadComprobantes"]),
            state=data["estado"],
            ack=data.get("acuse"),
            motives=motives(data.get("motivos")),
            ack_signature=data.get("firmaAcuse"),
            documents=tuple(data.get("documentos") or ()),
            attempts=int(data.get("intentos") or 0),
            last_error=data.get("ultimoError"),
            created_by=data["creadoPor"],
            created_at=parse_datetime(data["creadoEn"]),
            answered_at=optional_datetime(data.get("respondidoEn")),
        )


@dataclass(frozen=True)
class VoidedRange:
    """Numbers of a CAE that will never be used: voided by an admin ("operador") or by DGI's rejection of a
    receipt ("rechazo_dgi"); `day` is the daily report that carries them."""

    id: int
    tipo_cfe: int
    serie: str
    first: int
    last: int
    day: date
    source: str
    reason: str
    receipt_id: str | None
    created_by: str
    created_at: datetime

    @classmethod
    def from_json(cls, data: JsonObject) -> VoidedRange:
        return cls(
            id=int(data["idAnulacion"]),
            tipo_cfe=int(data["tipoCFE"]),
            serie=data["serie"],
            first=int(data["nroDesde"]),
            last=int(data["nroHasta"]),
            day=parse_date(data["fecha"]),
            source=data["origen"],
            reason=data["motivo"],
            receipt_id=data.get("idCfeEmitido"),
            created_by=data["creadoPor"],
            created_at=parse_datetime(data["creadoEn"]),
        )


@dataclass(frozen=True)
class DgiNotice:
    """What every member may know of DGI: whether it answers and, if not, since when."""

    answering: bool
    down_since: datetime | None

    @classmethod
    def from_json(cls, data: JsonObject) -> DgiNotice:
        return cls(answering=bool(data["responde"]), down_since=optional_datetime(data.get("sinRespuestaDesde")))


@dataclass(frozen=True)
class DgiAvailability:
    """Whether DGI answers (since when not), and what of the company waits on DGI."""

    answering: bool
    down_since: datetime | None
    last_answer: datetime | None
    last_error: str | None
    next_try: datetime | None
    receipts_waiting: int
    envelopes_waiting: int
    reports_waiting: int
    waiting_since: datetime | None

    @classmethod
    def from_json(cls, data: JsonObject) -> DgiAvailability:
        return cls(
            answering=bool(data["responde"]),
            down_since=optional_datetime(data.get("sinRespuestaDesde")),
            last_answer=optional_datetime(data.get("ultimaRespuesta")),
            last_error=data.get("ultimoError"),
            next_try=optional_datetime(data.get("proximoIntento")),
            receipts_waiting=int(data["comprobantesEsperando"]),
            envelopes_waiting=int(data["sobresEsperando"]),
            reports_waiting=int(data["reportesEsperando"]),
            waiting_since=optional_datetime(data.get("esperandoDesde")),
        )


BASE = "/api/v1/envios"
# The service's field -> void_numbers' parameter.
_VOID_PARAMETERS = {"tipoCFE": "tipo_cfe", "motivo": "reason", "serie": "serie", "cantidad": "count"}


class EnviosApi(Transport):
    """The Envíos a DGI endpoints (Bearer JWT; admin and soporte read, admin voids, any member asks whether DGI
    answers)."""

    def dgi_availability(self) -> DgiAvailability:
        """Whether DGI answers, since when not, and what of the company waits (admin and soporte)."""
        return DgiAvailability.from_json(self._json("GET", f"{BASE}/dgi"))

    def dgi_notice(self) -> DgiNotice:
        """Whether DGI answers and since when not (any member of the company)."""
        return DgiNotice.from_json(self._json("GET", f"{BASE}/dgi/aviso"))

    def list_envelopes(self, *, cursor: str | None = None, limit: int | None = None) -> Page[Envelope]:
        return Page.from_json(
            self._json("GET", f"{BASE}/sobres", params=page_params(cursor, limit)), Envelope.from_json
        )

    def retry_envelope(self, envelope_id: int) -> Envelope:
        """Retry an envelope DGI refused (its receipts go in a new one) or one in error (the same bytes again)."""
        return Envelope.from_json(self._json("POST", f"{BASE}/sobres/{int(envelope_id)}/reintentar"))

    def envelope_document(self, envelope_id: int, document: str) -> Download:
        """The envelope as sent ("sobre") or DGI's ACKSobre ("acuse") or ACKCFE ("respuesta"), as stored."""
        return self._download(f"{BASE}/sobres/{int(envelope_id)}/{quote(document, safe='')}")

    def report_document(self, report_id: int, document: str) -> Download:
        """The daily report as sent ("reporte") or DGI's ACKRepDiario ("acuse"), as stored."""
        return self._download(f"{BASE}/reportes/{int(report_id)}/{quote(document, safe='')}")

    def _download(self, path: str) -> Download:
        return Download.of(self._request("GET", path, accept="application/xml"), "documento.xml")

    def list_waiting(self, *, cursor: str | None = None, limit: int | None = None) -> Page[WaitingReceipt]:
        return Page.from_json(
            self._json("GET", f"{BASE}/pendientes", params=page_params(cursor, limit)), WaitingReceipt.from_json
        )

    def list_daily_reports(self, *, cursor: str | None = None, limit: int | None = None) -> Page[DailyReport]:
        return Page.from_json(
            self._json("GET", f"{BASE}/reportes", params=page_params(cursor, limit)), DailyReport.from_json
        )

    def send_daily_report(self, day: date) -> DailyReport:
        """Build, sign and send the daily report of `day` (the service does it by itself each night). Asking
        again while the last one of that day has no answer returns that one; otherwise the next sequence."""
        return DailyReport.from_json(self._json("POST", f"{BASE}/reportes", json={"fecha": day.isoformat()}))

    def list_voided(self, *, cursor: str | None = None, limit: int | None = None) -> Page[VoidedRange]:
        return Page.from_json(
            self._json("GET", f"{BASE}/anulaciones", params=page_params(cursor, limit)), VoidedRange.from_json
        )

    def void_numbers(
        self, tipo_cfe: int, *, reason: str, serie: str | None = None, count: int | None = None, idempotency_key: str
    ) -> VoidedRange:
        """Void the next `count` unused numbers (all that are left without it) of the CAE that would number
        `tipo_cfe` (and `serie`). The key makes a double click or a retry void once. Field errors name these
        parameters (tipo_cfe, reason, serie, count)."""
        body = json_object((("tipoCFE", tipo_cfe), ("motivo", reason), ("serie", serie), ("cantidad", count)))
        with errors.fields_named(_VOID_PARAMETERS):
            return VoidedRange.from_json(
                self._json("POST", f"{BASE}/anulaciones", json=body, idempotency_key=idempotency_key)
            )
