"""Client methods of the Intercambio endpoints (issuer's side): sending again an exchange envelope that could
not be delivered to the receipt's electronic receiver."""

from __future__ import annotations

from dataclasses import dataclass, replace

from portal.client.models import JsonObject
from portal.client.transport import Transport

BASE = "/api/v1/intercambio"


@dataclass(frozen=True)
class RetriedExchangeEnvelope:
    """An exchange envelope on its way to its receiver again (state `armado`): the same envelope, its receipts."""

    id: int
    idemisor: int
    file_name: str
    receiver_rut: str
    state: str
    cfe_count: int
    receipt_ids: tuple[str, ...]
    previous_error: str | None  # why it had not been delivered, in the caller's language
    replayed: bool = False  # the same Idempotency-Key again (a double click): this retry, not another one

    @classmethod
    def from_json(cls, data: JsonObject) -> RetriedExchangeEnvelope:
        return cls(
            id=int(data["idSobre"]),
            idemisor=int(data["idEmisor"]),
            file_name=data["archivo"],
            receiver_rut=data["rutReceptor"],
            state=data["estado"],
            cfe_count=int(data["cantCfe"]),
            receipt_ids=tuple(data.get("comprobantes") or ()),
            previous_error=data.get("errorAnterior"),
        )


class IntercambioApi(Transport):
    def retry_exchange_envelope(
        self, envelope_id: int, *, idempotency_key: str | None = None
    ) -> RetriedExchangeEnvelope:
        """Deliver again an exchange envelope in error (writers). The same key again returns the same retry,
        `replayed`. NotFound: not the company's; Conflict (`sobre_no_reintentable`): not in error."""
        response = self._request(
            "POST", f"{BASE}/sobres/{int(envelope_id)}/reintentar", idempotency_key=idempotency_key
        )
        retried = RetriedExchangeEnvelope.from_json(response.json())
        return replace(retried, replayed=True) if response.headers.get("Idempotent-Replayed") == "true" else retried
