"""wtforms' html_params, the same text for less: every field, option and label a form renders goes through it.

wtforms writes each attribute with `Markup('{k}="{v}"').format(...)`, which runs markupsafe's escaping
string.Formatter (pure Python) once per attribute: a select of 20 options is 40 of them, and a form's fields were
most of a list page's rendering. `html_params` below builds the same string with an f-string over values escaped
the same way (tests/unit/test_html_params.py compares the two); `install()` puts it where wtforms looks it up.
"""

from __future__ import annotations

import functools
from typing import Any

from markupsafe import Markup, escape
from wtforms import widgets
from wtforms.fields import core as fields_core
from wtforms.widgets import core

wtforms_html_params = core.html_params
_QUOTE, _QUOT = Markup('"'), Markup("&quot;")


def html_params(**kwargs: Any) -> Markup:
    """`wtforms.widgets.core.html_params`: attributes sorted by name, `class_` as class, `data_`/`aria_` names
    with hyphens, True as a bare attribute, False left out, every name and value escaped."""
    params = []
    for key, value in sorted(kwargs.items()):
        name = _attribute_name(key)
        if value is True:
            params.append(name)
        elif value is not False:
            text = escape(value)
            # escape() writes a quote as &#34;: only what it trusts as HTML already (__html__) may still hold one.
            if hasattr(value, "__html__"):
                text = text.replace(_QUOTE, _QUOT)
            params.append(f'{name}="{text}"')
    return Markup(" ".join(params))  # noqa: S704 - every part escaped above, as wtforms' own join does


@functools.lru_cache(maxsize=1024)
def _attribute_name(key: str) -> str:
    """An attribute's name as wtforms writes it (clean_key, escaped): the names are the code's, a few dozen."""
    return str(escape(core.clean_key(key)))


def install() -> None:
    """Where wtforms finds html_params: its module (Select, TextArea, options), its widgets package (labels),
    and the two widget classes that keep it as a static method (every <input>, <button>)."""
    core.html_params = html_params
    widgets.html_params = html_params
    core.Input.html_params = staticmethod(html_params)
    core.Button.html_params = staticmethod(html_params)
    if getattr(fields_core, "widgets", None) is not widgets:  # pragma: no cover - labels use widgets.html_params
        raise RuntimeError("wtforms' Label no longer finds html_params in wtforms.widgets")
