"""The receipt page's three delivery channels side by side: DGI (the envios panel), the electronic receiver
(intercambio) and e-mail (correo). This module builds the last two, from the receipt as getByIdCfeEmitido
answers it (its `correo` summary included: one call to the service for the whole page)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask_babel import lazy_gettext as _l

from portal.client.comprobantes import IssuedReceipt
from portal.client.exchange_state import ExchangeState

# state -> (label, tone); the service's portal/service/intercambio/states.py
EXCHANGE_STATES = {
    "pendiente": (_l("Pendiente de entrega"), "warn"),
    "en_sobre": (_l("Entregándose"), "warn"),
    "enviado": (_l("Entregado, esperando acuse"), "warn"),
    "sobre_recibido": (_l("Recibido por el receptor"), "warn"),
    "sobre_rechazado": (_l("Sobre rechazado por el receptor"), "bad"),
    "aceptado": (_l("Aceptado por el receptor"), "ok"),
    "rechazado": (_l("Rechazado por el receptor"), "bad"),
    "anulado": (_l("No se entrega: DGI lo rechazó"), "neutral"),
    "error": (_l("No se pudo entregar al receptor"), "bad"),
}
CHANNELS = {"ws": _l("servicio web de intercambio"), "correo": _l("correo de intercambio")}
MAIL_STATES = {
    "en_cola": (_l("En cola"), "warn"),
    "enviando": (_l("Enviando"), "warn"),
    "enviado": (_l("Enviado"), "ok"),
    "fallido": (_l("Falló"), "bad"),
}


@dataclass(frozen=True)
class Moment:
    label: object
    at: datetime


@dataclass(frozen=True)
class ExchangeChannel:
    state: ExchangeState
    label: object
    tone: str
    channel: object | None
    moments: tuple[Moment, ...]

    @property
    def rejected_commercially(self) -> bool:
        return self.state.state == "rechazado" and self.state.commercial_rejection


@dataclass(frozen=True)
class MailChannel:
    label: object
    tone: str
    recipients: tuple[str, ...]
    at: datetime | None
    count: int


def exchange_channel(receipt: IssuedReceipt) -> ExchangeChannel | None:
    state = receipt.exchange
    if state is None:
        return None
    label, tone = EXCHANGE_STATES.get(state.state, (state.state, "neutral"))
    m = state.moments
    moments = tuple(
        Moment(text, at)
        for text, at in (
            (_l("Entregado"), m.sent),
            (_l("Acuse del sobre"), m.envelope_answered),
            (_l("Respuesta sobre el comprobante"), m.answered),
            (_l("Aceptación confirmada"), m.confirmed),
        )
        if at is not None
    )
    return ExchangeChannel(state, label, tone, CHANNELS.get(state.channel or ""), moments)


def mail_channel(receipt: IssuedReceipt) -> MailChannel | None:
    """The receipt's latest e-mail send (it comes with the receipt), or None when it was never sent."""
    if receipt.mail is None:
        return None
    latest = receipt.mail.latest
    label, tone = MAIL_STATES.get(latest.state, (latest.state, "neutral"))
    return MailChannel(label, tone, latest.recipients, latest.sent_at or latest.created_at, receipt.mail.count)


@dataclass(frozen=True)
class Channels:
    exchange: ExchangeChannel | None
    mail: MailChannel | None
