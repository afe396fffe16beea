"""A receipt's DGI state (the `dgi` key of getByIdCfeEmitido): where it stands, DGI's motives, the envelope
or daily report it goes in, and when it reached each step."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from portal.client.models import JsonObject, optional_datetime, parse_date


@dataclass(frozen=True)
class DgiMotive:
    """One of DGI's (or a receiver's) motive codes (S01-S08, E01-E15, R01-R06) with its text in the reader's language
    (`texto`; DGI's own Spanish `glosa` when the service gives no other), and our detail when there is one."""

    code: str
    text: str
    detail: str | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> DgiMotive:
        return cls(data["codigo"], data.get("texto") or data.get("glosa") or "", data.get("detalle"))


def motives(items: list[JsonObject] | None) -> tuple[DgiMotive, ...]:
    return tuple(DgiMotive.from_json(m) for m in items or ())


def int_or_none(value: int | str | None) -> int | None:
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
    def from_json(cls, data: JsonObject) -> EnvelopeRef:
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
    def from_json(cls, data: JsonObject) -> ReportRef:
        return cls(
            int_or_none(data.get("idReporte")),
            parse_date(data["fecha"]),
            int_or_none(data.get("secEnvio")),
            data.get("archivo"),
            data["estado"],
            data.get("acuse"),
        )


@dataclass(frozen=True)
class DgiMoments:
    """When the receipt reached each step on its way to DGI (None: not yet, or not on its route)."""

    registered: datetime | None = None
    packed: datetime | None = None  # put in an envelope
    received: datetime | None = None  # DGI acknowledged the envelope
    answered: datetime | None = None  # DGI answered for the receipt
    reported: datetime | None = None  # summarised in a daily report

    @property
    def latest(self) -> datetime | None:
        return max(
            (m for m in (self.registered, self.packed, self.received, self.answered, self.reported) if m), default=None
        )

    @classmethod
    def from_json(cls, data: JsonObject) -> DgiMoments:
        return cls(
            registered=optional_datetime(data.get("registrado")),
            packed=optional_datetime(data.get("enSobre")),
            received=optional_datetime(data.get("recibido")),
            answered=optional_datetime(data.get("respondido")),
            reported=optional_datetime(data.get("enReporte")),
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
    moments: DgiMoments
    corrects: str | None = None
    corrected_by: str | None = None
    observations: int = 0  # times DGI observed it (CE): contingency receipts only
    # While it waits on DGI and DGI does not answer: since when (getByIdCfeEmitido only; None while DGI answers).
    dgi_down_since: datetime | None = None

    @property
    def since(self) -> datetime | None:
        """When the receipt reached its current step (the latest of its recorded moments)."""
        return self.moments.latest

    @classmethod
    def from_json(cls, data: JsonObject) -> DgiState:
        return cls(
            state=data["estado"],
            description=data.get("descripcion") or "",
            final=bool(data.get("final")),
            route=data.get("via"),
            motives=motives(data.get("motivos")),
            envelope=EnvelopeRef.from_json(data["sobre"]) if data.get("sobre") else None,
            report=ReportRef.from_json(data["reporte"]) if data.get("reporte") else None,
            overdue=bool(data.get("demorado")),
            moments=DgiMoments.from_json(data.get("fechas") or {}),
            corrects=data.get("corrige"),
            corrected_by=data.get("corregidoPor"),
            observations=int(data.get("observaciones") or 0),
            dgi_down_since=optional_datetime(data.get("dgiSinRespuestaDesde")),
        )
