"""The service's human messages in the language the client asks for (`Accept-Language`: es-UY by default,
English), from one gettext catalogue (`portal/service/translations`, extracted with pybabel from the `_()`
calls of the service, compiled by `make translations`). Codes are never translated.

A message is written in Spanish, the source language, with `_("... {name} ...", name=value)`: that is a
`Text`, a `str` that reads as the Spanish message wherever it goes (logs, tests, stored records) and remembers
its catalogue entry and values, so the one place that answers it (`errors.error_body`, a response that
carries messages) says it with `say()` in the request's language.

Four placeholders are written as the reader writes them, when the message is said rather than when it is made (a
message kept and read later by someone in the other language): `{n:,}` a count with its thousands grouped
(99.994 in Spanish, 99,994 in English), `{n:.1f}` a decimal with that many places (1,5 in Spanish, 1.5 in
English; its value kept as the number's text, "1.5"), `{tipo:cfe}` a CFE type's name
(`portal.domain.cfe_type_names`: "e-Factura de exportación", "Export e-Factura") and `{motivo:comercial}` a
commercial motive's words (`portal.domain.commercial_motives`: E24 is a difference of prices or discounts, in
either language). `cfe_type(code)` and `commercial_motive(code)` are such names as messages of their own.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, overload

from babel import Locale
from babel.numbers import NumberPattern, parse_pattern
from babel.support import NullTranslations, Translations
from flask import g, has_request_context, request

from portal.domain.cfe_type_names import type_name
from portal.domain.commercial_motives import MOTIVES

DEFAULT = "es"
LANGUAGES = ("es", "en")
DIRECTORY = Path(__file__).parent.parent / "translations"
# The Babel locale each language writes its numbers with: Spanish means Uruguayan Spanish (1.234,56).
LOCALES = {"es": "es_UY", "en": "en_US"}
_COUNT = parse_pattern("#,##0")


@cache
def number_locale(lang: str) -> Locale:
    """The Babel locale of `lang`'s numbers, parsed once per process (Babel parses a name again on every call)."""
    return Locale.parse(LOCALES.get(lang, LOCALES[DEFAULT]))


def count(value: int, lang: str) -> str:
    """A whole number with `lang`'s thousands separator: 1.234 in Spanish, 1,234 in English."""
    return _COUNT.apply(value, number_locale(lang))


@cache
def _fixed_pattern(places: int) -> NumberPattern:
    return parse_pattern("#,##0" + ("." + "0" * places if places else ""))


def fixed(value: Decimal | float | str, places: int, lang: str) -> str:
    """A decimal with `places` places written as `lang` writes it: 1,5 in Spanish, 1.5 in English."""
    return _fixed_pattern(places).apply(Decimal(str(value)), number_locale(lang))


_FIXED = re.compile(r"\.(\d)f")


class _Words(string.Formatter):
    """str.format, but `{n:,}` groups a count, `{n:.1f}` writes a decimal, `{tipo:cfe}` names a CFE type and
    `{motivo:comercial}` says a commercial motive in the language it is said in (a value kept as text, "99994",
    "1.5" or "181", reads as the number it was)."""

    def __init__(self, lang: str):
        super().__init__()
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec == ",":
            return count(int(value), self.lang)
        if format_spec == "cfe":
            return type_name(int(value), self.lang)
        if format_spec == "comercial":
            return MOTIVES[str(value)].words.said(self.lang)
        if places := _FIXED.fullmatch(format_spec):
            return fixed(value, int(places[1]), self.lang)
        return super().format_field(value, format_spec)


_FORMATTERS = {lang: _Words(lang) for lang in LANGUAGES}


def _formatted(template: str, params: dict[str, Any], lang: str) -> str:
    return _FORMATTERS.get(lang, _FORMATTERS[DEFAULT]).format(template, **params)


class Text(str):
    """A message in Spanish that remembers its catalogue entry (`template`) and values (`params`)."""

    template: str
    params: dict[str, Any]
    without_period: bool

    def __new__(cls, template: str, /, **params: Any) -> Text:
        text = super().__new__(cls, _formatted(template, params, DEFAULT) if params else template)
        text.template, text.params, text.without_period = template, params, False
        return text

    def stripped(self) -> Text:
        """The same message without its final period (to be set inside another sentence), in Spanish too: its
        `str` is what a message it is set in reads as."""
        text = str.__new__(Text, str(self).rstrip("."))
        text.template, text.params, text.without_period = self.template, self.params, True
        return text


def _(template: str, /, **params: Any) -> Text:
    """Mark a message for the catalogue; `{name}` placeholders take `params` (str.format)."""
    return Text(template, **params)


@lru_cache(maxsize=len(LANGUAGES))
def _catalogue(language: str) -> NullTranslations:
    if language == DEFAULT:
        return NullTranslations()
    return Translations.load(str(DIRECTORY), [language])


def language() -> str:
    """The language of this request's messages: the best of `Accept-Language` among ours, else Spanish."""
    if not has_request_context():
        return DEFAULT
    chosen = g.get("language")
    if chosen is None:
        chosen = request.accept_languages.best_match(LANGUAGES, default=DEFAULT)
        g.language = chosen
    return chosen


def say(message: str, lang: str | None = None) -> str:
    """`message` in `lang` (the request's by default). A `Text` is said from its template and values (values
    that are themselves `Text` are said too); a plain string is looked up as it is, and said as it is when the
    catalogue does not have it (a message from elsewhere, such as DGI's)."""
    lang = lang or language()
    catalogue = _catalogue(lang)
    if not isinstance(message, Text):
        return catalogue.gettext(message) if message else message
    params = {k: say(v, lang) if isinstance(v, Text) else v for k, v in message.params.items()}
    said = catalogue.gettext(message.template)
    try:
        said = _formatted(said, params, lang) if params else said
    except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder: the Spanish is right
        said = str(message)
    return said.rstrip(".") if message.without_period else said


def cfe_type(code: int) -> Text:
    """A CFE type's name as a value of a message ("para el tipo {tipo}", tipo=cfe_type(121)): "e-Factura de
    exportación" in Spanish, "Export e-Factura" in English, kept as its code when the message is stored."""
    return Text("{tipo:cfe}", tipo=code)


def commercial_motive(code: str) -> Text:
    """A commercial motive's words (E20-E60) as a message, said in the reader's language. Never DGI's glosa, which is
    what is signed and stays as DGI wrote it."""
    return Text("{motivo:comercial}", motivo=code)


def cfe_types_either(codes: Iterable[int]) -> Text:
    """CFE types as alternatives in a message ("solo {tipos}"): each named and the "o" between them said in the
    reader's language ("e-Factura o Nota de débito de e-Factura", "e-Factura or e-Factura debit note")."""
    names = [cfe_type(code) for code in sorted(codes)]
    joined = names[0]
    for name in names[1:]:
        joined = _("{uno} o {otro}", uno=joined, otro=name)
    return joined


def stored(message: str, key: str = "mensaje") -> dict[str, Any]:
    """A message as a JSON record keeps it under `key` (its Spanish, and its catalogue entry and values when it
    has them), so an answer given later says it in that request's language (`said`)."""
    if not isinstance(message, Text):
        return {key: str(message)}
    return {key: str(message), **_kept(message)}


def _kept(message: Text) -> dict[str, Any]:
    # A value that is itself a message ("vence {when}" with when = "mañana") is kept as one, to be said too.
    values = {k: _kept(v) if isinstance(v, Text) else str(v) for k, v in message.params.items()}
    # A message set inside another sentence without its period (`stripped`) is kept so, or it would be said
    # with its period in the middle of the other.
    return {"plantilla": message.template, "valores": values, **({"sin_punto": True} if message.without_period else {})}


def _rebuilt(record: dict[str, Any]) -> Text:
    values = {k: _rebuilt(v) if isinstance(v, dict) else v for k, v in record.get("valores", {}).items()}
    text = Text(record["plantilla"], **values)
    return text.stripped() if record.get("sin_punto") else text


def said(record: dict[str, Any], key: str = "mensaje") -> str:
    """The message a `stored` record keeps (under `key`), in the request's language."""
    if "plantilla" not in record:
        return say(record.get(key) or "")
    return say(_rebuilt(record))


@overload
def said_or(record: dict[str, Any] | None, plain: str) -> str: ...
@overload
def said_or(record: dict[str, Any] | None, plain: str | None) -> str | None: ...
def said_or(record: dict[str, Any] | None, plain: str | None) -> str | None:
    """A message kept both ways (`stored`'s record beside its Spanish sentence, as rows written before the record
    have only the sentence): the record said in the request's language, else the sentence as it was kept."""
    return said(record) if record else plain


def message_or(record: dict[str, Any] | None, plain: str | None) -> str | None:
    """As `said_or`, but the message itself (a `Text`, said later: set inside another message, or stored again)
    rather than its words in the request's language; the sentence as it was kept when there is no record."""
    return _rebuilt(record) if record and "plantilla" in record else plain


def vary(response):
    """Responses whose words depend on Accept-Language say so to caches."""
    response.vary.add("Accept-Language")
    return response
