"""Client side of the envios area: a receipt's DGI state (the `dgi` key of getByIdCfeEmitido), and the
"Envíos a DGI" endpoints (envelopes, receipts waiting, daily reports, voided ranges, voiding a range)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Generic, TypeVar

from portal.client.models import parse_date as _date
from portal.client.models import parse_datetime as _dt
from portal.client.transport import Transport


@dataclass(frozen=True)
class DgiMotive:
    """One of DGI's motive codes (S01-S08, E01-E15, R01-R06) with DGI's own text, and ours when there is one."""

    code: str
    text: str
    detail: str | None = None

    @classmethod
    def from_json(cls, data: dict) -> DgiMotive:
        return cls(data["codigo"], data.get("glosa") or "", data.get("detalle"))


def _motives(items) -> tuple[DgiMotive, ...]:
    return tuple(DgiMotive.from_json(m) for m in items or ())


T = TypeVar("T")


def _int(value) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class EnvelopeRef:
    id: int
    idemisor: int
    file_name: str
    state: str
    ack: str | None
    id_receptor: str | None

    @classmethod
    def from_json(cls, data: dict) -> EnvelopeRef:
        return cls(
            int(data["idSobre"]),
            int(data["idEmisor"]),
            data["archivo"],
            data["estado"],
            data.get("acuse"),
            data.get("idReceptor"),
        )


@dataclass(frozen=True)
class ReportRef:
    """The daily report a receipt goes in; before the day closes it has no id yet (state "por_enviar")."""

    id: int | None
    day: date
    sequence: int | None
    file_name: str | None
    state: str
    ack: str | None

    @classmethod
    def from_json(cls, data: dict) -> ReportRef:
        return cls(
            _int(data.get("idReporte")),
            _date(data["fecha"]),
            _int(data.get("secEnvio")),
            data.get("archivo"),
            data["estado"],
            data.get("acuse"),
        )


@dataclass(frozen=True)
class DgiState:
    """Where a receipt stands with DGI. `route` is "sobre" (sent in an envelope) or "reporte" (an e-Ticket
    below the threshold, summarised in the daily report); `final` says the state will not change again."""

    state: str
    description: str
    final: bool
    route: str | None
    motives: tuple[DgiMotive, ...]
    envelope: EnvelopeRef | None
    report: ReportRef | None
    overdue: bool
    times: dict[str, datetime]
    corrects: str | None = None
    corrected_by: str | None = None

    @property
    def since(self) -> datetime | None:
        """When the receipt reached its current step (the latest of its recorded moments)."""
        return max(self.times.values(), default=None)

    @classmethod
    def from_json(cls, data: dict) -> DgiState:
        return cls(
            state=data["estado"],
            description=data.get("descripcion") or "",
            final=bool(data.get("final")),
            route=data.get("via"),
            motives=_motives(data.get("motivos")),
            envelope=EnvelopeRef.from_json(data["sobre"]) if data.get("sobre") else None,
            report=ReportRef.from_json(data["reporte"]) if data.get("reporte") else None,
            overdue=bool(data.get("demorado")),
            times={key: _dt(value) for key, value in (data.get("fechas") or {}).items() if value},
            corrects=data.get("corrige"),
            corrected_by=data.get("corregidoPor"),
        )


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
    def from_json(cls, data: dict) -> Envelope:
        return cls(
            id=int(data["idSobre"]),
            idemisor=int(data["idEmisor"]),
            file_name=data["archivo"],
            count=int(data["cantidadCfe"]),
            state=data["estado"],
            ack=data.get("acuse"),
            motives=_motives(data.get("motivos")),
            id_receptor=data.get("idReceptor"),
            query_after=_dt(data.get("consultarDesde")),
            attempts=int(data.get("intentos") or 0),
            last_error=data.get("ultimoError"),
            next_attempt=_dt(data.get("proximoIntento")),
            accepted=int(data.get("aceptados") or 0),
            rejected=int(data.get("rechazados") or 0),
            overdue=bool(data.get("demorado")),
            created_at=_dt(data["creadoEn"]),
            sent_at=_dt(data.get("enviadoEn")),
            received_at=_dt(data.get("recibidoEn")),
            answered_at=_dt(data.get("respondidoEn")),
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
        return f"{self.serie}-{self.nro:07d}"

    @classmethod
    def from_json(cls, data: dict) -> WaitingReceipt:
        return cls(
            id=data["idCfeEmitido"],
            tipo_cfe=int(data["tipoCFE"]),
            serie=data["serie"],
            nro=int(data["nro"]),
            state=data["estado"],
            description=data.get("descripcion") or "",
            wait_reason=data.get("motivoEspera"),
            motives=_motives(data.get("motivos")),
            envelope_id=_int(data.get("idSobre")),
            attempts=int(data.get("intentos") or 0),
            next_attempt=_dt(data.get("proximoIntento")),
            overdue=bool(data.get("demorado")),
            registered_at=_dt(data["registradoEn"]),
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
    attempts: int
    last_error: str | None
    created_by: str
    created_at: datetime
    answered_at: datetime | None

    @classmethod
    def from_json(cls, data: dict) -> DailyReport:
        return cls(
            id=int(data["idReporte"]),
            day=_date(data["fecha"]),
            sequence=int(data["secEnvio"]),
            file_name=data["archivo"],
            count=int(data["cantidadComprobantes"]),
            state=data["estado"],
            ack=data.get("acuse"),
            motives=_motives(data.get("motivos")),
            attempts=int(data.get("intentos") or 0),
            last_error=data.get("ultimoError"),
            created_by=data["creadoPor"],
            created_at=_dt(data["creadoEn"]),
            answered_at=_dt(data.get("respondidoEn")),
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
    def from_json(cls, data: dict) -> VoidedRange:
        return cls(
            id=int(data["idAnulacion"]),
            tipo_cfe=int(data["tipoCFE"]),
            serie=data["serie"],
            first=int(data["nroDesde"]),
            last=int(data["nroHasta"]),
            day=_date(data["fecha"]),
            source=data["origen"],
            reason=data["motivo"],
            receipt_id=data.get("idCfeEmitido"),
            created_by=data["creadoPor"],
            created_at=_dt(data["creadoEn"]),
        )


@dataclass(frozen=True)
class Page(Generic[T]):  # noqa: UP046 - Python 3.11 has no class type parameters
    """One page of a list: its items and how many there are in all (`overdue`: of them, late ones)."""

    items: tuple[T, ...]
    total: int
    overdue: int = 0


BASE = "/api/v1/envios"


class EnviosApi(Transport):
    """The Envíos a DGI endpoints (Bearer JWT; admin and soporte read, admin voids)."""

    def list_envelopes(self, *, limit: int = 50, offset: int = 0) -> Page[Envelope]:
        data = self._json("GET", f"{BASE}/sobres", params={"limit": limit, "offset": offset})
        return Page(tuple(Envelope.from_json(e) for e in data["sobres"]), int(data["total"]))

    def retry_envelope(self, envelope_id: int) -> Envelope:
        """Retry an envelope DGI refused (its receipts go in a new one) or one in error (the same bytes again)."""
        return Envelope.from_json(self._json("POST", f"{BASE}/sobres/{int(envelope_id)}/reintentar"))

    def list_waiting(self, *, limit: int = 50, offset: int = 0) -> Page[WaitingReceipt]:
        data = self._json("GET", f"{BASE}/pendientes", params={"limit": limit, "offset": offset})
        return Page(
            tuple(WaitingReceipt.from_json(p) for p in data["pendientes"]),
            int(data["total"]),
            int(data.get("demorados") or 0),
        )

    def list_daily_reports(self, *, limit: int = 50, offset: int = 0) -> Page[DailyReport]:
        data = self._json("GET", f"{BASE}/reportes", params={"limit": limit, "offset": offset})
        return Page(tuple(DailyReport.from_json(r) for r in data["reportes"]), int(data["total"]))

    def send_daily_report(self, day: date) -> DailyReport:
        """Build, sign and send the daily report of `day` (the service does it by itself each night). Asking
        again while the last one of that day has no answer returns that one; otherwise the next sequence."""
        return DailyReport.from_json(self._json("POST", f"{BASE}/reportes", json={"fecha": day.isoformat()}))

    def list_voided(self, *, limit: int = 50, offset: int = 0) -> Page[VoidedRange]:
        data = self._json("GET", f"{BASE}/anulaciones", params={"limit": limit, "offset": offset})
        return Page(tuple(VoidedRange.from_json(a) for a in data["anulaciones"]), int(data["total"]))

    def void_numbers(
        self, tipo_cfe: int, *, reason: str, serie: str | None = None, count: int | None = None, idempotency_key: str
    ) -> VoidedRange:
        """Void the next `count` unused numbers (all that are left without it) of the CAE that would number
        `tipo_cfe` (and `serie`). The key makes a double click or a retry void once."""
        body: dict = {"tipoCFE": tipo_cfe, "motivo": reason}
        if serie:
            body["serie"] = serie
        if count is not None:
            body["cantidad"] = count
        return VoidedRange.from_json(
            self._json("POST", f"{BASE}/anulaciones", json=body, idempotency_key=idempotency_key)
        )
