"""The CFE types as people name them, in Spanish and in English: the portal's pages and the service's messages
both say a type this way ("Quedan 3 números de CAE para el tipo e-Remito"), never by its code.

DGI's names (Tabla A, CFE-URUGUAY.md section 1) in a sentence's case ("Nota de crédito de e-Ticket"; DGI's own
capitals are `cfe_types.CfeType.name_es`, printed on the receipt). English keeps DGI's names of the documents, as
it keeps e-Ticket: "e-Factura credit note", "Export e-Remito"; a reader then tells the family at a glance."""

from __future__ import annotations

import re
from typing import Final

from portal.domain.cfe_types import CFC_OFFSET

# code -> (Spanish, English), in the order the issuing form offers them.
NAMES: Final[dict[int, tuple[str, str]]] = {
    101: ("e-Ticket", "e-Ticket"),
    111: ("e-Factura", "e-Factura"),
    102: ("Nota de crédito de e-Ticket", "e-Ticket credit note"),
    103: ("Nota de débito de e-Ticket", "e-Ticket debit note"),
    112: ("Nota de crédito de e-Factura", "e-Factura credit note"),
    113: ("Nota de débito de e-Factura", "e-Factura debit note"),
    121: ("e-Factura de exportación", "Export e-Factura"),
    122: ("Nota de crédito de e-Factura de exportación", "Export e-Factura credit note"),
    123: ("Nota de débito de e-Factura de exportación", "Export e-Factura debit note"),
    124: ("e-Remito de exportación", "Export e-Remito"),
    131: ("e-Ticket venta por cuenta ajena", "e-Ticket, sale on behalf of others"),
    132: ("Nota de crédito de e-Ticket venta por cuenta ajena", "e-Ticket credit note, sale on behalf of others"),
    133: ("Nota de débito de e-Ticket venta por cuenta ajena", "e-Ticket debit note, sale on behalf of others"),
    141: ("e-Factura venta por cuenta ajena", "e-Factura, sale on behalf of others"),
    142: ("Nota de crédito de e-Factura venta por cuenta ajena", "e-Factura credit note, sale on behalf of others"),
    143: ("Nota de débito de e-Factura venta por cuenta ajena", "e-Factura debit note, sale on behalf of others"),
    151: ("e-Boleta de entrada", "e-Purchase receipt (e-Boleta de entrada)"),
    152: ("Nota de crédito de e-Boleta de entrada", "e-Purchase receipt credit note"),
    153: ("Nota de débito de e-Boleta de entrada", "e-Purchase receipt debit note"),
    181: ("e-Remito", "e-Remito"),
    182: ("e-Resguardo", "e-Resguardo"),
}
# A paper contingency receipt keyed in (CFC, 2xx = 1xx + 100) is named after its 1xx type.
_CONTINGENCY: Final = {"es": "{name} de contingencia", "en": "Contingency {name}"}
LANGUAGES: Final = ("es", "en")


def type_name(code: int | None, language: str = "es") -> str:
    """A CFE type as people read it in `language` (es or en; Spanish for any other): "Nota de crédito de e-Ticket",
    "Export e-Remito", "e-Ticket de contingencia"; the code for a type that has no name, "" for None."""
    if code is None:
        return ""
    english = language[:2] == "en"
    if code in NAMES:
        return NAMES[code][english]
    if code - CFC_OFFSET in NAMES:
        return _CONTINGENCY["en" if english else "es"].format(name=NAMES[code - CFC_OFFSET][english])
    return str(code)


# "Nota de crédito de e-Ticket" followed by a number reads as a note of e-Ticket <number>: a note's own number
# follows its name without that "de" ("Nota de crédito e-Ticket A-0000003"). English names the note last already
# ("e-Ticket credit note A-0000003").
_NOTE_OF = re.compile(r"^(Nota de (?:crédito|débito)) de ")


def numbered_type_name(code: int | None, language: str = "es") -> str:
    """The name a receipt's own number follows: a note's names the note, not its original ("Nota de crédito e-Ticket
    A-0000003", "Nota de débito e-Factura de exportación de contingencia B-0000002"); any other type's, type_name."""
    name = type_name(code, language)
    return name if language[:2] == "en" else _NOTE_OF.sub(r"\1 ", name)
