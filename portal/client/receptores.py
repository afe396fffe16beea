"""Client methods of the receptores endpoints (past receivers, a receiver as DGI knows it), typed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from portal.client.models import JsonObject, optional_datetime
from portal.client.transport import Transport

BASE = "/api/v1/receptores"


@dataclass(frozen=True)
class Receiver:
    """A receipt's receiver, with DGI's field meanings (doc_type: 2 RUT, 3 C.I., ...)."""

    doc_type: int | None
    country: str | None
    number: str
    name: str | None
    address: str | None
    city: str | None
    department: str | None

    @classmethod
    def _fields(cls, data: JsonObject) -> JsonObject:
        return {
            "doc_type": data.get("tipoDocRecep"),
            "country": data.get("codPaisRecep"),
            "number": data["docRecep"],
            "name": data.get("rznSocRecep"),
            "address": data.get("dirRecep"),
            "city": data.get("ciudadRecep"),
            "department": data.get("deptoRecep"),
        }


@dataclass(frozen=True)
class PastReceiver(Receiver):
    """A receiver the company has issued to, as its newest receipt to that document named it."""

    last_used: datetime | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> PastReceiver:
        return cls(**cls._fields(data), last_used=optional_datetime(data.get("ultimoUso")))


@dataclass(frozen=True)
class ReceiverWarning:
    code: str
    message: str


@dataclass(frozen=True)
class DgiReceiver(Receiver):
    """What DGI registers for a document (`found` False: nothing registered) and what to warn about it."""

    found: bool = False
    warnings: tuple[ReceiverWarning, ...] = ()
    electronic: bool = False  # in DGI's directory of electronic issuers: receipts also go by the exchange

    @classmethod
    def from_json(cls, data: JsonObject) -> DgiReceiver:
        return cls(
            **cls._fields(data),
            found=bool(data["encontrado"]),
            electronic=bool(data.get("receptorElectronico")),
            warnings=tuple(ReceiverWarning(w["codigo"], w["mensaje"]) for w in data.get("advertencias") or ()),
        )


class ReceptoresApi(Transport):
    """The receptores endpoints, as the caller's current company."""

    def past_receivers(self, typed: str, *, limit: int = 10) -> tuple[PastReceiver, ...]:
        """GET /receptores: receivers whose name or document starts with `typed`, newest used first."""
        data = self._json("GET", BASE, params={"q": typed, "limite": limit})
        return tuple(PastReceiver.from_json(r) for r in data["receptores"])

    def receiver_from_dgi(self, doc_type: int, number: str) -> DgiReceiver:
        """GET /receptores/dgi: the receiver's data at DGI and the warnings about that taxpayer."""
        # A 502/504 means DGI failed after the service waited its bounded timeout: not retried (see DgiApi).
        data = self._json("GET", BASE + "/dgi", params={"tipoDoc": doc_type, "nroDoc": number}, retry_on_status=False)
        return DgiReceiver.from_json(data)
