"""The one interface to DGI's reception (ws_efactura), with two implementations chosen by a setting.

    CFE_DGI_RECEPTION=simulator   (default) the embedded DGI simulator, portal/service/envios/simulator.py
    CFE_DGI_RECEPTION=soap        DGI's real ws_efactura SOAP service (owned by dgi-edge)

The adapter speaks DGI's documents as bytes, both ways: it is handed the signed EnvioCFE / ReporteDiarioCFE
exactly as built, and it returns DGI's acknowledgement document exactly as DGI sent it (ACKSobre, ACKCFE,
ACKRepDiario). Parsing and recording those answers is the caller's job (portal/service/envios/acks.py), so
both adapters are judged by the same code.

Errors are typed: `DgiTransientError` means "try again later" (connection refused, timeout, HTTP 5xx, a
SOAP fault DGI marks as temporary); the caller keeps the envelope's bytes and resends the SAME bytes, so a
retry can never look like a new envelope. `DgiPermanentError` means retrying the same request is pointless
(DGI refused the request itself, not the CFEs: a malformed SOAP call, a certificate the WS-Security layer
rejects); the caller records it and flags it for support. DGI's rejections of an envelope or a CFE are not
errors: they come back as ACK documents (BS/BA, BE, BR).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Literal

from portal.service.platform.i18n import _

__all__ = [
    "CfeState",
    "Credentials",
    "DgiPermanentError",
    "DgiReception",
    "DgiReceptionError",
    "DgiTransientError",
]


@dataclass(frozen=True)
class Credentials:
    """The company's certificate: it signs the WS-Security header of each SOAP call (the simulator ignores
    it; it reads the certificate inside the envelope, as DGI does)."""

    rut: str
    key_pem: bytes
    cert_pem: bytes


@dataclass(frozen=True)
class CfeState:
    """What DGI holds of one CFE (ws_consultas EFACCONSULTARESTADOCFE): its verdict (AE, BE, CE, FE, as in
    ACKCFE) with DGI's motives, `en_proceso` (received, not judged yet) or `no_recibido` (DGI has no such CFE)."""

    estado: Literal["AE", "BE", "CE", "FE", "en_proceso", "no_recibido"]
    motives: list[dict] = field(default_factory=list)


class DgiReceptionError(Exception):
    """Base of the reception errors. `message` is Spanish, fit for support staff."""

    def __init__(self, message: str, *, code: str = "dgi_error"):
        super().__init__(message)
        self.message = message
        self.code = code


class DgiTransientError(DgiReceptionError):
    """DGI could not take the request now; the same request may be retried later unchanged."""


class DgiPermanentError(DgiReceptionError):
    """DGI refused the request itself; retrying the same bytes will not help."""


class DgiReception(ABC):
    """DGI's three reception operations (ws_efactura)."""

    @abstractmethod
    def send_envelope(self, envelope_xml: bytes, *, file_name: str, credentials: Credentials) -> bytes:
        """EFACRECEPCIONSOBRE: deliver a signed EnvioCFE; return DGI's ACKSobre document (AS with
        ParamConsulta/Token, or BS/BA with MotivosRechazo). Sending the same envelope again returns DGI's
        answer to it (the simulator answers BS S08 only for a different envelope reusing the number)."""

    @abstractmethod
    def query_envelope(self, id_receptor: str, token: str, *, credentials: Credentials) -> bytes | None:
        """EFACCONSULTARESTADOENVIO: the ACKCFE document (one ACKCFE_Det per CFE) of the envelope DGI
        numbered `id_receptor` and gave `token` for, or None when DGI has not finished processing it."""

    def query_cfe_state(self, rut: str, tipo_cfe: int, serie: str, nro: int, *, credentials: Credentials) -> CfeState:
        """ws_consultas EFACCONSULTARESTADOCFE: what DGI holds of one CFE. Asked after DGI answers S08 (it
        already has an envelope with that number), to learn each receipt's fate. An adapter that cannot ask
        says so with a permanent error (support reconciles by hand)."""
        raise DgiPermanentError(_("Esta recepción de DGI no consulta el estado de un CFE."), code="dgi_sin_consulta")

    @abstractmethod
    def send_report(self, report_xml: bytes, *, file_name: str, credentials: Credentials) -> bytes:
        """EFACRECEPCIONREPORTE: deliver a signed ReporteDiarioCFE; return DGI's ACKRepDiario (AR / BR)."""
