"""Templates compiled per catalog (portal/web/compiled_i18n.py) write what Jinja's own newstyle gettext writes at
render time, in both languages, autoescaped or not; each language gets its own compiled template; and a template
that binds `_` keeps its calls."""

from __future__ import annotations

import pytest
from flask import Flask
from jinja2 import DictLoader, Environment, UndefinedError, select_autoescape

from portal.web import compiled_i18n, i18n
from tests.support.i18n import asked_in

SOURCES = {
    "plain.html": (
        "{{ _('Comprobantes') }}|{{ _('Comprobantes') }}<a title=\"{{ _('Salir') }}\">{{ gettext('Salir') }}</a>"
    ),
    "arguments.html": "{{ _('Anular %(what)s', what='<b>e-Ticket</b>') }} {{ _('Anular %(what)s', what=name) }}",
    "percent.html": "{{ _('100 %% seguro') }} {{ _('a <b> & c') }}",
    "concatenated.html": "{{ _('Total a pagar') ~ '<i>' }}{{ x or _('ninguna') }}",
    "loop.html": "{% for n in range(3) %}{{ _('Fecha') }}{% endfor %}",
    "blocks.html": "{% block a %}{{ _('Datos') }}{% endblock %}{% if x %}{{ _('Receptor') }}{% endif %}",
    "trans.html": "{% trans %}Salir{% endtrans %} {% trans what=name %}Anular {{ what }}{% endtrans %}",
    "autoescape.html": "{% autoescape false %}{{ _('a <b> & c') }}{% endautoescape %}{{ _('a <b> & c') }}",
    "text.txt": "{{ _('a <b> & c') }} {{ _('Anular %(what)s', what=name) }}",
    "macro.html": (
        "{% macro m() %}{% set _ = [].append(1) %}{{ _ }}{% endmacro %}"
        "{% macro n() %}{{ _('Salir') }}{% endmacro %}{{ m() }}{{ n() }}{{ _('Fecha') }}"
    ),
    "extends.html": "{% extends 'blocks.html' %}{% block a %}{{ _('Salir') }}|{{ super() }}{% endblock %}",
    "imports.html": "{% from 'macro.html' import n %}{{ n() }}{% include 'plain.html' %}",
}
CONTEXT = {"name": "<i>Nota</i>", "x": None}


@pytest.fixture(scope="module")
def app() -> Flask:
    app = Flask(__name__)
    app.jinja_environment = compiled_i18n.PortalEnvironment  # type: ignore[assignment]
    app.secret_key = "test"  # noqa: S105 - not a secret
    i18n.init_app(app)
    app.jinja_env.loader = DictLoader(SOURCES)
    return app


def _jinjas_own() -> Environment:
    """A plain Jinja environment with its own i18n extension, newstyle, over the request's catalog."""
    env = Environment(
        loader=DictLoader(SOURCES), autoescape=select_autoescape(["html"]), extensions=["jinja2.ext.i18n"]
    )
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s: i18n.request_translations().ugettext(s),
        ngettext=lambda s, p, n: i18n.request_translations().ungettext(s, p, n),
        newstyle=True,
    )
    return env


@pytest.mark.parametrize("language", ["es", "en", "es"])
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_same_text_as_jinjas_gettext(app: Flask, language: str, name: str) -> None:
    reference = _jinjas_own()
    with asked_in(app, language):
        ours = app.jinja_env.get_template(name).render(CONTEXT)
        theirs = reference.get_template(name).render(CONTEXT)
    assert ours == theirs


def _compiled_source(app: Flask, name: str, language: str) -> str:
    with asked_in(app, language):
        env = app.jinja_env
        token = compiled_i18n._COMPILING.set(env._compiling())  # type: ignore[attr-defined]
        try:
            return env.compile(SOURCES[name], name, raw=True)
        finally:
            compiled_i18n._COMPILING.reset(token)


def test_constant_calls_are_compiled_as_their_text(app: Flask) -> None:
    english, spanish = _compiled_source(app, "plain.html", "en"), _compiled_source(app, "plain.html", "es")
    assert "'_'" not in english and "'gettext'" not in english and "Sign out" in english and "Salir" not in english
    assert "Salir" in spanish and "Sign out" not in spanish
    assert "'_'" in app.jinja_env.compile(SOURCES["plain.html"], "plain.html", raw=True)  # from a string: calls


def test_a_macro_that_binds_the_name_keeps_its_calls(app: Flask) -> None:
    compiled = _compiled_source(app, "macro.html", "en")
    assert "Sign out" in compiled and "Date" in compiled  # n() and the template's own are folded
    assert compiled.count("'_'") >= 1  # m() keeps its own `_`


def test_each_language_its_own_template(app: Flask) -> None:
    answers = []
    for language in ("en", "es", "en", "es"):
        with asked_in(app, language):
            answers.append(app.jinja_env.get_template("plain.html").render())
    assert answers[0] == answers[2] != answers[1] == answers[3]
    assert "Sign out" in answers[0] and "Salir" in answers[1]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("{% set _ = {'Salir': 'bound'}.get %}{{ _('Salir') }}", "bound"),
        ("{% macro _(s) %}<{{ s }}>{% endmacro %}{{ _('Salir') }}", "<Salir>"),
        ("{% for _ in [{'Salir': 'looped'}.get] %}{{ _('Salir') }}{% endfor %}", "looped"),
        ("{% block b %}{% set _ = {'Salir': 'in a block'}.get %}{{ _('Salir') }}{% endblock %}", "in a block"),
        ("{% from 'macro.html' import n as _ %}{{ _() }}", "Sign out"),
    ],
)
def test_a_template_that_binds_the_name_keeps_its_calls(app: Flask, source: str, expected: str) -> None:
    app.jinja_env.loader.mapping["binds.html"] = source  # type: ignore[union-attr]
    app.jinja_env.cache.clear()  # type: ignore[union-attr]
    with asked_in(app, "en"):
        assert app.jinja_env.get_template("binds.html").render() == expected


def test_a_text_formatting_refuses_fails_at_render_as_before(app: Flask) -> None:
    app.jinja_env.loader.mapping["broken.html"] = "{{ _('50% off') }}"  # type: ignore[union-attr]
    with asked_in(app, "en"), pytest.raises(TypeError):
        app.jinja_env.get_template("broken.html").render()
    app.jinja_env.loader.mapping["undefined.html"] = "{{ _('Anular %(what)s', what=missing.x) }}"  # type: ignore[union-attr]
    with asked_in(app, "en"), pytest.raises(UndefinedError):
        app.jinja_env.get_template("undefined.html").render()
