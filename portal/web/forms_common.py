"""What every portal form shares: its base class (PortalForm), the one number field (numbers read the
Uruguayan way, portal.web.numbers), the one day field (dd/mm/aaaa whatever the browser's language) and the
one way the service's field errors land on a form.

Every form keeps what the user typed: a number field shows its text again, never a reformatted value, and
an error the service sends back is shown next to the field it is about, or at the top of the form when it
is about none of them. No message is dropped.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal

from babel.dates import parse_date
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import FieldList, FormField, HiddenField, StringField
from wtforms.validators import DataRequired, Regexp, StopValidation
from wtforms.widgets import TextInput

from portal.client.errors import CfeError
from portal.web import html_params
from portal.web.i18n import day, decimal_mark
from portal.web.numbers import AmbiguousNumber, form_text, parse_decimal

html_params.install()  # every form's attributes written the same, faster (portal/web/html_params.py)

AMBIGUOUS = _l("¿Mil o uno con decimales? Escribí 1500 o 1,5.")
NOT_A_NUMBER = _l("Tiene que ser un número, como 1.500,50.")
NOT_WHOLE = _l("Tiene que ser un número entero, como 1500.")
NOT_A_DAY = _l("Escribí la fecha como día/mes/año, por ejemplo 24/11/2026.")
NO_SUCH_DAY = _l("Esa fecha no existe en el calendario.")
# A receipt line's field in an error summary, as its own label reads (PortalForm.ROW_LABEL of the issuing forms).
LINE_FIELD = _l("%(field)s, línea %(n)s")


def idempotency_key_field() -> HiddenField:
    """The key of a form whose second click (or reload) must give the first one's result, made when the page is
    shown (32 hex digits). One changed by hand is refused here, with a way forward: the service would refuse it
    with a 400 the page could only show as its own failure."""
    return HiddenField(
        default=lambda: uuid.uuid4().hex,
        validators=[
            DataRequired(),
            Regexp(r"^[0-9a-f]{32}$", message=_l("Volvé a abrir la página y enviá el formulario de nuevo.")),
        ],
    )


class PortalForm(FlaskForm):
    """The base of every portal form. wtforms' own messages ("Not a valid choice.") come from wtforms'
    catalog in the request's language, loaded once per process and language: wtforms keeps the catalog per
    `locales` (`Meta.cache_translations`, on by default). flask-wtf's own i18n (off: WTF_I18N_ENABLED in
    create_app) read the catalog from disk again on every request that built a form."""

    class Meta:
        @property
        def locales(self) -> list[str] | bool:
            locale = get_locale()  # None outside a request: wtforms' English, as flask-wtf did
            return [str(locale)] if locale else False

    # How a field of a list's row is named in the error summary ("Descripción, línea 2"); None: its own label.
    ROW_LABEL: str | None = None

    def validate(self, extra_validators=None) -> bool:
        """wtforms' validation; a hidden field's errors (a key the page made, changed by hand) go to the form's
        own errors, which the error summary shows: nobody can see a hidden field, nor its error beside it."""
        valid = super().validate(extra_validators)
        for field in self:
            if field.errors and field.name != "csrf_token" and getattr(field.widget, "input_type", None) == "hidden":
                said = [str(error) for error in field.errors]
                self.form_errors = [*self.form_errors, *said]  # type: ignore[has-type]  # wtforms sets it untyped
        return valid

    def error_links(self) -> list[tuple[str, str, str]]:
        """Each field marked invalid, in the form's order, as (id, label, first error): every error summary links
        to them (the form_errors macro), so a keyboard or screen reader user reaches the field from the summary
        that took the focus instead of walking the whole form to find which was marked."""
        links = []
        for field in self:
            if isinstance(field, FieldList):
                for n, entry in enumerate(field.entries, 1):
                    for sub in entry.form if isinstance(entry, FormField) else (entry,):
                        if sub.errors and getattr(sub.widget, "input_type", None) != "hidden":
                            label = sub.label.text
                            if self.ROW_LABEL:
                                label = self.ROW_LABEL % {"field": label, "n": n}
                            links.append((sub.id, str(label), str(sub.errors[0])))
            elif field.errors and getattr(field.widget, "input_type", None) != "hidden":
                links.append((field.id, str(field.label.text), str(field.errors[0])))
        return links


class TypedTextField(StringField):
    """A text box read into `.data` by `_read` (a ValueError's text is the error shown); the text typed, not
    a reformatted value, is what the form shows again."""

    widget = TextInput()

    def __init__(self, label=None, validators=None, **kwargs):
        super().__init__(label, validators, **kwargs)
        self.text = ""

    def process_formdata(self, valuelist):
        if not valuelist:
            return
        self.text = valuelist[0].strip()
        self.data = None
        self.data = self._read(self.text)

    def _read(self, text: str):
        raise NotImplementedError

    def pre_validate(self, form):
        if self.process_errors:  # the text could not be read: that is the one message, not also "required"
            raise StopValidation()

    def _value(self):
        return self.text


class NumberField(TypedTextField):
    """A number a person types, read in the reader's language (portal.web.numbers): in Spanish "1.500,50" and
    "1500.50" are both 1500.50 and "1.500" is asked about (one thousand five hundred, or one and a half?) instead of
    guessed; in English "1,500.50" is 1500.50 and "1,500" is the one asked about. `.data` is a Decimal (an int with
    `whole=True`) or None when empty; the text typed is what the form shows again.

    A text box, never <input type=number>: the browser's number input reads "1.500,50" as 1,50 before the
    server sees it. inputmode still brings up the numeric keyboard on a phone.
    """

    def __init__(self, label=None, validators=None, *, whole: bool = False, **kwargs):
        super().__init__(label, validators, **kwargs)
        self.whole = whole

    def __call__(self, **kwargs):
        kwargs.setdefault("inputmode", "numeric" if self.whole else "decimal")
        kwargs.setdefault("autocomplete", "off")
        kwargs["data_number"] = True  # how tests find every number field of a page (tests/browser/test_numbers.py)
        return super().__call__(**kwargs)

    def process_data(self, value):
        """A default, or the form's earlier `data`: a number (shown as the form reads it back in the reader's
        language: numbers.form_text), or the text typed before (kept as typed)."""
        if isinstance(value, Decimal):
            self.text = form_text(value, decimal_mark())
        else:
            self.text = "" if value is None else str(value)
        self.data = None
        if isinstance(value, (Decimal, int)) and not isinstance(value, bool):
            self.data = value
        elif self.text:
            self.data = self._read(self.text)

    def _read(self, text: str) -> Decimal | int | None:
        try:
            value = parse_decimal(text, decimal_mark())
        except AmbiguousNumber:
            raise ValueError(str(AMBIGUOUS)) from None
        except ValueError:
            raise ValueError(str(NOT_WHOLE if self.whole else NOT_A_NUMBER)) from None
        if value is not None and self.whole:
            if value != value.to_integral_value():
                raise ValueError(str(NOT_WHOLE))
            return int(value)
        return value


def form_day(value: date) -> str:
    """A day as a day field shows it: 04/03/2026 (as every page writes a day)."""
    return day(value)


class DayField(TypedTextField):
    """A day a person types, read as Uruguayans write it: "24/11/2026", "24/11/26", "24-11-2026" and "24.11.2026"
    are all 24 November 2026; "2026-11-24" (ISO: a link, a pasted value) too. `.data` is a date or None when
    empty; the text typed is what the form shows again, and a day the form starts with shows as dd/mm/aaaa.

    A text box, not <input type=date>: that one shows the browser's own order (11/24/2026 in an English
    browser) while the portal and the printed receipt say 24/11/2026. Babel reads the numbers in es_UY's order;
    the shape is checked first because Babel ignores what follows the year ("24/11/2026x").
    """

    _SHAPE = re.compile(r"\d{1,2}[/.\- ]\d{1,2}[/.\- ](\d{2}|\d{4})|\d{4}-\d{1,2}-\d{1,2}")

    def __call__(self, **kwargs):
        kwargs.pop("type", None)
        # No inputmode=numeric: a phone's numeric keypad has no "/" (iOS's none at all).
        kwargs.setdefault("autocomplete", "off")
        kwargs.setdefault("maxlength", 10)
        kwargs.setdefault("placeholder", _l("dd/mm/aaaa"))
        kwargs["data_day"] = True  # how tests find every day field of a page
        return super().__call__(**kwargs)

    def process_data(self, value):
        """A default (a date, or a callable giving one), or the form's earlier data: a date or the text typed."""
        self.data = None
        if isinstance(value, date):
            self.data = value
            self.text = form_day(value)
        else:
            self.text = "" if value is None else str(value).strip()
            if self.text:
                self.data = self._read(self.text)

    def _read(self, text: str) -> date | None:
        if not text:
            return None
        if not self._SHAPE.fullmatch(text):
            raise ValueError(str(NOT_A_DAY))
        try:
            return parse_date(text, locale="es_UY")
        except ValueError:  # 31/02/2026, month 13
            raise ValueError(str(NO_SUCH_DAY)) from None


class NumberRequired:
    """The number must be there. 0 is a number (DataRequired would refuse it), and a form rebuilt from what
    was typed earlier has no raw input (InputRequired would refuse that)."""

    field_flags = {"required": True}

    def __init__(self, message):
        self.message = message

    def __call__(self, form, field):
        if field.errors:  # it could not be read: that is the message to show
            raise StopValidation()
        if field.data is None:
            raise StopValidation(self.message)


def typed_data(form) -> dict:
    """The form's `data` with every number as the user typed it: to keep in the session and fill the form
    again exactly as it was left (NumberField reads the text again)."""
    result = {}
    for name, field in form._fields.items():
        if isinstance(field, TypedTextField):
            result[name] = field.text
        elif isinstance(field, FieldList):
            result[name] = [typed_data(e.form) if isinstance(e, FormField) else e.data for e in field.entries]
        elif isinstance(field, FormField):
            result[name] = typed_data(field.form)
        else:
            result[name] = field.data
    return result


def apply_service_errors(
    form, exc: CfeError, names: Mapping[str, str] | None = None, *, rows: Sequence[int] | None = None
) -> list[str]:
    """Puts each of the service's field errors (`exc.fields`) next to the form field it is about; the ones
    about no field, or the error's own message when it names no field, go to `form.form_errors`, which the
    `form_errors` macro (templates/_macros.html) shows at the top of the form. Returns those.

    `names` maps the service's field paths to this form's fields, with `[]` standing for a list index:
    {"items[].precioUnitario": "lines-[]-precio_unitario"} puts items[2].precioUnitario on lines-2-...; a
    key ending in ".*" takes that path and everything under it ({"receptor.*": "documento"}). A path that is
    not mapped but is a field's own name lands there. "*" names the field for everything else, for a form
    that is about one thing (an upload: every refusal is about the file). `rows` translates the service's
    list positions into the form's rows when the body left some out (blank lines are not sent).
    """
    names = names or {}
    fields = _fields_by_name(form)
    problems = [(_form_name(p.field, names, rows), p.message) for p in exc.fields] or [(None, exc.message)]
    loose: list[str] = []
    for name, message in problems:
        target = fields.get(name or "") or fields.get(names.get("*", ""))
        if target is None:
            loose.append(message)
        elif message not in target.errors:
            target.errors = [*target.errors, message]
    form.form_errors = [*form.form_errors, *(m for m in loose if m not in form.form_errors)]
    return loose


_INDEX = re.compile(r"\[(\d+)\]")


def _form_name(path: str, names: Mapping[str, str], rows: Sequence[int] | None) -> str | None:
    indices = [int(index) for index in _INDEX.findall(path)]
    pattern = _INDEX.sub("[]", path)
    target = names.get(pattern)
    ancestor = pattern
    while target is None and ancestor:
        target = names.get(f"{ancestor}.*")
        ancestor = re.sub(r"(\.\w+|\[\])$", "", ancestor) if re.search(r"(\.\w+|\[\])$", ancestor) else ""
    if target is None:
        return path
    for position in range(target.count("[]")):
        index = indices[position] if position < len(indices) else 0
        if position == 0 and rows is not None:
            if index >= len(rows):
                return None
            index = rows[index]
        target = target.replace("[]", str(index), 1)
    return target


def _fields_by_name(form) -> dict:
    """Every field of the form by its name without the form's prefix: "tipo_cfe", "lines-2-precio_unitario"
    (a list's rows by position)."""
    found = {}
    for name, field in form._fields.items():
        if isinstance(field, FieldList):
            for position, entry in enumerate(field.entries):
                if isinstance(entry, FormField):
                    for sub_name, sub in _fields_by_name(entry.form).items():
                        found[f"{name}-{position}-{sub_name}"] = sub
                else:
                    found[f"{name}-{position}"] = entry
        elif isinstance(field, FormField):
            for sub_name, sub in _fields_by_name(field.form).items():
                found[f"{name}-{sub_name}"] = sub
        else:
            found[name] = field
    return found
