"""The one check that a text can be printed and signed in a CFE: which characters are refused, which are
normalised, and what a text may not be (only spaces). docs/DGI-RULES.md, "Characters in texts", says why.

lxml refuses, when the CFE is built, any character outside XML 1.0's Char (#x9 | #xA | #xD | [#x20-#xD7FF] |
[#xE000-#xFFFD] | [#x10000-#x10FFFF]): U+FFFE, U+FFFF, a lone surrogate, NUL... A text stored with one of
them would turn every later issue into a 500, so every text that ends up in a CFE goes through here on the
way in. DEL and the C1 controls (U+007F-U+009F) are legal XML but never meant in a receipt: refused too.
Tab and line breaks are allowed where a text may span lines (`line_breaks=True`).

Legal XML is not enough for a document a person reads and DGI keeps: a right-to-left override shows
"Pago 001" as "100 ogaP", a zero-width space makes two equal-looking names differ, a private-use character
prints as whatever the font put there. Such characters are refused with a code per class (`bidi_control`,
`invisible_char`, `private_use`), never removed silently, because the text signed must be the text the
client sent. Characters that only write a space or a line break another way (no-break and typographic
spaces, U+2028/U+2029) are normalised to the plain ones. A text of only spaces is `blank`.

The models run `xml_text` before their own checks (`mode="before"`), so a normalised text is then stripped and
measured like any other, and a text of spaces is told apart from an absent one.
"""

from __future__ import annotations

import re

from pydantic_core import PydanticCustomError

_ALLOWED = "\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff"
_FORBIDDEN_ONE_LINE = re.compile(f"[^{_ALLOWED}]")
_FORBIDDEN_LINES = re.compile(f"[^\t\n\r{_ALLOWED}]")

# Refused: each class with its stable code and what the message calls it.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_INVISIBLE = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164"
    "\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f"
)
_PRIVATE = "\ue000-\uf8ff\ufdd0-\ufdef\U000f0000-\U0010ffff"
_SPOOFING = re.compile(f"[{_BIDI}{_INVISIBLE}{_PRIVATE}]")
_CLASSES = (
    (re.compile(f"[{_BIDI}]"), "bidi_control", "una marca de dirección de escritura"),
    (re.compile(f"[{_INVISIBLE}]"), "invisible_char", "un carácter invisible"),
    (re.compile(f"[{_PRIVATE}]"), "private_use", "un carácter de uso privado, sin significado"),
)
# Normalised: other ways of writing a space or a line break.
_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_LINE_SEPARATORS = re.compile("[\u2028\u2029]")


def _char(found: re.Match[str]) -> str:
    return f"U+{ord(found.group()):04X}"


def xml_text(value: object, *, line_breaks: bool = True) -> object:
    """`value` unchanged if it is not a text; the text with its spaces and line separators normalised if it can
    be printed and signed; a pydantic error naming the character (or `blank`) otherwise."""
    if not isinstance(value, str):
        return value
    separator = _LINE_SEPARATORS.search(value)
    if separator and not line_breaks:
        raise PydanticCustomError(
            "control_chars", "Es de una sola línea y contiene un salto de línea ({char}).", {"char": _char(separator)}
        )
    if separator:
        value = _LINE_SEPARATORS.sub("\n", value)
    value = _SPACES.sub(" ", value)
    spoofing = _SPOOFING.search(value)
    if spoofing:
        for pattern, code, name in _CLASSES:
            if pattern.match(spoofing.group()):
                raise PydanticCustomError(
                    code,
                    "Contiene {name} ({char}), que cambiaría cómo se lee el comprobante: borralo y volvé a intentar.",
                    {"name": name, "char": _char(spoofing)},
                )
    found = (_FORBIDDEN_LINES if line_breaks else _FORBIDDEN_ONE_LINE).search(value)
    if found:
        raise PydanticCustomError(
            "control_chars",
            "Contiene un carácter que no se puede usar ({char}): borralo y volvé a intentar.",
            {"char": _char(found)},
        )
    if value and not value.strip():
        raise PydanticCustomError("blank", "Tiene solo espacios: escribí el texto o no envíes el campo.")
    return value


def xml_one_line(value: object) -> object:
    """`xml_text` for a one-line text: no tab or line break either."""
    return xml_text(value, line_breaks=False)
