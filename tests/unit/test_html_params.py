"""portal/web/html_params.py writes a form's attributes exactly as wtforms does, and is what wtforms uses."""

from __future__ import annotations

import pytest
from flask import Flask
from markupsafe import Markup
from wtforms import Form, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.widgets import core

from portal.web import forms_common  # noqa: F401 - installs it
from portal.web.html_params import html_params, wtforms_html_params
from tests.support.i18n import asked_in

CASES = [
    {},
    {"name": "q", "id": "q", "value": "a < b & \"c\" 'd'"},
    {"class_": "wide", "for_": "x", "data_number": True, "aria_describedby": "q-error q-hint", "readonly": False},
    {"value": Markup('<b title="x">ok</b>'), "required": True, "maxlength": 10, "placeholder": None},
    {"data_some_thing_": "1", "aria_invalid": "true", "hx_get": "/a?b=1&c=2", "value": 0},
    {"selected": True, "value": "UYU", "label": "Peso <uruguayo>"},
    {"title": Markup('a "quoted" <i>b</i>'), "data_x": 'plain "quoted"', "value": 1.5, "size": Markup("3")},
    {'we"ird<': "x", "class": "a&b", "for": None, "aria_label": Markup('&amp; "')},
]


@pytest.mark.parametrize("attributes", CASES)
def test_the_same_text_as_wtforms(attributes: dict) -> None:
    ours, theirs = html_params(**attributes), wtforms_html_params(**attributes)
    assert ours == theirs
    assert isinstance(ours, Markup)


def test_lazy_strings_are_written_in_the_requests_language() -> None:
    from flask_babel import lazy_gettext

    from portal.web import i18n

    app = Flask(__name__)
    app.secret_key = "test"  # noqa: S105 - not a secret
    i18n.init_app(app)
    with asked_in(app, "en"):
        label = lazy_gettext("Salir")
        assert html_params(title=label) == wtforms_html_params(title=label) == 'title="Sign out"'


def test_wtforms_renders_its_fields_with_it() -> None:
    class Sample(Form):
        word = StringField("Palabra")
        note = TextAreaField("Nota")
        kind = SelectField("Tipo", choices=[SelectChoice("a", "Uno <1>"), SelectChoice("b", 'Dos "2"')])

    form = Sample(data={"word": 'x "y"', "kind": "b"})
    rendered = "".join(f"{f(data_x=True, class_='c')}{f.label}" for f in form)
    assert core.html_params is html_params
    core_params, core.html_params = core.html_params, wtforms_html_params
    core.Input.html_params = core.Button.html_params = staticmethod(wtforms_html_params)
    try:
        expected = "".join(f"{f(data_x=True, class_='c')}{f.label}" for f in form)
    finally:
        core.html_params = core_params
        core.Input.html_params = core.Button.html_params = staticmethod(core_params)
    assert rendered == expected
    assert 'value="x &#34;y&#34;"' in rendered and "selected" in rendered
