"""A recording stand-in for `portal.service.intercambio.transport.deliver` (the real one comes from the receiving
side's work): tests replace the seam with it and script its outcomes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from portal.service.intercambio.transport import DeliveryResult


@dataclass
class Delivery:
    company_id: int
    receiver_rut: str
    operation: str
    document: bytes
    filename: str


@dataclass
class RecordingTransport:
    """Delivers nothing; records each call and answers with the next scripted outcome (default: delivered)."""

    outcomes: list[DeliveryResult | Exception] = field(default_factory=list)
    calls: list[Delivery] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, company_id, receiver, operation, document, filename) -> DeliveryResult:
        with self.lock:
            self.calls.append(Delivery(company_id, receiver.rut, operation, document, filename))
            outcome = self.outcomes.pop(0) if self.outcomes else OK
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def of(self, operation: str) -> list[Delivery]:
        return [call for call in self.calls if call.operation == operation]


OK = DeliveryResult(channel="ws", delivered=True, temporary=False, detail="0 Recibido")
BUSY = DeliveryResult(channel="ws", delivered=False, temporary=True, detail="HTTP 503")
REFUSED = DeliveryResult(channel="correo", delivered=False, temporary=False, detail="550 buzón inexistente")
