"""Every number a person types, in every form of the portal, goes through the one reading: "1.500,50" and
"1500.50" are 1500.50, "1.500" is asked about. Every day, the same way: "24/11/2026" whatever the browser's
language. The forms are found, not listed, so a new form or field is checked without anyone remembering to
add it here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from datetime import date
from decimal import Decimal

import pytest
from werkzeug.datastructures import MultiDict
from wtforms import DateField, DateTimeField, DecimalField, FieldList, FloatField, FormField, IntegerField
from wtforms.form import BaseForm

import portal.web
from portal.web.forms_common import AMBIGUOUS, NO_SUCH_DAY, NOT_A_DAY, NOT_WHOLE, DayField, NumberField
from tests.support.i18n import request_in

SAME = ("1.500,50", "1500.50")

# The portal's default language (portal/web/i18n.py): numbers are read as its readers write them.
pytestmark = pytest.mark.usefixtures("in_spanish")


def _form_classes() -> list[type]:
    found = {}
    for module in pkgutil.walk_packages(portal.web.__path__, "portal.web."):
        if module.name.endswith(("forms", "forms_common")):
            for _name, cls in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
                if issubclass(cls, BaseForm) and cls.__module__ == module.name:
                    found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return [found[name] for name in sorted(found)]


def _form(cls, formdata=None):
    return cls(formdata=formdata) if formdata is not None else cls(formdata=None)


def _typed_fields(form, prefix="", kind=NumberField) -> dict[str, object]:
    """name as posted -> field of `kind`, through lists of sub-forms (one row is enough: every row is the same)."""
    found = {}
    for name, field in form._fields.items():
        if isinstance(field, FieldList) and field.entries and isinstance(field.entries[0], FormField):
            found |= _typed_fields(field.entries[0].form, f"{prefix}{name}-0-", kind)
        elif isinstance(field, FormField):
            found |= _typed_fields(field.form, f"{prefix}{name}-", kind)
        elif isinstance(field, kind):
            found[f"{prefix}{name}"] = field
    return found


def _all_fields(form):
    for field in form:
        if isinstance(field, FieldList):
            for entry in field.entries:
                yield from _all_fields(entry.form) if isinstance(entry, FormField) else [entry]
        elif isinstance(field, FormField):
            yield from _all_fields(field.form)
        else:
            yield field


def _every_form_field(kind: type) -> list[tuple[type, str]]:
    """(form class, name as posted) of every field of `kind` in every portal form."""
    with request_in():
        return [(cls, name) for cls in _form_classes() for name in sorted(_typed_fields(_form(cls), kind=kind))]


EVERY_NUMBER = _every_form_field(NumberField)
EVERY_DAY = _every_form_field(DayField)


def _ids(fields: list[tuple[type, str]]) -> list[str]:
    return [f"{cls.__module__.split('.')[-2]}.{cls.__name__}.{name}" for cls, name in fields]


def test_the_forms_are_found():
    names = {f"{cls.__name__}.{name}" for cls, name in EVERY_NUMBER}
    assert {
        "ReceiptForm.lines-0-precio_unitario",
        "ReceiptForm.tpo_cambio",
        "ReceiptFilterForm.monto_desde",
        "SmartForm.lineas-0-precio",
        "CreateKeyForm.limite",
        "RateLimitForm.ventana",
        "BranchForm.codigo",
        "VoidForm.cantidad",
        "OperatorContextForm.idEmpresa",
    } <= names
    assert len(names) >= 20


@pytest.mark.parametrize("cls", _form_classes(), ids=lambda cls: cls.__name__)
def test_no_form_reads_a_number_any_other_way(cls):
    """No WTForms number field (they read "1.500,50" as nothing), and no browser number input (it reads it
    as 1,50 before the server sees it)."""
    for field in _all_fields(_form(cls)):
        assert not isinstance(field, (IntegerField, DecimalField, FloatField)), field.name
        assert 'type="number"' not in str(field()), field.name
        # nor a day: <input type=date> shows the browser's order (11/24/2026 in an English browser)
        assert not isinstance(field, (DateField, DateTimeField)), field.name
        assert 'type="date' not in str(field()), field.name


@pytest.mark.parametrize(("cls", "name"), EVERY_NUMBER, ids=_ids(EVERY_NUMBER))
@pytest.mark.parametrize("typed", [*SAME, "1.500"])
def test_every_number_field_reads_the_uruguayan_way(cls, name, typed):
    field = _typed_fields(_form(cls, MultiDict({name: typed})))[name]
    assert field._value() == typed  # what was typed is what the form shows again
    if typed == "1.500":
        assert field.data is None and field.process_errors == [str(AMBIGUOUS)]
    elif field.whole:  # read as 1500.50 like everywhere, and refused for not being whole
        assert field.data is None and field.process_errors == [str(NOT_WHOLE)]
    else:
        assert field.data == Decimal("1500.50") and field.process_errors == []


@pytest.mark.parametrize(("cls", "name"), EVERY_NUMBER, ids=_ids(EVERY_NUMBER))
@pytest.mark.parametrize("typed", ["1,500.50", "1500.50", "1,500", "1.500"])
def test_in_english_every_number_field_reads_the_english_way_and_asks_about_a_comma_thousand(cls, name, typed):
    """An English reader's "1,500" was read as one and a half (a lone comma was always a decimal comma): a price
    a thousand times too low, silently. In English the comma groups thousands, "1.500" is one and a half, and
    "1,500" alone is asked about, as "1.500" is in Spanish."""
    with request_in("en"):
        field = _typed_fields(_form(cls, MultiDict({name: typed})))[name]
        assert field._value() == typed
        if typed == "1,500":
            assert field.data is None and field.process_errors == [str(AMBIGUOUS)]
        elif typed == "1.500":
            if field.whole:
                assert field.data is None and field.process_errors == [str(NOT_WHOLE)]
            else:
                assert field.data == Decimal("1.5") and field.process_errors == []
        elif field.whole:
            assert field.data is None and field.process_errors == [str(NOT_WHOLE)]
        else:
            assert field.data == Decimal("1500.50") and field.process_errors == []


def test_the_day_fields_are_found():
    names = {f"{cls.__name__}.{name}" for cls, name in EVERY_DAY}
    assert {
        "ReceiptForm.fch_emis",
        "ReceiptForm.fch_venc",
        "ReceiptForm.ref_fecha",
        "ReceiptFilterForm.desde",
        "RequestSearchForm.hasta",
        "ReportForm.fecha",
        "SettingsForm.fecha_emisor",
    } <= names


@pytest.mark.parametrize(("cls", "name"), EVERY_DAY, ids=_ids(EVERY_DAY))
@pytest.mark.parametrize(
    ("typed", "day", "error"),
    [
        ("24/11/2026", date(2026, 11, 24), None),
        ("4/3/26", date(2026, 3, 4), None),  # 4 March: day first, as in Uruguay
        ("24-11-2026", date(2026, 11, 24), None),
        ("24.11.2026", date(2026, 11, 24), None),
        ("2026-11-24", date(2026, 11, 24), None),  # ISO: links, pasted values
        ("31/02/2026", None, NO_SUCH_DAY),
        ("24/11/2026x", None, NOT_A_DAY),
        ("mañana", None, NOT_A_DAY),
    ],
)
def test_every_day_field_reads_the_uruguayan_way(cls, name, typed, day, error):
    field = _typed_fields(_form(cls, MultiDict({name: typed})), kind=DayField)[name]
    assert field._value() == typed  # what was typed is what the form shows again
    assert field.data == day
    assert field.process_errors == ([str(error)] if error else [])
    html = str(field())
    assert "dd/mm/aaaa" in html and "inputmode" not in html  # a numeric keypad has no "/"


def test_a_day_the_form_starts_with_shows_day_first():
    from portal.web.comprobantes.forms import ReceiptForm

    form = ReceiptForm(formdata=None, data={"fch_emis": date(2026, 3, 4)})
    assert form.fch_emis._value() == "04/03/2026" and form.fch_emis.data == date(2026, 3, 4)


def test_a_day_that_cannot_be_read_gets_one_message_not_also_required():
    from portal.web.envios.forms import ReportForm

    form = ReportForm(formdata=MultiDict({"fecha": "mañana"}), meta={"csrf": False})
    assert not form.validate()
    assert form.fecha.errors == [str(NOT_A_DAY)]
    empty = ReportForm(formdata=MultiDict({"fecha": ""}), meta={"csrf": False})
    assert not empty.validate() and empty.fecha.errors == ["Indicá el día."]
