"""Client methods of the recibidos endpoints: the CFEs a company's suppliers sent it (GET /api/v1/recibidos),
one of them, uploads of envelopes, and what the company does with each (accept, reject, book)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from typing import ClassVar, Generic, TypeVar

from portal.client import errors
from portal.client.filters import ListFilters
from portal.client.models import JsonObject
from portal.client.models import optional_datetime as _maybe_moment
from portal.client.models import parse_datetime as _moment
from portal.client.transport import ZIP, Transport

BASE = "/api/v1/recibidos"
T = TypeVar("T")


def _decimal(value: object) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _number(serie: str | None, nro: int | None) -> str:
    return f"{serie}-{nro}" if serie and nro is not None else "-"


def _date(value: object) -> date | None:
    return date.fromisoformat(str(value)) if value else None


@dataclass(frozen=True)
class ReceivedFilters(ListFilters):
    """What the list is narrowed to; all optional. `supplier` a RUT or the start of a name, `number` "A-15",
    `state` aceptado | rechazado | pendiente | rechazado_comercial | rechazado_dgi, `booked` True/False."""

    supplier: str | None = None
    tipo_cfe: int | None = None
    number: str | None = None
    since: date | None = None
    until: date | None = None
    amount_from: Decimal | None = None
    amount_to: Decimal | None = None
    currency: str | None = None
    state: str | None = None
    booked: bool | None = None

    PARAMS: ClassVar[dict[str, str]] = {  # field -> the service's query parameter
        "supplier": "proveedor",
        "tipo_cfe": "tipo",
        "number": "numero",
        "since": "desde",
        "until": "hasta",
        "amount_from": "montoDesde",
        "amount_to": "montoHasta",
        "currency": "moneda",
        "state": "estado",
        "booked": "contabilizado",
    }


@dataclass(frozen=True)
class Motive:
    """A motive of our answer to a supplier: its code, its text in the reader's language (`texto`; DGI's Spanish
    `glosa` from a service that does not say it) and our detail."""

    code: str
    text: str
    detail: str | None

    @classmethod
    def from_json(cls, data: JsonObject) -> Motive:
        return cls(code=data["codigo"], text=data.get("texto") or data.get("glosa", ""), detail=data.get("detalle"))


@dataclass(frozen=True)
class ReceivedCfe:
    """One received CFE as listed. `state` is the automatic answer (AE/BE); `decision` the company's own."""

    id: int
    supplier_rut: str | None
    supplier_name: str | None
    tipo_cfe: int | None
    serie: str | None
    nro: int | None
    issued_on: date | None
    currency: str | None
    total: Decimal | None
    to_pay: Decimal | None
    state: str
    motives: tuple[Motive, ...]
    decision: str | None
    rejected_by_dgi: bool
    booked: bool
    bookable: bool  # the service's word: a purchase it would mark as booked (`contabilizable`)
    received_at: datetime

    @property
    def number(self) -> str:
        return _number(self.serie, self.nro)

    @classmethod
    def from_json(cls, data: JsonObject) -> ReceivedCfe:
        return cls(
            id=int(data["id"]),
            supplier_rut=data.get("rutEmisor"),
            supplier_name=data.get("nombreEmisor"),
            tipo_cfe=data.get("tipoCFE"),
            serie=data.get("serie"),
            nro=data.get("nro"),
            issued_on=_date(data.get("fecha")),
            currency=data.get("moneda"),
            total=_decimal(data.get("total")),
            to_pay=_decimal(data.get("aPagar")),
            state=data["estado"],
            motives=tuple(Motive.from_json(m) for m in data.get("motivos", [])),
            decision=data.get("decision"),
            rejected_by_dgi=bool(data.get("rechazadoDgi")),
            booked=bool(data.get("contabilizado")),
            bookable=bool(data.get("contabilizable")),
            received_at=_moment(data["recibidoEn"]),
        )


@dataclass(frozen=True)
class CurrencyTotal:
    currency: str
    count: int
    total: Decimal


@dataclass(frozen=True)
class CursorPage(Generic[T]):  # noqa: UP046 - Python 3.11 has no class type parameters
    """One page of a list, newest first: its items, the cursor of the next page (None: the last), and the
    totals per currency of everything that matches."""

    items: tuple[T, ...]
    next_cursor: str | None
    totals: tuple[CurrencyTotal, ...]


@dataclass(frozen=True)
class ReceivedPage(CursorPage[ReceivedCfe]):
    """A page of the received CFEs, and how many of all that match can still be booked (`unbooked`, the newest
    of them `unbooked_up_to`: what booking by the same filters is bounded by)."""

    unbooked: int
    unbooked_up_to: int | None


@dataclass(frozen=True)
class UnreceivedMail:
    """A message of the exchange mailbox that was read and set aside, nothing of it received: who sent it, when it
    was read, and why (`reason` the service's code, `why` in the reader's language)."""

    sender: str | None
    read_at: datetime
    filename: str | None
    reason: str
    why: str


@dataclass(frozen=True)
class BookedMatching:
    """What booking by filters did: how many it marked, and how many still match (over the call's limit)."""

    booked: int
    left: int


@dataclass(frozen=True)
class ReceivedLine:
    number: int
    name: str
    quantity: Decimal | None
    unit: str | None
    unit_price: Decimal | None
    amount: Decimal | None


@dataclass(frozen=True)
class Answer:
    """One of our answers to the supplier (ACKSobre, ACKCFE) and its delivery."""

    id: int
    kind: str
    about: str  # recepcion: the answer on arrival; decision: the company's acceptance or rejection
    channel: str
    state: str
    attempts: int
    error: str | None
    created_at: datetime
    sent_at: datetime | None


@dataclass(frozen=True)
class ReceivedDetail:
    """A received CFE with its lines, totals (DGI's names: MntTotal, IVATasaBasica...), adenda and answers."""

    cfe: ReceivedCfe
    lines: tuple[ReceivedLine, ...]
    totals: tuple[tuple[str, Decimal], ...]
    exchange_rate: Decimal | None  # TpoCambio, for a CFE in another currency
    total_in_pesos: Decimal | None  # MntTotal at that rate, as the purchases book carries it
    adenda: str | None
    channel: str
    decision_motive: Motive | None
    decided_at: datetime | None
    decided_by: str | None
    booked_at: datetime | None
    answers: tuple[Answer, ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> ReceivedDetail:
        return cls(
            cfe=ReceivedCfe.from_json(data),
            lines=tuple(
                ReceivedLine(
                    number=int(line["numero"]),
                    name=line["nombre"],
                    quantity=_decimal(line.get("cantidad")),
                    unit=line.get("unidad"),
                    unit_price=_decimal(line.get("precioUnitario")),
                    amount=_decimal(line.get("monto")),
                )
                for line in data.get("lineas", [])
            ),
            totals=tuple((name, Decimal(str(value))) for name, value in data.get("totales", {}).items()),
            exchange_rate=_decimal(data["tipoCambio"]),
            total_in_pesos=_decimal(data["totalPesos"]),
            adenda=data.get("adenda"),
            channel=data["canal"],
            decision_motive=Motive.from_json(data["motivoDecision"]) if data.get("motivoDecision") else None,
            decided_at=_maybe_moment(data.get("decididoEn")),
            decided_by=data.get("decididoPor"),
            booked_at=_maybe_moment(data.get("contabilizadoEn")),
            answers=tuple(
                Answer(
                    id=int(a["id"]),
                    kind=a["tipo"],
                    about=a["respondeA"],
                    channel=a["canal"],
                    state=a["estado"],
                    attempts=int(a["intentos"]),
                    error=a.get("error"),
                    created_at=_moment(a["creadaEn"]),
                    sent_at=_maybe_moment(a.get("enviadaEn")),
                )
                for a in data.get("respuestas", [])
            ),
        )


@dataclass(frozen=True)
class EnvelopeFile:
    """An envelope file (XML) or a ZIP of them, to upload."""

    name: str
    content: bytes


@dataclass(frozen=True)
class EnvelopeResult:
    """What became of one uploaded envelope: AS (received) or BS (rejected, with its motives), who sent it
    (None: too broken to say) and how our answers reach them ("servicio_web", "correo"; None: nowhere)."""

    filename: str
    envelope_id: int
    state: str
    motives: tuple[Motive, ...]
    accepted: int
    rejected: int
    received_ids: tuple[int, ...]
    supplier_rut: str | None = None
    answer_route: str | None = None

    @property
    def supplier_answered(self) -> bool:
        """Whether the supplier gets our answers (ACKSobre, ACKCFE) on its own."""
        return self.answer_route is not None

    @classmethod
    def from_json(cls, data: JsonObject) -> EnvelopeResult:
        return cls(
            filename=data["archivo"],
            envelope_id=int(data["sobreId"]),
            state=data["estado"],
            motives=tuple(Motive.from_json(m) for m in data.get("motivos", [])),
            accepted=int(data["aceptados"]),
            rejected=int(data["rechazados"]),
            received_ids=tuple(int(i) for i in data.get("recibidos", [])),
            supplier_rut=data.get("rutEmisor"),
            answer_route=data.get("destinoRespuesta"),
        )


@dataclass(frozen=True)
class ReceivedSummary:
    """The day at a glance: CFEs received today, and accepted ones not yet booked."""

    today: int
    unbooked: int


# How many received CFEs one call books (the service's limit).
BOOK_MANY_LIMIT = 500


@dataclass(frozen=True)
class NotDone:
    """A received CFE a call on several left as it was, and why, in the reader's language (`code`: the service's
    code of the refusal, as a call for it alone answers)."""

    received_id: int
    tipo_cfe: int | None
    number: str  # "A-12", or "-"
    message: str
    code: str = ""

    @classmethod
    def from_json(cls, data: JsonObject) -> NotDone:
        return cls(
            received_id=int(data["id"]),
            tipo_cfe=data.get("tipoCFE"),
            number=_number(data.get("serie"), data.get("nro")),
            message=str(data["mensaje"]),
            code=str(data.get("codigo") or ""),
        )


@dataclass(frozen=True)
class BookedMany:
    """What booking several received CFEs did: each id is in one of the three."""

    booked: tuple[int, ...]
    not_bookable: tuple[NotDone, ...]
    missing: tuple[int, ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> BookedMany:
        return cls(
            booked=tuple(int(i) for i in data["contabilizados"]),
            not_bookable=tuple(NotDone.from_json(n) for n in data["noContabilizables"]),
            missing=tuple(int(i) for i in data["inexistentes"]),
        )


# How many received CFEs one call rejects (the service's limit: each is a signed answer to its supplier).
REJECT_MANY_LIMIT = 100


@dataclass(frozen=True)
class RejectedMany:
    """What rejecting several received CFEs did: each id is in one of the three. `replayed`: the same
    Idempotency-Key answered before (a double click), so this is that call's outcome, nothing done now."""

    rejected: tuple[int, ...]
    not_rejectable: tuple[NotDone, ...]
    missing: tuple[int, ...]
    replayed: bool = False

    @classmethod
    def from_json(cls, data: JsonObject) -> RejectedMany:
        return cls(
            rejected=tuple(int(i) for i in data["rechazados"]),
            not_rejectable=tuple(NotDone.from_json(n) for n in data["noRechazables"]),
            missing=tuple(int(i) for i in data["inexistentes"]),
        )


class RecibidosApi(Transport):
    """The received CFEs (Bearer JWT or API key; soporte reads, usuario and admin act)."""

    def list_received(
        self, filters: ReceivedFilters | None = None, *, cursor: str | None = None, limit: int = 50
    ) -> ReceivedPage:
        params = {**(filters or ReceivedFilters()).to_params(), "limite": str(limit)}
        if cursor:
            params["cursor"] = cursor
        with errors.fields_named(ReceivedFilters.FIELDS):
            data = self._json("GET", BASE, params=params)
        return ReceivedPage(
            items=tuple(ReceivedCfe.from_json(item) for item in data["items"]),
            next_cursor=data.get("siguienteCursor"),
            totals=tuple(
                CurrencyTotal(t["moneda"], int(t["cantidad"]), Decimal(str(t["total"]))) for t in data["totales"]
            ),
            unbooked=int(data["sinContabilizar"]),
            unbooked_up_to=data["sinContabilizarHasta"],
        )

    def unreceived_mail(self) -> tuple[UnreceivedMail, ...]:
        """The exchange mailbox's messages of the last 30 days that were set aside, newest first."""
        data = self._json("GET", f"{BASE}/correos-no-recibidos")
        return tuple(
            UnreceivedMail(
                sender=item.get("remitente"),
                read_at=_moment(item["leidoEn"]),
                filename=item.get("archivo"),
                reason=item["motivo"],
                why=item["texto"],
            )
            for item in data["items"]
        )

    def received_summary(self) -> ReceivedSummary:
        """How many CFEs arrived today and how many accepted ones are not booked yet (the home's day)."""
        data = self._json("GET", f"{BASE}/resumen")
        return ReceivedSummary(today=int(data["recibidosHoy"]), unbooked=int(data["sinContabilizar"]))

    def received_csv(self, filters: ReceivedFilters | None = None) -> bytes:
        """Every received CFE that matches, as a spreadsheet file."""
        params = (filters or ReceivedFilters()).to_params()
        return self._request("GET", BASE, params=params, accept="text/csv").content

    def received_xml_zip(self, filters: ReceivedFilters | None = None) -> Iterator[bytes]:
        """Every received CFE that matches, its signed XML as the supplier sent it, in one ZIP passed on as the
        service writes it."""
        return self._stream(BASE, accept=ZIP, params=(filters or ReceivedFilters()).to_params())

    def get_received(self, received_id: int) -> ReceivedDetail:
        return ReceivedDetail.from_json(self._json("GET", f"{BASE}/{int(received_id)}"))

    def received_xml(self, received_id: int) -> bytes:
        """The signed CFE as the supplier sent it."""
        return self._request("GET", f"{BASE}/{int(received_id)}", params={"formato": "xml"}, accept="*/*").content

    def received_pdf(self, received_id: int) -> bytes:
        """The printed representation, made from the supplier's XML."""
        return self._request("GET", f"{BASE}/{int(received_id)}", params={"formato": "pdf"}, accept="*/*").content

    def received_answer_xml(self, received_id: int, answer_id: int) -> bytes:
        """One of our signed answers about the CFE (ACKSobre or ACKCFE), as sent or to send by hand."""
        return self._request("GET", f"{BASE}/{int(received_id)}/respuestas/{int(answer_id)}", accept="*/*").content

    def upload_envelopes(self, files: tuple[EnvelopeFile, ...]) -> tuple[EnvelopeResult, ...]:
        """Receive envelope files (XML) or ZIPs of them; a hostile file refuses the whole upload (ValidationError
        on `files`)."""
        parts = [("archivos", (f.name, f.content, "application/octet-stream")) for f in files]
        with errors.fields_named({"archivos": "files"}):
            data = self._json("POST", BASE, files=parts, headers_extra={"X-Canal": "portal"})
        return tuple(EnvelopeResult.from_json(item) for item in data["sobres"])

    def accept_received(self, received_id: int) -> ReceivedDetail:
        return ReceivedDetail.from_json(self._json("POST", f"{BASE}/{int(received_id)}/aceptar"))

    def reject_received(self, received_id: int, motive: str, detail: str | None = None) -> ReceivedDetail:
        """A commercial rejection (E20-E60), sent to the supplier as a second ACKCFE."""
        body = {"motivo": motive, **({"detalle": detail} if detail else {})}
        with errors.fields_named({"motivo": "motive", "detalle": "detail"}):
            return ReceivedDetail.from_json(self._json("POST", f"{BASE}/{int(received_id)}/rechazar", json=body))

    def book_received(self, received_id: int) -> ReceivedDetail:
        return ReceivedDetail.from_json(self._json("POST", f"{BASE}/{int(received_id)}/contabilizar"))

    def unbook_received(self, received_id: int) -> ReceivedDetail:
        return ReceivedDetail.from_json(self._json("POST", f"{BASE}/{int(received_id)}/descontabilizar"))

    def book_received_matching(self, filters: ReceivedFilters, up_to: int | None) -> BookedMatching:
        """Mark as booked every received CFE the list's filters match (whether booked or not is not one of them),
        up to the id a list page counted; the service books at most its limit per call (`left` says the rest)."""
        body: dict[str, object] = {k: v for k, v in filters.to_params().items() if k != "contabilizado"}
        if up_to is not None:
            body["hastaId"] = int(up_to)
        with errors.fields_named(ReceivedFilters.FIELDS):
            data = self._json("POST", f"{BASE}/contabilizar-filtrados", json=body)
        return BookedMatching(booked=int(data["contabilizados"]), left=int(data["quedan"]))

    def reject_many_received(
        self, received_ids: tuple[int, ...], motive: str, detail: str | None = None, *, idempotency_key: str
    ) -> RejectedMany:
        """Reject up to REJECT_MANY_LIMIT received CFEs with one commercial motive (E20-E60), each answered to its
        supplier as a rejection of it alone; what cannot be is said one by one. The key makes a second click (or a
        retry) answer the first one's outcome."""
        body = {"ids": [int(i) for i in received_ids], "motivo": motive, **({"detalle": detail} if detail else {})}
        with errors.fields_named({"motivo": "motive", "detalle": "detail", "ids": "received_ids"}):
            response = self._request("POST", f"{BASE}/rechazar", json=body, idempotency_key=idempotency_key)
        done = RejectedMany.from_json(response.json())
        return replace(done, replayed=True) if response.headers.get("Idempotent-Replayed") == "true" else done

    def book_many_received(self, received_ids: tuple[int, ...]) -> BookedMany:
        """Mark up to BOOK_MANY_LIMIT received CFEs as booked in one call; what cannot be is said one by one."""
        return BookedMany.from_json(
            self._json("POST", f"{BASE}/contabilizar", json={"ids": [int(i) for i in received_ids]})
        )
