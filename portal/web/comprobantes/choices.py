"""The codes the issuing form offers, with DGI's meaning in the user's language (CFE-URUGUAY.md §1, §3)."""

from __future__ import annotations

import re

from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from markupsafe import Markup, escape
from wtforms.fields.choices import SelectChoice

from portal.domain import cfe_type_names
from portal.domain.cfe_type_names import NAMES as TYPE_NAME_TABLE
from portal.domain.cfe_types import (
    BOLETA_TYPES,
    CFC_OFFSET,
    CREDIT_NOTE_FOR,
    EXPORT_INVOICE_TYPES,
    IND_FACT_BASIC_RATE,
    IND_FACT_EXEMPT,
    IND_FACT_EXPORT,
    IND_FACT_FREE,
    IND_FACT_MINIMUM_RATE,
    IND_FACT_NOT_BILLABLE,
    IND_FACT_NOT_BILLABLE_NEGATIVE,
    IND_FACT_NOT_FOR_SMALL_TAXPAYERS,
    IND_FACT_SMALL_TAXPAYER,
    INVOICE_TYPES,
    NOTE_TYPES,
    with_cfc,
)
from portal.domain.receipt_numbers import PRINTED_IN_TEXT
from portal.web.dgi_labels import STATES as DGI_BADGES


def _named(code: int) -> LazyString:
    return LazyString(lambda: type_name(code))


# The types in the issuing form's order, named in the page's language (portal.domain.cfe_type_names: the one
# table of their names, which the service's messages say too).
CFE_TYPES = [(code, _named(code)) for code in TYPE_NAME_TABLE]

# Paper contingency receipts keyed in (CFC, 2xx = 1xx + 100, portal.domain.cfe_types.CFC_TYPES): one for each
# type above, offered by the form's "contingency" choice, registered as books in Empresa, named in lists, filters
# and receipt pages.
CFC_TYPES: list = [(code + CFC_OFFSET, _named(code + CFC_OFFSET)) for code in sorted(TYPE_NAME_TABLE)]
OTHER_TYPES: list = CFC_TYPES

TYPE_NAMES = dict(CFE_TYPES + OTHER_TYPES)
# A note named with its own number: "Nota de crédito de e-Ticket A-0000003" read as a note of e-Ticket A-0000003,
# so a note's own number follows these names ("Nota de crédito e-Ticket A-0000003, de e-Ticket A-0000001"), for
# every note type, the paper contingency ones too (portal.domain.cfe_type_names.numbered_type_name).
NOTE_NAMES = {
    code: LazyString(lambda code=code: cfe_type_names.numbered_type_name(code, str(get_locale() or "es")))
    for code in sorted(with_cfc(NOTE_TYPES))
}


def numbered_name(code: int | None, number: str) -> str:
    """A receipt's type and its own number, unambiguous for notes ("Nota de crédito e-Ticket A-0000003")."""
    return f"{NOTE_NAMES[code] if code in NOTE_NAMES else type_name(code)} {number}"


_TAG = re.compile(r"(<[^>]*>)")
_NUMBER = r'<span class="receipt-number">\g<0></span>'


def unbroken_numbers(text: object) -> Markup:
    """`text`, escaped, with each receipt number in it kept on one line: browsers break after a dash, and a narrow
    title read "e-Factura A-" above "0000001". An element around the number, not a look-alike dash, so what a screen
    reader says and a copy takes is the same text."""
    parts = _TAG.split(str(escape(text)))  # already markup: only its text, never a tag
    kept = (part if odd % 2 else PRINTED_IN_TEXT.sub(_NUMBER, part) for odd, part in enumerate(parts))
    return Markup("".join(kept))  # noqa: S704 - escaped above, and the one element added around a number


# The "e-" word of a type's name ("e-Ticket", "e-Factura"): browsers break after its dash.
_E_WORD = re.compile(r"(?<![\w-])e-[^\W\d_]+")


def unbroken_type(name: object) -> Markup:
    """A CFE type's name, escaped, its "e-" word kept on one line: in a narrow column "Nota de débito de e-Ticket"
    read "de e-" above "Ticket". An element around the word, as unbroken_numbers does, not a look-alike dash."""
    return Markup(_E_WORD.sub(r'<span class="unbroken">\g<0></span>', str(escape(name))))  # noqa: S704 - escaped


def type_name(code: int | None) -> str:
    """A CFE type as people read it, in the page's language ("Nota de crédito de e-Ticket"); the code if unknown."""
    return cfe_type_names.type_name(code, str(get_locale() or "es"))


REFERENCE_TYPES = [
    (code, label) for code, label in CFE_TYPES if code in INVOICE_TYPES | EXPORT_INVOICE_TYPES | BOLETA_TYPES
] + [(code, label) for code, label in OTHER_TYPES if code in CREDIT_NOTE_FOR]  # a note of a keyed-in CFC too

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
    (IND_FACT_EXPORT, _l("Exportación (sin IVA)")),
    (12, _l("IVA en suspenso")),
    (13, _l("Vendedor no contribuyente")),
    (14, _l("Vendedor IVA mínimo o Monotributo")),
    (15, _l("Vendedor de IMEBA")),
    (17, _l("Moneda extranjera para reventa")),
]
# What a line may be: an IVA mínimo or Monotributo company sells without IVA (and has no exempt sales); every
# other company never uses that indicator (DGI B-C4).
LINE_IND_FACT = [
    pair for pair in IND_FACT if pair[0] not in (IND_FACT_SMALL_TAXPAYER, IND_FACT_EXPORT, 12, 13, 14, 15, 17)
]
# An e-Boleta de entrada's lines (XSD Item_Det_Boleta): who the seller is decides the indicator.
LINE_IND_FACT_BOLETA = [
    pair for code in (13, 14, 15, 17, 12, IND_FACT_FREE, IND_FACT_NOT_BILLABLE) for pair in IND_FACT if pair[0] == code
]
# An export's lines (XSD Item_Det_Fact_Exp): export first, a new line's default.
LINE_IND_FACT_EXPORT = [
    pair
    for code in (IND_FACT_EXPORT, IND_FACT_FREE, IND_FACT_NOT_BILLABLE, IND_FACT_NOT_BILLABLE_NEGATIVE)
    for pair in IND_FACT
    if pair[0] == code
]
# An e-Remito de Exportación's lines: goods (no indicator, 0 here), a free delivery (5), or an item that
# reduces an earlier remito (8).
EXPORT_REMITO_GOODS = 0
LINE_IND_FACT_EXPORT_REMITO = [
    (EXPORT_REMITO_GOODS, _l("Mercadería")),
    (IND_FACT_FREE, _l("Entrega gratuita")),
    (8, _l("Ítem a rebajar")),
]
# The terms of sale of an export (A-C14, A-C15).
MOD_VENTA = [
    (1, _l("Régimen general")),
    (90, _l("Exportación de servicios")),
    (2, _l("Consignación")),
    (3, _l("Precio revisable")),
    (4, _l("Bienes propios a exclaves aduaneros")),
    (91, _l("Exportación mandante")),
    (99, _l("Otras transacciones")),
]
VIA_TRANSP = [
    (8, _l("No aplica (servicios)")),
    (1, _l("Marítimo")),
    (2, _l("Aéreo")),
    (3, _l("Terrestre")),
    (9, _l("Otro")),
]
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
