"""The commercial motives a receiver rejects a CFE with, E20-E60 (RESP19, ACKCFE_Partes.xsd; CFE-URUGUAY.md section
12): the one table of what each code is, read wherever one is said.

- `glosa`: DGI's text for the code, what the receiver signs in its ACKCFE (recibidos); never translated, at most
  100 characters (Glosa50Type). DGI writes some clipped ("Diferencia precios y/o descuentos").
- `words`: what people read, in Spanish and English: the receiver's rejection and the decision taken (the portal,
  the API's `texto`) and the issuer's receipt when its receiver gave the motive (intercambio), the same on both sides.
- `option`: the words as the rejection form offers them, shorter where the full ones do not fit a phone's box.

E27-E60 are agreed between the parties: one standard glosa, and the receiver's detail is the motive itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Words:
    """A text people read, in Spanish and in English."""

    es: str
    en: str

    def said(self, language: str) -> str:
        """In `language` (es or en; Spanish for any other)."""
        return self.en if language[:2] == "en" else self.es


@dataclass(frozen=True)
class CommercialMotive:
    code: str
    glosa: str
    words: Words
    option: Words


def _motive(code: str, glosa: str, words: Words, option: Words | None = None) -> CommercialMotive:
    return CommercialMotive(code, glosa, words, option or words)


_DEFINED: Final = (
    _motive("E20", "Orden de compra vencida", Words("Orden de compra vencida", "Purchase order expired")),
    _motive("E21", "Mercadería en mal estado", Words("Mercadería en mal estado", "Goods in bad condition")),
    _motive(
        "E22",
        "Proveedor inhabilitado por organismo de contralor",
        Words("Proveedor inhabilitado por organismo de contralor", "Supplier barred by a regulator"),
        Words("Proveedor inhabilitado", "Supplier barred"),
    ),
    _motive(
        "E23",
        "Contraprestación no recibida",
        Words("Contraprestación no recibida", "Goods or service not received"),
        Words("No recibimos lo facturado", "Not received"),
    ),
    _motive(
        "E24",
        "Diferencia precios y/o descuentos",
        Words("Diferencia de precios y/o descuentos", "Price or discount difference"),
        Words("Precios o descuentos", "Prices or discounts"),
    ),
    _motive(
        "E25",
        "Factura con error cálculos",
        Words("Factura con error de cálculos", "Calculation errors in the invoice"),
        Words("Errores de cálculo", "Calculation errors"),
    ),
    _motive("E26", "Diferencia con plazos", Words("Diferencia con plazos", "Payment term difference")),
)
AGREED_GLOSA: Final = "Otro motivo acordado entre las partes"
_AGREED_WORDS: Final = Words(AGREED_GLOSA, "Another motive agreed between the parties")
# The form asks for the agreed motive's text: the decision taken reads as `words`, not as the instruction.
_AGREED_OPTION: Final = Words("otro motivo (escribilo)", "other motive (write it)")

MOTIVES: Final[dict[str, CommercialMotive]] = {
    **{m.code: m for m in _DEFINED},
    **{f"E{n}": _motive(f"E{n}", AGREED_GLOSA, _AGREED_WORDS, _AGREED_OPTION) for n in range(27, 61)},
}
"""Every commercial code, E20 to E60 in order."""
CODES: Final[tuple[str, ...]] = tuple(MOTIVES)
AGREED_CODES: Final[frozenset[str]] = frozenset(f"E{n}" for n in range(27, 61))
"""Defined between the parties: the text is the motive, so a rejection with one of them must say it."""


def is_commercial(code: str) -> bool:
    """E20-E60: a receiver's commercial rejection (the CFE stays valid before DGI: it takes a credit note)."""
    return code in MOTIVES


def is_agreed(code: str) -> bool:
    return code in AGREED_CODES
