"""The templates' _() (portal/web/i18n.template_gettext, which keeps what a string without arguments gave)
answers exactly what Jinja's own newstyle gettext does: translated, autoescaped, %-formatted, in both languages."""

from __future__ import annotations

import pytest
from flask import Flask

from portal.web import i18n
from tests.support.i18n import asked_in

TEMPLATES = [
    "{{ _('Comprobantes') }}|{{ _('Comprobantes') }}",
    "{{ _('Anular %(what)s', what='<b>e-Ticket</b>') }}",
    "{{ _('100 %% seguro') }} {{ _('100 %% seguro') }}",
    "{{ gettext('Salir') }}{{ _('a <b> & c') }}",
    "{{ _('Total a pagar') ~ '<i>' }}",
    "{% for n in range(3) %}{{ _('Fecha') }}{% endfor %}",
]


@pytest.fixture(scope="module")
def app() -> Flask:
    app = Flask(__name__)
    app.secret_key = "test"  # noqa: S105 - not a secret
    i18n.init_app(app)
    return app


def _jinjas_own(app: Flask):
    """The same environment with Jinja's own newstyle gettext, over the same catalogs."""
    env = app.jinja_env.overlay()
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda s: i18n.request_translations().ugettext(s),
        ngettext=lambda s, p, n: i18n.request_translations().ungettext(s, p, n),
        newstyle=True,
    )
    return env


@pytest.mark.parametrize("language", ["es", "en"])
@pytest.mark.parametrize("autoescape", [True, False])
@pytest.mark.parametrize("source", TEMPLATES)
def test_the_same_text_as_jinjas_gettext(app: Flask, language: str, autoescape: bool, source: str) -> None:
    reference = _jinjas_own(app)
    wrapped = "{% autoescape " + str(autoescape).lower() + " %}" + source + "{% endautoescape %}"
    with asked_in(app, language):
        ours = app.jinja_env.from_string(wrapped).render()
        theirs = reference.from_string(wrapped).render()
        again = app.jinja_env.from_string(wrapped).render()  # the second time from what was kept
    assert ours == theirs == again


def test_english_is_english_and_spanish_stays_spanish(app: Flask) -> None:
    template = app.jinja_env.from_string("{{ _('Salir') }}")
    with asked_in(app, "en"):
        english = template.render()
    with asked_in(app, "es"):
        spanish = template.render()
    assert (spanish, english) == ("Salir", "Sign out")


def test_python_strings_follow_each_requests_language(app: Flask) -> None:
    """flask_babel.gettext and the lazy strings find the catalog once per request (i18n._once_per_request):
    each request still gets its own language."""
    import flask_babel

    label = flask_babel.lazy_gettext("Salir")
    answers = []
    for language in ("en", "es", "en"):
        with asked_in(app, language):
            answers.append((flask_babel.gettext("Salir"), str(label), flask_babel.gettext("Anular %(what)s", what="x")))
    english, spanish = ("Sign out", "Sign out", "Cancel x"), ("Salir", "Salir", "Anular x")
    assert answers == [english, spanish, english]
