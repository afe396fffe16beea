"""Delivering an exchange document to another company: by its exchange web service (`aws_efactura_intercambio`,
WS-Security signed) when the directory has one, otherwise by e-mail to its exchange address.

Contract (implemented by the receiving side's work, used by both sides): `deliver(...)` sends one document and
says how it went; the caller records the outcome and retries with backoff on a temporary failure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from portal.service.intercambio.directory import ElectronicIssuer

Operation = Literal["SOBRE", "RESPUESTASOBRE", "RESPUESTACFES", "NOTIFICACIONANULACIONCFE"]


@dataclass(frozen=True)
class DeliveryResult:
    channel: Literal["ws", "correo"]
    delivered: bool
    temporary: bool  # a failure worth retrying (timeout, 5xx, SMTP 4xx)
    detail: str  # the receiver's answer code and text, or the error, for the record


def deliver(
    company_id: int, receiver: ElectronicIssuer, operation: Operation, document: bytes, filename: str
) -> DeliveryResult:
    """Sends `document` (an EnvioCFE_entreEmpresas, ACKSobre, ACKCFE or CFEs_Anulados_x_RechazoDGI) from
    `company_id` to `receiver`."""
    raise NotImplementedError("exchange transport: see the recibidos/intercambio work")
