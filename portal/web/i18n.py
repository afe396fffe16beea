"""Languages: Spanish (Uruguay) first, English on a switch; money and dates formatted per locale."""

from __future__ import annotations

import functools
import weakref
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.numbers import parse_pattern
from babel.support import NullTranslations
from flask import Flask, current_app, g, has_request_context, request, session
from flask_babel import Domain, get_locale, get_timezone, get_translations
from jinja2.runtime import Context
from jinja2.utils import pass_context
from markupsafe import Markup
from werkzeug.wrappers import Response as WerkzeugResponse

from portal import paths
from portal.domain.money import currency_sign
from portal.web.extensions import babel

# Flask's Response or werkzeug's (what redirect() answers): the cookie is set on either.
AnyResponse = TypeVar("AnyResponse", bound=WerkzeugResponse)

SUPPORTED_LOCALES = ("es", "en")
# The language chosen before signing in (or on any page) lives in its own cookie, not in the session: an
# anonymous visitor has no session, and the choice outlives signing in and out.
LANGUAGE_COOKIE = "lang"
_LANGUAGE_COOKIE_AGE = timedelta(days=365)
# Babel locale used for formatting: es means Uruguayan Spanish (1.234,56; dd/mm/aaaa).
_FORMAT_LOCALES = {"es": "es_UY", "en": "en_US"}


def select_locale() -> str:
    for chosen in (session.get("lang"), request.cookies.get(LANGUAGE_COOKIE)):
        if chosen in SUPPORTED_LOCALES:
            return chosen
    return request.accept_languages.best_match(SUPPORTED_LOCALES) or "es"


def remember_language(response: AnyResponse, lang: str) -> AnyResponse:
    """Keep the visitor's language for a year (HttpOnly: no script reads it; Lax: sent when coming back)."""
    response.set_cookie(
        LANGUAGE_COOKIE,
        lang,
        max_age=_LANGUAGE_COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=current_app.config["SECURE_COOKIES"],
    )
    return response


def _format_locale() -> Locale:
    return _babel_locale(str(get_locale() or "es"))


def decimal_mark() -> str:
    """The decimal mark of the reader's language ("," in Spanish, "." in English): how the forms write the numbers
    they propose and read the ones typed (portal.web.numbers)."""
    return str(_format_locale().number_symbols["latn"]["decimal"])


@functools.cache
def _babel_locale(language: str) -> Locale:
    # Parsed once per process: Babel parses a locale name again on every format_* call given a string.
    return Locale.parse(_FORMAT_LOCALES.get(language, "es_UY"))


# Currency signs as Uruguayans write them (and as the printed receipt does); other currencies by ISO code.
# Dates as on the printed receipt (dd/mm/aaaa) and 24-hour times, in both languages: the documents are
# Uruguayan, and one reading of 05/11 across the portal and the PDF matters more than US habits.
DATE_FORMAT = "dd/MM/yyyy"
MOMENT_FORMAT = "dd/MM/yyyy HH:mm"
# Amounts always with two decimals; the pattern parsed once (babel's format_decimal parses it on every call).
_AMOUNT = parse_pattern("#,##0.00")
# An exchange rate as the CFE carries it (TpoCambio, 3 decimals): 40,402 is not rounded to the 40,40 of an amount.
_RATE = parse_pattern("#,##0.00#")
# A rate as the BCU publishes it: three decimals always (as TpoCambio), more only when it has them (the UI's four).
_PUBLISHED_RATE = parse_pattern("#,##0.000###")
# A line's quantity (Cantidad, up to 3 decimals on a CFE) or a retention's rate: its decimals only when it has them.
_QUANTITY = parse_pattern("#,##0.######")


def money(value: Decimal | float | str | None, currency: str | None = None) -> str:
    """1.234,56 in Spanish, 1,234.56 in English; "$ 1.234,56" for pesos and "U$S 1.234,56" for dollars, the
    sign and the number joined by a no-break space so a narrow column never leaves the "$" alone on a line."""
    if value is None or value == "":
        return ""
    text = _AMOUNT.apply(Decimal(str(value)), _format_locale())
    return f"{currency_sign(currency)}\u00a0{text}" if currency else text


def exchange_rate(value: Decimal | float | str | None) -> str:
    """A receipt's exchange rate with its third decimal when it has one: 40,402 in Spanish, 40.402 in English."""
    if value is None or value == "":
        return ""
    return _RATE.apply(Decimal(str(value)), _format_locale())


def published_rate(value: Decimal | float | str | None) -> str:
    """A day's rate in a table of rates: 40,402 and 40,400 in Spanish (40.402 in English), the UI's 6,4512."""
    if value is None or value == "":
        return ""
    return _PUBLISHED_RATE.apply(Decimal(str(value)), _format_locale())


def quantity(value: Decimal | float | str | None) -> str:
    """A line's quantity, or any count, as the reader writes numbers: 1,5 and 1.500 in Spanish, 1.5 and 1,500 in
    English (a bare "1.5" reads as fifteen hundred beside Spanish prices like 33,33; a key's limit 1500, as 1.500)."""
    if value is None or value == "":
        return ""
    return _QUANTITY.apply(Decimal(str(value)), _format_locale())


def day(value: date | str | None) -> str:
    """A date as dd/mm/aaaa; a moment's the day it falls on in Montevideo (a certificate that expires at 01:30
    UTC on the 18th expires on the 17th in Uruguay)."""
    if not value:
        return ""
    if isinstance(value, str):
        value = date.fromisoformat(value[:10])
    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.astimezone(get_timezone()).date()
    return format_date(value, format=DATE_FORMAT, locale=_format_locale())


def moment(value: datetime | str | None) -> str:
    """A moment in Montevideo time, dd/mm/aaaa HH:MM (24 hours)."""
    if not value:
        return ""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return format_datetime(value, format=MOMENT_FORMAT, tzinfo=get_timezone(), locale=_format_locale())


def translation_directories() -> str:
    """The portal's catalog plus each area's own, so areas add strings without touching one file."""
    root = paths.PROJECT_ROOT / "portal" / "web"
    dirs = [root / "translations", *sorted(p for p in root.glob("*/translations") if p.is_dir())]
    return ";".join(str(d) for d in dirs)


def request_translations() -> NullTranslations:
    """The request's catalog, asked of flask-babel once per request. flask-babel keeps the merged catalogs
    once per process and language, but finding them (its domain, the request's locale, its cache) costs more
    than the lookup itself, and a page translates some hundred strings. The portal never changes language
    within a request (the switch redirects), so the first answer holds for the whole request."""
    translations = g.get("_portal_translations")
    if translations is None:
        translations = g._portal_translations = get_translations()
    return translations


def _once_per_request(domain: Domain) -> None:
    """The domain's catalog asked once per request for the Python side too (flask_babel.gettext and the
    lazy strings: labels, choices, totals' names), not found again on each of their forty or so calls."""
    if getattr(domain, "_portal_once_per_request", False):
        return
    find = domain.get_translations

    def get_translations() -> NullTranslations:
        if not has_request_context():
            return find()
        translations = g.get("_portal_translations")
        if translations is None:
            translations = g._portal_translations = find()
        return translations

    domain.get_translations = get_translations  # type: ignore[method-assign]
    domain._portal_once_per_request = True  # type: ignore[attr-defined]


# What a template's _("...") gave, per catalog: a page calls _() some sixty times with the same few hundred
# strings, and Jinja's own newstyle gettext makes a Markup and %-formats it (escaping every argument) on every
# call even when there are no arguments. Bounded: a _() of a variable must not grow it without end.
_TEMPLATE_STRINGS: weakref.WeakKeyDictionary[NullTranslations, dict[str, Markup]] = weakref.WeakKeyDictionary()
_TEMPLATE_STRINGS_MAX = 4096


@pass_context
def template_gettext(context: Context, string: str, /, **variables: Any) -> str:
    """The templates' _() and gettext, as Jinja's newstyle gettext does it (autoescaped, always %-formatted),
    the result of a string without arguments kept per catalog."""
    translations = request_translations()
    if variables or not context.eval_ctx.autoescape:
        text = translations.ugettext(string)
        # A catalog string is the portal's own text, trusted as Jinja's gettext trusts it; arguments are escaped.
        return (Markup(text) if context.eval_ctx.autoescape else text) % variables  # noqa: S704
    known = _TEMPLATE_STRINGS.get(translations)
    if known is None:
        known = _TEMPLATE_STRINGS.setdefault(translations, {})
    markup = known.get(string)
    if markup is None:
        markup = Markup(translations.ugettext(string)) % {}  # noqa: S704 - as above
        if len(known) < _TEMPLATE_STRINGS_MAX:
            known[string] = markup
    return markup


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_DEFAULT_LOCALE", "es")
    app.config.setdefault("BABEL_DEFAULT_TIMEZONE", "America/Montevideo")
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", translation_directories())
    babel.init_app(app, locale_selector=select_locale)
    with app.app_context():  # flask-babel makes its domain (once per process) from the app's settings
        _once_per_request(babel.domain_instance)
    # The templates' _() as flask-babel installs it (newstyle: autoescaped, %-formatted by Jinja), over the
    # request's catalog found once.
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]  # jinja2.ext.i18n adds it
        gettext=lambda s: request_translations().ugettext(s),
        ngettext=lambda s, p, n: request_translations().ungettext(s, p, n),
        pgettext=lambda c, s: request_translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: request_translations().unpgettext(c, s, p, n),
        newstyle=True,
    )
    # _() and gettext themselves (ngettext and the rest stay Jinja's): the same answers, most of them kept.
    app.jinja_env.globals.update(_=template_gettext, gettext=template_gettext)
    app.jinja_env.filters.update(
        money=money,
        exchange_rate=exchange_rate,
        published_rate=published_rate,
        quantity=quantity,
        day=day,
        moment=moment,
        currency_sign=currency_sign,
    )
    app.jinja_env.globals.update(current_locale=lambda: str(get_locale() or "es"))
