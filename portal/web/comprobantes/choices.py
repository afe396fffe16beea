"""The codes the issuing form offers, with DGI's meaning in the user's language (CFE-URUGUAY.md §1, §3)."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms.fields.choices import SelectChoice

from portal.domain.cfe_types import (
    IND_FACT_BASIC_RATE,
    IND_FACT_EXEMPT,
    IND_FACT_FREE,
    IND_FACT_MINIMUM_RATE,
    IND_FACT_NOT_BILLABLE,
    IND_FACT_NOT_BILLABLE_NEGATIVE,
    IND_FACT_NOT_FOR_SMALL_TAXPAYERS,
    IND_FACT_SMALL_TAXPAYER,
    INVOICE_TYPES,
)
from portal.web.dgi_labels import STATES as DGI_BADGES

CFE_TYPES = [
    (101, _l("e-Ticket")),
    (111, _l("e-Factura")),
    (102, _l("Nota de crédito de e-Ticket")),
    (103, _l("Nota de débito de e-Ticket")),
    (112, _l("Nota de crédito de e-Factura")),
    (113, _l("Nota de débito de e-Factura")),
    (181, _l("e-Remito")),
    (182, _l("e-Resguardo")),  # its lines carry only retentions: code, rate, base, amount
]

TYPE_NAMES = dict(CFE_TYPES)
# A note named with its own number: "Nota de crédito de e-Ticket A-0000003" read as a note of e-Ticket A-0000003,
# so a note's own number follows these names ("Nota de crédito e-Ticket A-0000003, de e-Ticket A-0000001").
NOTE_NAMES = {
    102: _l("Nota de crédito e-Ticket"),
    103: _l("Nota de débito e-Ticket"),
    112: _l("Nota de crédito e-Factura"),
    113: _l("Nota de débito e-Factura"),
}


def numbered_name(code: int | None, number: str) -> str:
    """A receipt's type and its own number, unambiguous for notes ("Nota de crédito e-Ticket A-0000003")."""
    return f"{NOTE_NAMES[code] if code in NOTE_NAMES else type_name(code)} {number}"


def type_name(code: int | None) -> str:
    """A CFE type as people read it, in the page's language ("Nota de crédito de e-Ticket"); the code if unknown."""
    if code is None:
        return ""
    return str(TYPE_NAMES.get(code, code))


REFERENCE_TYPES = [(code, label) for code, label in CFE_TYPES if code in INVOICE_TYPES]

FMA_PAGO = [(1, _l("Contado")), (2, _l("Crédito"))]

TRASLADO = [(1, _l("Venta")), (2, _l("Traslado interno"))]

DOC_TYPES = [
    ("", _l("Sin identificar (consumo final)")),
    ("2", _l("RUT")),
    ("3", _l("C.I. (cédula de identidad)")),
    ("1", _l("NIE")),
    ("5", _l("Pasaporte")),
    ("6", _l("DNI (Argentina, Brasil, Chile, Paraguay)")),
    ("7", _l("NIFE (identificación fiscal extranjera)")),
    ("4", _l("Otro documento")),
]

DOC_TYPE_NAMES = {int(code): label for code, label in DOC_TYPES if code}

# The portal's one table of IVA indicator labels (the issuing form offers them; pages show them).
IND_FACT = [
    (IND_FACT_BASIC_RATE, _l("IVA básica (22 %)")),
    (IND_FACT_MINIMUM_RATE, _l("IVA mínima (10 %)")),
    (IND_FACT_EXEMPT, _l("Exento de IVA")),
    (IND_FACT_FREE, _l("Entrega gratuita")),
    (IND_FACT_NOT_BILLABLE, _l("No facturable")),
    (IND_FACT_NOT_BILLABLE_NEGATIVE, _l("No facturable negativo")),
    (IND_FACT_SMALL_TAXPAYER, _l("Venta sin IVA")),
]
# What a line may be: an IVA mínimo or Monotributo company sells without IVA (and has no exempt sales); every
# other company never uses that indicator (DGI B-C4).
LINE_IND_FACT = [pair for pair in IND_FACT if pair[0] != IND_FACT_SMALL_TAXPAYER]
LINE_IND_FACT_SMALL_TAXPAYER = sorted(  # the sale without IVA first: a new line's default
    (pair for pair in IND_FACT if pair[0] not in IND_FACT_NOT_FOR_SMALL_TAXPAYERS),
    key=lambda pair: pair[0] != IND_FACT_SMALL_TAXPAYER,
)

CURRENCIES = [
    ("UYU", _l("UYU · peso uruguayo")),
    ("USD", _l("USD · dólar estadounidense")),
    ("EUR", _l("EUR · euro")),
    ("ARS", _l("ARS · peso argentino")),
    ("BRL", _l("BRL · real")),
    ("UYI", _l("UYI · unidad indexada")),
    ("UYR", _l("UYR · unidad reajustable")),
]

# The DGI states with their portal labels and badges: one table, the DGI badge's (portal/web/dgi_labels.py).
DGI_STATUS = {code: (label, f"badge-{tone}") for code, (label, tone, _poll) in DGI_BADGES.items()}

FILTER_TYPES = [("", _l("Todos los tipos")), *((str(code), label) for code, label in TYPE_NAMES.items())]
FILTER_CURRENCIES = [("", _l("Todas las monedas")), *((code, code) for code, _label in CURRENCIES)]
FILTER_STATES = [("", _l("Todos los estados")), *((code, label) for code, (label, _badge) in DGI_STATUS.items())]


def options(pairs) -> list[SelectChoice]:
    """WTForms' option objects for (value, label) pairs."""
    return [SelectChoice(value, label) for value, label in pairs]
