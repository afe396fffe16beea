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
from typing import Any, ClassVar

from pydantic import BaseModel, GetJsonSchemaHandler, field_validator
from pydantic.json_schema import JsonSchemaValue

from portal.service.platform.i18n import _
from portal.service.platform.pydantic_errors import refuse

# Refused everywhere: outside XML 1.0's Char, or a C0/C1 control (tab and line breaks aside), as (first, last).
_SURROGATES = (0xD800, 0xDFFF)
_CONTROLS = ((0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F), (0x7F, 0x9F), _SURROGATES, (0xFFFE, 0xFFFF))
_LINE_BREAKS = ((0x09, 0x0A), (0x0D, 0x0D))
# Refused: each class with its stable code and what the message calls it.
_BIDI = ((0x061C, 0x061C), (0x200E, 0x200F), (0x202A, 0x202E), (0x2066, 0x2069))
_INVISIBLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200D),
    (0x2060, 0x2064),
    (0x206A, 0x206F),
    (0x3164, 0x3164),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0xE0000, 0xE007F),
)
_PRIVATE = ((0xE000, 0xF8FF), (0xFDD0, 0xFDEF), (0xF0000, 0x10FFFF))
# Normalised: other ways of writing a space or a line break.
_OTHER_SPACES = (
    (0x00A0, 0x00A0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)
_LINE_SEPARATORS_RANGES = ((0x2028, 0x2029),)


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """A regular-expression character class body: BMP characters as \\uXXXX escapes (read alike by Python and
    ECMA-262), others as themselves."""

    def one(code: int) -> str:
        return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)

    return "".join(one(lo) if lo == hi else f"{one(lo)}-{one(hi)}" for lo, hi in ranges)


_FORBIDDEN_ONE_LINE = re.compile(f"[{_class(_CONTROLS + _LINE_BREAKS)}]")
_FORBIDDEN_LINES = re.compile(f"[{_class(_CONTROLS)}]")
_SPOOFING = re.compile(f"[{_class(_BIDI + _INVISIBLE + _PRIVATE)}]")
_CLASSES = (
    (
        re.compile(f"[{_class(_BIDI)}]"),
        "bidi_control",
        lambda char: _(
            "Contiene una marca de dirección de escritura ({char}), que cambiaría cómo se lee el comprobante: "
            "borralo y volvé a intentar.",
            char=char,
        ),
    ),
    (
        re.compile(f"[{_class(_INVISIBLE)}]"),
        "invisible_char",
        lambda char: _(
            "Contiene un carácter invisible ({char}), que cambiaría cómo se lee el comprobante: borralo y volvé a "
            "intentar.",
            char=char,
        ),
    ),
    (
        re.compile(f"[{_class(_PRIVATE)}]"),
        "private_use",
        lambda char: _(
            "Contiene un carácter de uso privado, sin significado ({char}), que cambiaría cómo se lee el "
            "comprobante: borralo y volvé a intentar.",
            char=char,
        ),
    ),
)
_SPACES = re.compile(f"[{_class(_OTHER_SPACES)}]")
_LINE_SEPARATORS = re.compile(f"[{_class(_LINE_SEPARATORS_RANGES)}]")


def text_pattern(*, line_breaks: bool = True, stripped_length: int = 0) -> str:
    """The characters `xml_text` accepts, as a JSON Schema `pattern` for the OpenAPI document; with
    `stripped_length` (2 or more), also at least that many characters once the spaces at both ends are stripped
    (a model that strips before it measures: "ab" padded with spaces is 2 characters, whatever minLength says)."""
    # Lone surrogates are left out: JSON text cannot carry them (an escaped one is still refused by xml_text),
    # and a class naming them is not a valid pattern for validators built on Rust's regex (jsonschema-rs).
    refused = tuple(r for r in _CONTROLS if r != _SURROGATES) + _BIDI + _INVISIBLE + _PRIVATE
    if not line_breaks:
        refused += _LINE_BREAKS + _LINE_SEPARATORS_RANGES
    # Not only spaces is left to the server (`blank`): said in a pattern it made schema-driven generators
    # (schemathesis) many times slower.
    # Only the Basic Multilingual Plane's: the tag characters and planes 15-16 (private use) stay the server's
    # rule, since a pattern naming astral ranges made schema-driven generation (schemathesis) six times slower.
    refused = tuple(r for r in refused if r[1] <= 0xFFFF)
    text = f"[^{_class(refused)}]"
    if stripped_length < 2:
        return f"^{text}*$"
    # Its first and its last character that stripping keeps, with at least stripped_length - 2 between them.
    kept = f"[^{_class(refused)}\\s\\x1c-\\x1f\\x85]"
    return f"^{text}*{kept}{text}{{{stripped_length - 2},}}{kept}{text}*$"


def _char(found: re.Match[str]) -> str:
    return f"U+{ord(found.group()):04X}"


def xml_text(value: object, *, line_breaks: bool = True) -> object:
    """`value` unchanged if it is not a text; the text with its spaces and line separators normalised if it can
    be printed and signed; a pydantic error naming the character (or `blank`) otherwise."""
    if not isinstance(value, str):
        return value
    separator = _LINE_SEPARATORS.search(value)
    if separator and not line_breaks:
        raise refuse(
            "control_chars", _("Es de una sola línea y contiene un salto de línea ({char}).", char=_char(separator))
        )
    if separator:
        value = _LINE_SEPARATORS.sub("\n", value)
    value = _SPACES.sub(" ", value)
    spoofing = _SPOOFING.search(value)
    if spoofing:
        for pattern, code, message in _CLASSES:
            if pattern.match(spoofing.group()):
                raise refuse(code, message(_char(spoofing)))
    found = (_FORBIDDEN_LINES if line_breaks else _FORBIDDEN_ONE_LINE).search(value)
    if found:
        raise refuse(
            "control_chars",
            _("Contiene un carácter que no se puede usar ({char}): borralo y volvé a intentar.", char=_char(found)),
        )
    if value and not value.strip():
        raise refuse("blank", _("Tiene solo espacios: escribí el texto o no envíes el campo."))
    return value


def xml_one_line(value: object) -> object:
    """`xml_text` for a one-line text: no tab or line break either."""
    return xml_text(value, line_breaks=False)


# Some character a stripped text keeps: models strip spaces before measuring, so a text of only spaces is empty.
# Python strips \x1c-\x1f and \x85 too, which the document's regex \s (ECMA-262) does not count as spaces.
NOT_BLANK = r"[^\s\x1c-\x1f\x85]"


class PrintedText(BaseModel):
    """The base of every request model whose texts are printed or signed in a CFE: each of its texts goes
    through `xml_text` before the field's own rules, and the OpenAPI document says so with `text_pattern` on
    each text property (so the schema is as strict as the server). `text_one_line` for models of one-line
    texts (the company's settings and branches)."""

    text_one_line: ClassVar[bool] = False

    @field_validator("*", mode="before")
    @classmethod
    def _printable_text(cls, value: object) -> object:
        return xml_text(value, line_breaks=not cls.text_one_line)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        pattern = text_pattern(line_breaks=not cls.text_one_line)
        strips = bool(cls.model_config.get("str_strip_whitespace"))
        for prop in handler.resolve_ref_schema(schema).get("properties", {}).values():
            branches = prop.get("anyOf", ())
            number = next((b for b in branches if b.get("type") == "number"), None)
            for candidate in (prop, *branches):
                if candidate.get("type") == "string" and not {"pattern", "format", "enum", "const"} & set(candidate):
                    # A decimal also taken as text ("12.50") is a number written out, within the number's bounds.
                    candidate["pattern"] = pattern if number is None else decimal_text_pattern(number)
                    if number is None and strips and candidate.get("minLength", 0) >= 2:
                        candidate["pattern"] = text_pattern(
                            line_breaks=not cls.text_one_line, stripped_length=candidate["minLength"]
                        )
        return schema


def decimal_text_pattern(number: dict[str, Any]) -> str:
    """The pattern of a decimal written as text, as strict as the JSON schema's `number` beside it can say: no sign
    when it may not be negative, a digit other than 0 when it must be more than 0, and no more integer digits than
    its maximum has (999.999 and an exclusive 100: 3 and 2; 10^15: 15). Other bounds (a maximum of 1,234) the
    text cannot state; the answer's codes say them."""
    low = number.get("minimum", number.get("exclusiveMinimum"))
    high = number.get("maximum", number.get("exclusiveMaximum"))
    tail = r"\d*"
    if high is not None and high >= 1:
        whole = int(high)
        digits = len(str(whole)) - (1 if str(whole).rstrip("0") == "1" else 0)  # 10^k itself: k digits
        tail = rf"\d{{0,{digits - 1}}}"
    sign = "" if low is not None and low >= 0 else "-?"
    if number.get("exclusiveMinimum") == 0:
        return rf"^(?:0*[1-9]{tail}(?:\.\d+)?|0*\.\d*[1-9]\d*)$"
    return rf"^{sign}(?:(?:0*[1-9]{tail}|0+)(?:\.\d+)?|\.\d+)$"
