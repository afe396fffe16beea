"""What the areas built on comprobante add to its work, registered by them from their `init_app`.

comprobante is the core: the other areas import its tables (IssuedCfe, CaeRangeRecord) and it imports none of
them. Where issuing or a receipt's answer needs another area, that area registers a function here and
comprobante calls what is registered:

- the company's settings (empresa): the issuer's regime, legends and branch, the logo and the default paper;
- what follows every issue, in its write transaction (envios: the road to DGI; intercambio: the delivery to an
  electronic receiver), and what wakes after its commit;
- the sections of a receipt's answer those areas write (`dgi`, `intercambio`, `correo`,
  `corrigeRechazoComercial`; in the `dgi` one, since when DGI does not answer while the receipt waits on it),
  the rows read with the receipt in one query, what the answer's ETag reads of
  those areas' rows, and the reason a credit note's draft takes from the receiver's commercial
  rejection;
- voiding a CAE range's unused numbers (envios: the void goes in the daily report), which empresa's retiring
  of a range asks for;
- sending a corrected contingency receipt to DGI again (envios), when DGI observed it.

Registration replaces by name, so an app factory run twice registers each area once, in the order of AREAS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import Select, Table
from sqlalchemy.orm import Session

from portal.service.cfe import CfeInput, Totals
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe
from portal.service.comprobante.tracking_schemas import EstadoDgi, EstadoIntercambio, ResumenCorreo
from portal.service.platform.auth import Principal
from portal.service.platform.db import Base
from portal.service.platform.models import Company


@dataclass(frozen=True)
class CompanySettings:
    """The company's settings as issuing and printing read them (empresa.settings)."""

    issuer_fields: Callable[[Session, Company, int | None], dict[str, Any]]
    logo: Callable[[Session, int], bytes | None]
    paper: Callable[[Session, int], str]


@dataclass(frozen=True)
class Issued:
    """A receipt in its issuing transaction, as the areas that follow it up see it."""

    record: IssuedCfe
    cfe: CfeInput
    issuer_rut: str
    ui_value: Decimal
    totals: Totals
    originals: tuple[IssuedCfe, ...]  # the receipts it references


@dataclass(frozen=True)
class Wakeup:
    """Work to start once the issue committed (jobs.enqueue_safely), named for the log."""

    run: Callable[[], None]
    label: str


def _no_rows(session: Session, issued: Issued) -> Sequence[Base]:
    return ()


def _no_wakeup(session: Session, issued: Issued) -> Wakeup | None:
    return None


@dataclass(frozen=True)
class PlainIssued:
    """A receipt on the plain issuing path (comprobante.fastpath): its columns as they will be stored (`values`,
    by column name), and what it was signed with. No ORM object, no session."""

    values: dict[str, Any]
    cfe: CfeInput
    issuer_rut: str
    ui_value: Decimal
    totals: Totals


@dataclass(frozen=True)
class PlainPart:
    """One area's part in a plain issue: rows to insert with the receipt ((Table, column values) each), the
    receipt's columns it sets, the sections of the answer it writes (as JSON values, absent when None), and a
    wake-up after commit."""

    rows: tuple[tuple[Table, dict[str, Any]], ...] = ()
    receipt: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)
    wakeup: Wakeup | None = None


def _no_part(issued: PlainIssued) -> PlainPart:
    return PlainPart()


def _covers_all(cfe: CfeInput, issuer_rut: str) -> bool:
    return True


@dataclass(frozen=True)
class IssueFollowUp:
    """One area's part in every issue, in the issue's write transaction: `rows` to insert together with the
    receipt (built before it is stored), then `stored` once it is, which may ask for a wake-up after commit.

    The plain path (comprobante.fastpath) asks `plain_covers` before it takes a number, and then `plain` for the
    same work as plain values: an area whose work for a receipt needs its ORM rows or other reads (a delivery
    to an electronic receiver, a correction linked) answers False and the receipt takes the general path."""

    rows: Callable[[Session, Issued], Sequence[Base]] = _no_rows
    stored: Callable[[Session, Issued], Wakeup | None] = _no_wakeup
    plain_covers: Callable[[CfeInput, str], bool] = _covers_all
    plain: Callable[[PlainIssued], PlainPart] = _no_part


@dataclass(frozen=True)
class TagPart:
    """What a receipt's answer ETag (comprobante/answer_tag.py) reads of an area's rows that are one per receipt
    or that several receipts share, so that a change of one of them changes the tag without writing the
    receipt's row: `columns` adds them (outer joins from IssuedCfe, every column the answer shows) to the tag's
    one statement; `now`, what the answer shows that changes with the time alone, from that statement's row
    (its value goes in the tag). Rows the answer shows several of per receipt (sends, notes, history) bump
    IssuedCfe.answer_version by trigger instead (migration 0310)."""

    columns: Callable[[Select], Select]
    now: Callable[[Mapping[str, Any]], object] | None = None  # the row by column key


@dataclass(frozen=True)
class ReceiptSections:
    """What other areas write in a receipt's answer (CfeEmitido), and the rows each reads, joined to the receipt
    in the answer's one query (`prefetch` adds them to the statement that reads IssuedCfe)."""

    dgi: Callable[[Session, IssuedCfe], EstadoDgi | None] | None = None
    exchange: Callable[[Session, IssuedCfe], EstadoIntercambio | None] | None = None
    mail: Callable[[Session, IssuedCfe], ResumenCorreo | None] | None = None
    dgi_outage: Callable[[Session, EstadoDgi], datetime | None] | None = None  # since when DGI does not answer
    corrects_rejection: Callable[[Session, IssuedCfe], str | None] | None = None
    credit_note_reason: Callable[[Session, IssuedCfe], str | None] | None = None
    prefetch: Callable[[Select], Select] | None = None
    tag: TagPart | None = None


class VoidedNumbers(Protocol):
    """Numbers voided from a CAE range (envios' VoidedRange): its record and the daily report's day."""

    id: int
    nro_desde: int
    nro_hasta: int
    fecha: date


# (session, principal, the range locked by the caller, the last number to void, the reason) -> what was voided.
VoidNumbers = Callable[[Session, Principal, CaeRangeRecord, int, str], VoidedNumbers]


@dataclass(frozen=True)
class DgiResubmission:
    """A receipt's road to DGI taken again after a correction (envios)."""

    observed: Callable[[Session, IssuedCfe], bool]  # its submission locked: DGI observed it (CE) and nothing since
    resend: Callable[[Session, IssuedCfe], Wakeup]  # back to pending in this transaction; the wake-up after commit


_company: CompanySettings | None = None
_resubmission: DgiResubmission | None = None
_void_numbers: VoidNumbers | None = None
_follow_ups: dict[str, IssueFollowUp] = {}
_sections: dict[str, ReceiptSections] = {}


def provide_company_settings(settings: CompanySettings) -> None:
    global _company
    _company = settings


def provide_voiding(void: VoidNumbers) -> None:
    global _void_numbers
    _void_numbers = void


def void_up_to(session: Session, principal: Principal, cae: CaeRangeRecord, last: int, reason: str) -> VoidedNumbers:
    """Void `cae`'s unused numbers up to `last` in the caller's transaction (envios' voids.void_up_to)."""
    if _void_numbers is None:
        raise RuntimeError("no voiding registered: envios' init_app has not run (create_app)")
    return _void_numbers(session, principal, cae, last, reason)


def provide_resubmission(resubmission: DgiResubmission) -> None:
    global _resubmission
    _resubmission = resubmission


def resubmission() -> DgiResubmission:
    if _resubmission is None:
        raise RuntimeError("no DGI resubmission registered: envios' init_app has not run (create_app)")
    return _resubmission


def follow_issues(area: str, follow_up: IssueFollowUp) -> None:
    _follow_ups[area] = follow_up


def add_receipt_sections(area: str, sections: ReceiptSections) -> None:
    _sections[area] = sections


def company_settings() -> CompanySettings:
    if _company is None:
        raise RuntimeError("no company settings registered: empresa's init_app has not run (create_app)")
    return _company


def follow_ups() -> tuple[IssueFollowUp, ...]:
    return tuple(_follow_ups.values())


def sections() -> tuple[ReceiptSections, ...]:
    return tuple(_sections.values())


def with_prefetched(statement: Select) -> Select:
    """`statement` (on IssuedCfe) with the rows the receipt's sections read joined in."""
    for registered in _sections.values():
        if registered.prefetch is not None:
            statement = registered.prefetch(statement)
    return statement


def with_tag_columns(statement: Select) -> Select:
    """`statement` (on IssuedCfe) with the shared rows' columns the receipt's sections show (TagPart)."""
    for registered in _sections.values():
        if registered.tag is not None:
            statement = registered.tag.columns(statement)
    return statement


def tag_now(row: Mapping[str, Any]) -> tuple[object, ...]:
    """What the receipt's sections show that changes with the time alone, from the tag statement's row."""
    return tuple(s.tag.now(row) for s in _sections.values() if s.tag is not None and s.tag.now is not None)


def dgi_state(session: Session, record: IssuedCfe) -> EstadoDgi | None:
    return next((s.dgi(session, record) for s in _sections.values() if s.dgi is not None), None)


def dgi_down_since(session: Session, dgi: EstadoDgi) -> datetime | None:
    """Since when DGI does not answer, for a receipt whose `dgi` section waits on it (None: DGI answers, or the
    receipt does not wait): what getByIdCfeEmitido adds to that section, read now, never stored with it."""
    return next((s.dgi_outage(session, dgi) for s in _sections.values() if s.dgi_outage is not None), None)


def exchange_state(session: Session, record: IssuedCfe) -> EstadoIntercambio | None:
    return next((s.exchange(session, record) for s in _sections.values() if s.exchange is not None), None)


def mail_summary(session: Session, record: IssuedCfe) -> ResumenCorreo | None:
    return next((s.mail(session, record) for s in _sections.values() if s.mail is not None), None)


def corrected_receipt(session: Session, note: IssuedCfe) -> str | None:
    """The receipt whose commercial rejection the credit note `note` corrects, if any."""
    found = (s.corrects_rejection for s in _sections.values() if s.corrects_rejection is not None)
    return next((write(session, note) for write in found), None)


def credit_note_reason(session: Session, original: IssuedCfe) -> str | None:
    """The reason a credit note for `original` starts with (its receiver's commercial rejection), if any."""
    found = (s.credit_note_reason for s in _sections.values() if s.credit_note_reason is not None)
    return next((reason(session, original) for reason in found), None)
