"""The receiver fields helped by the service: DGI's data and warnings for the typed document, and the
company's past receivers as suggestions.

What the user typed is theirs: DGI fills only a field that is empty or still holds what DGI filled in
before (the form carries those values in `dgi_completado`, so a field edited since is left alone). The
warnings are the service's (GET /receptores/dgi, the same rules smart issuance uses); this module only
decides how the form shows them. DGI failing never blocks issuing: the person is told and types the data.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.client import errors as client_errors
from portal.client.clientes import Customer
from portal.client.receptores import DgiReceiver, PastReceiver, ReceiverWarning
from portal.domain.digits import ascii_number
from portal.domain.identifiers import URUGUAYAN_DOC_TYPES, digits_only, document_error, format_rut
from portal.domain.uruguay_time import MONTEVIDEO
from portal.web.backend import api
from portal.web.comprobantes import catalogue

log = logging.getLogger(__name__)

RECORD_FIELD = "dgi_completado"
_RECORD_MAX = 1000
# Form field -> the DgiReceiver attribute that fills it, and how the "filled from DGI" note names it.
FILLED = {
    "rzn_soc_recep": ("name", _l("nombre o razón social")),
    "dir_recep": ("address", _l("dirección")),
    "ciudad_recep": ("city", _l("ciudad")),
    "depto_recep": ("department", _l("departamento")),
}
# The customer's fields beyond the receiver's, and how the "filled from the customer" note names them.
CUSTOMER_LABELS = {
    "enviar_a": _l("correo para enviarle el comprobante"),
    "tpo_moneda": _l("moneda"),
    "fma_pago": _l("forma de pago"),
}
COUNTRY_LABEL = _l("país del documento")
SUGGESTIONS_SHOWN = 8
MIN_TYPED = 2
# Two digits ("21") already narrow the suggestions to the most recent receivers with that prefix, and the
# service answers them from an index (bench/bench_receptores.py); one digit is a keystroke too early.
MIN_DIGITS = 2


@dataclass(frozen=True)
class Fill:
    """Put `value` in `field` if it still holds `if_value` when the answer arrives (the person may type
    meanwhile: then their text stays). An empty value clears a field DGI filled for another document."""

    field: str
    value: str
    if_value: str
    label: str


@dataclass(frozen=True)
class DgiCheck:
    state: str  # "found", "not_found", "unavailable", "no_certificate", "not_offered"
    warnings: tuple[ReceiverWarning, ...] = ()
    fills: tuple[Fill, ...] = ()
    record: str = ""
    electronic: bool = False
    customer: Customer | None = None  # the company's customer with this document: the first source
    customer_fills: tuple[Fill, ...] = ()

    @property
    def filled_labels(self) -> list[str]:
        return [f.label for f in self.fills if f.value]

    @property
    def note(self) -> str:
        """What to tell the person when DGI did not answer for this document."""
        return state_message(self.state)


@dataclass(frozen=True)
class Suggestion:
    receiver: PastReceiver
    shown_number: str
    data: dict[str, str] = field(default_factory=dict)

    @property
    def last_used_day(self) -> date | None:
        """The day of its last receipt, in Montevideo (the service keeps moments in UTC)."""
        last = self.receiver.last_used
        return last.astimezone(MONTEVIDEO).date() if last else None


def lookup_document(doc_type: str | None, number: str | None) -> tuple[int, str] | None:
    """(DGI doc type, digits) when the document is a Uruguayan one with a valid check digit, else None."""
    kind = ascii_number(doc_type)
    if kind is None or kind not in URUGUAYAN_DOC_TYPES:
        return None
    digits = digits_only((number or "").strip())
    if not digits or document_error(kind, digits):
        return None
    return kind, digits


def read_record(raw: str | None) -> dict[str, str]:
    """The values DGI filled in before, as the form sent them back; anything malformed counts as none."""
    try:
        record = json.loads((raw or "")[:_RECORD_MAX] or "{}")
    except ValueError:
        return {}
    if not isinstance(record, dict):
        return {}
    return {k: v for k, v in record.items() if k in catalogue.CUSTOMER_FIELDS and isinstance(v, str)}


def dgi_check(doc_type: str | None, number: str | None, form: Mapping[str, str], *, fill: bool) -> DgiCheck | None:
    """What DGI says of the document, for the form: warnings, and (with `fill`) which fields to fill in.
    None when the document is not one DGI registers (or not valid yet)."""
    document = lookup_document(doc_type, number)
    if document is None:
        return foreign_customer_check(doc_type, number, form) if fill else None
    record = read_record(form.get(RECORD_FIELD))
    customer: Customer | None = None
    customer_fills: tuple[Fill, ...] = ()
    customer_record: dict[str, str] = {}
    if fill:
        customer = catalogue.find_customer(*document)
        customer_fills, customer_record = _customer_fills(customer, form, record)
    taken = {f.field for f in customer_fills if f.value}
    try:
        found = api().receiver_from_dgi(*document)
    except client_errors.Conflict as exc:
        state = "no_certificate" if exc.code == "sin_certificado_vigente" else "unavailable"
        return DgiCheck(
            state,
            record=json.dumps({**record, **customer_record}) if fill else json.dumps(record),
            customer=customer,
            customer_fills=customer_fills,
        )
    except (client_errors.ServiceUnavailable, client_errors.RateLimited) as exc:
        # 501: the configured DGI service does not register people; nothing to say about a cédula then.
        log.info("DGI receiver lookup failed: %s %s", exc.status, exc.code)
        return DgiCheck(
            "not_offered" if exc.status == 501 else "unavailable",
            record=json.dumps({**record, **customer_record}) if fill else json.dumps(record),
            customer=customer,
            customer_fills=customer_fills,
        )
    state = "found" if found.found else "not_found"
    if not fill:
        return DgiCheck(state, found.warnings, record=json.dumps(record), electronic=found.electronic)
    fills, dgi_record = _fills(found, form, record, skip=taken)
    return DgiCheck(
        state,
        found.warnings,
        fills,
        json.dumps({**dgi_record, **customer_record}),
        electronic=found.electronic,
        customer=customer,
        customer_fills=customer_fills,
    )


def foreign_customer_check(doc_type: str | None, number: str | None, form: Mapping[str, str]) -> DgiCheck | None:
    """A foreign document (passport, DNI, NIFE, other) DGI does not register: the company's customer with it
    still fills the receiver (an export's buyer picked from the catalogue), its country code included."""
    kind = ascii_number(doc_type)
    if kind is None or kind in URUGUAYAN_DOC_TYPES:
        return None
    typed = (number or "").strip()
    if not typed:
        return None
    record = read_record(form.get(RECORD_FIELD))
    customer = catalogue.find_customer(kind, typed)
    fills, customer_record = _customer_fills(customer, form, record)
    country = (form.get("cod_pais_recep") or "").strip().upper()
    if customer is not None and customer.country and country in ("", "UY", customer.country):
        fills += (Fill("cod_pais_recep", customer.country, form.get("cod_pais_recep") or "", str(COUNTRY_LABEL)),)
    if customer is None and not fills:
        return None
    return DgiCheck(
        "foreign", record=json.dumps({**record, **customer_record}), customer=customer, customer_fills=fills
    )


def _customer_fills(
    customer: Customer | None, form: Mapping[str, str], record: dict[str, str]
) -> tuple[tuple[Fill, ...], dict[str, str]]:
    """The customer's data in the fields that are empty, at their default or still filled automatically; the
    e-mail, currency and payment terms filled for another document go back to their defaults without one."""
    fills, new_record = [], {}
    for name in catalogue.CUSTOMER_FIELDS:
        if not catalogue.untouched(name, form, record):
            continue
        value = catalogue.customer_value(customer, name)
        current = form.get(name) or ""
        if customer is not None and value:
            new_record[name] = value
            label = FILLED[name][1] if name in FILLED else CUSTOMER_LABELS[name]
            fills.append(Fill(name, value, current, str(label)))
        elif name not in FILLED and current.strip() and current.strip() == record.get(name):
            fills.append(Fill(name, catalogue.CUSTOMER_FIELDS[name][1], current, ""))
    return tuple(fills), new_record


def _fills(
    found: DgiReceiver,
    form: Mapping[str, str],
    record: dict[str, str],
    *,
    skip: set[str] | frozenset[str] = frozenset(),
) -> tuple[tuple[Fill, ...], dict]:
    """Fill the fields that are empty or still DGI's; clear those DGI filled for another document."""
    fills, new_record = [], {}
    for name, (attribute, label) in FILLED.items():
        current = (form.get(name) or "").strip()
        ours = not current or current == record.get(name)
        value = getattr(found, attribute) or ""
        if not ours or name in skip:
            continue
        if value:
            new_record[name] = value
        if value or current:  # asked again for the same document (the change after typing), it says so again
            fills.append(Fill(name, value, form.get(name) or "", str(label)))
    return tuple(fills), new_record


def suggestions(typed: str | None) -> list[Suggestion]:
    """The company's past receivers whose name or document starts with what was typed (none for less than two
    letters or two digits); a service failure only means no suggestions."""
    typed = (typed or "").strip()[:150]
    number = all(ch.isdigit() or ch in ".- " for ch in typed)
    if len(typed) < MIN_TYPED or (number and len(digits_only(typed)) < MIN_DIGITS):
        return []
    try:
        found = api().past_receivers(typed, limit=SUGGESTIONS_SHOWN)
    except (client_errors.ServiceUnavailable, client_errors.RateLimited, client_errors.ValidationError) as exc:
        log.info("past receivers unavailable: %s %s", exc.status, exc.code)
        return []
    return [_suggestion(r) for r in found]


def _suggestion(r: PastReceiver) -> Suggestion:
    shown = format_rut(r.number) if r.doc_type == 2 and len(r.number) == 12 else r.number
    data = {
        "tipo_doc_recep": str(r.doc_type or ""),
        "cod_pais_recep": r.country or "",
        "doc_recep": r.number,
        "rzn_soc_recep": r.name or "",
        "dir_recep": r.address or "",
        "ciudad_recep": r.city or "",
        "depto_recep": r.department or "",
    }
    return Suggestion(r, shown, data)


def state_message(state: str) -> str:
    return {
        "unavailable": _("No pudimos consultar a DGI ahora. Completá los datos a mano: podés emitir igual."),
        "no_certificate": _(
            "Para consultar a DGI tu empresa necesita un certificado vigente. Completá los datos a mano: "
            "podés emitir igual."
        ),
    }.get(state, "")
