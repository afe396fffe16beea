"""A receipt's state at its electronic receiver (the `intercambio` key of getByIdCfeEmitido): where it stands,
the receiver's motives (commercial E20-E60 included), the envelope it went in, the correcting credit note of a
commercial rejection, the notice sent when DGI rejected it after delivery, and when it reached each step."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from portal.client.dgi_state import DgiMotive, int_or_none, motives
from portal.client.models import JsonObject, optional_datetime


@dataclass(frozen=True)
class ExchangeEnvelopeRef:
    id: int
    idemisor: int
    file_name: str
    state: str  # armado | entregado | error
    channel: str | None  # ws | correo
    ack: str | None  # AS | BS
    attempts: int  # failed ones
    last_error: str | None
    last_attempt: datetime | None = None  # None: not tried yet, or tried before the service kept when
    next_attempt: datetime | None = None  # while a failed delivery is retried by itself

    @classmethod
    def from_json(cls, data: JsonObject) -> ExchangeEnvelopeRef:
        return cls(
            int(data["idSobre"]),
            int(data["idEmisor"]),
            data["archivo"],
            data["estado"],
            data.get("canal"),
            data.get("acuse"),
            int(data.get("intentos") or 0),
            data.get("ultimoError"),
            optional_datetime(data.get("ultimoIntento")),
            optional_datetime(data.get("proximoIntento")),
        )


@dataclass(frozen=True)
class ExchangeMoments:
    registered: datetime | None = None
    packed: datetime | None = None
    sent: datetime | None = None
    envelope_answered: datetime | None = None
    answered: datetime | None = None
    confirmed: datetime | None = None  # the receiver accepted it again in an answer of its own: its decision

    @classmethod
    def from_json(cls, data: JsonObject) -> ExchangeMoments:
        def at(key: str) -> datetime | None:
            return optional_datetime(data.get(key))

        return cls(
            at("registrado"), at("enSobre"), at("enviado"), at("sobreRespondido"), at("respondido"), at("confirmado")
        )


@dataclass(frozen=True)
class ExchangeState:
    receiver_rut: str
    receiver_name: str
    channel: str | None
    state: str
    description: str
    final: bool
    motives: tuple[DgiMotive, ...] = ()
    commercial_rejection: bool = False
    envelope: ExchangeEnvelopeRef | None = None
    correcting_note: str | None = None  # idCfeEmitido of the credit note that corrects a commercial rejection
    offers_note: bool = False  # a commercial rejection without its note yet: the portal offers the draft
    notice_id: int | None = None  # CFEs_Anulados_x_RechazoDGI sent to the receiver
    notice_state: str | None = None
    moments: ExchangeMoments = ExchangeMoments()

    @classmethod
    def from_json(cls, data: JsonObject) -> ExchangeState:
        receiver = data["receptor"]
        notice = data.get("avisoAnulacion") or {}
        return cls(
            receiver_rut=receiver["rut"],
            receiver_name=receiver.get("nombre") or receiver["rut"],
            channel=receiver.get("canal"),
            state=data["estado"],
            description=data.get("descripcion") or "",
            final=bool(data.get("final")),
            motives=motives(data.get("motivos")),
            commercial_rejection=bool(data.get("rechazoComercial")),
            envelope=ExchangeEnvelopeRef.from_json(data["sobre"]) if data.get("sobre") else None,
            correcting_note=data.get("notaCorrectiva"),
            offers_note=bool(data.get("borradorNota")),
            notice_id=int_or_none(notice.get("idAviso")),
            notice_state=notice.get("estado"),
            moments=ExchangeMoments.from_json(data.get("fechas") or {}),
        )
