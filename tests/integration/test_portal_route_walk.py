"""Every portal route, from the app's own url_map, asked by an anonymous visitor and (for the methods that change
things) without a CSRF token, also by a signed-in user: never a 500, and the security headers on every answer.

An anonymous POST to /dgi/contexto was a 500 with no security headers: the CSRF error page ran the dgi area's
context processor, which read `current_user.role` of an anonymous user."""

from __future__ import annotations

import importlib
import io
import pkgutil

import pytest
import wtforms
from werkzeug.routing import Rule
from wtforms.fields import FileField
from wtforms.fields.core import UnboundField

import portal.web
from tests.support.html import soup

_SAMPLE_VALUES = {"integer": 1, "float": 1.0, "uuid": "00000000-0000-0000-0000-000000000000"}
_HEADERS = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "Cache-Control")


def _path(rule: Rule) -> str:
    """The rule's URL with a plausible value for each of its parts (an id that is not there is fine: a 404)."""
    values = {}
    for name in rule.arguments:
        converter = rule._converters[name]
        kind = type(converter).__name__.lower()
        if kind.startswith("any"):  # an any() converter takes one of its choices
            values[name] = sorted(converter.items)[0]
            continue
        values[name] = next((v for k, v in _SAMPLE_VALUES.items() if kind.startswith(k)), "x")
    _, url = rule.build(values, append_unknown=False)
    return url


def _routes(portal_app) -> list[tuple[str, str]]:
    routes = []
    for rule in portal_app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            routes.append((method, _path(rule)))
    return routes


def _check(answer, method: str, path: str) -> None:
    assert answer.status_code < 500, f"{method} {path}: {answer.status_code}"
    missing = [name for name in _HEADERS if name not in answer.headers]
    assert not missing, f"{method} {path}: no {missing}"
    assert "'unsafe-inline'" not in answer.headers["Content-Security-Policy"].split("style-src")[0]


def test_the_walk_covers_the_routes_that_change_things(portal_app):
    methods = {method for method, _ in _routes(portal_app)}
    paths = {path for _, path in _routes(portal_app)}
    assert {"GET", "POST"} <= methods and "/dgi/contexto" in paths and len(paths) > 40


def test_every_route_anonymous_is_never_a_500_and_carries_the_security_headers(portal_app):
    client = portal_app.test_client()
    for method, path in _routes(portal_app):
        for hx in ({}, {"HX-Request": "true"}):
            answer = client.open(path, method=method, headers=hx, data={"x": "1"})
            _check(answer, method, path)
            if method != "GET":
                # No session, so no CSRF token could be right: refused before any view runs.
                assert answer.status_code in (400, 401, 404, 405), f"{method} {path}: {answer.status_code}"


@pytest.mark.parametrize("email", ["usuario@demo.uy", "soporte@demo.uy"])
def test_every_change_without_a_csrf_token_is_refused_with_a_page_never_a_500(signed_in, portal_app, email):
    client = signed_in(email)
    for method, path in _routes(portal_app):
        if method == "GET":
            continue
        answer = client.open(path, method=method, data={"x": "1"})
        _check(answer, method, path)
        assert answer.status_code in (400, 404, 405), f"{method} {path}: {answer.status_code}"


# The query names the portal's pages read (their filter forms' fields and the lists' cursor), each given a value
# that once reached a 500: a digit int() does not read, a NUL, an impossible date, a number past any column.
_QUERY_NAMES = (
    "numero receptor desde hasta tipo tipo_cfe moneda estado contabilizado monto_desde monto_hasta cursor proveedor "
    "q fecha periodo agrupar formato tipo_doc_recep doc_recep ref_tipo ref_nro cfc_nro cfc_serie mes anio serie nro "
    "sucursal limite rut codigo"
).split()
_HOSTILE_VALUES = ("²", "\x00", "2026-02-31", "9" * 40)


def test_every_page_with_hostile_query_values_is_never_a_500(signed_in, portal_app):
    """/clientes/ and /productos/ answered a cursor edited by hand with a 502, the received CFEs' CSV a filter it
    could not read with a 500."""
    client = signed_in("admin@demo.uy")
    failed = []
    for method, path in _routes(portal_app):
        if method != "GET" or path.startswith("/auth/"):
            continue
        for value in _HOSTILE_VALUES:
            with client.get(path, query_string=dict.fromkeys(_QUERY_NAMES, value)) as answer:
                if answer.status_code >= 500:
                    failed.append(f"{path} {value[:12]!r}: {answer.status_code}")
    assert not failed, failed


def _form_fields() -> dict[str, type]:
    """Every field of every portal form (each area's forms module imported) by name, with its class; the CSRF
    token's aside."""
    fields: dict[str, type] = {}
    for module in pkgutil.walk_packages(portal.web.__path__, "portal.web."):
        if module.name.rpartition(".")[2] != "forms":
            continue
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, type) and issubclass(value, wtforms.Form):
                fields |= {
                    name: field.field_class for name, field in vars(value).items() if isinstance(field, UnboundField)
                }
    fields.pop("csrf_token", None)
    return fields


def _form_field_names() -> list[str]:
    return sorted(_form_fields())


def test_every_form_post_with_hostile_values_is_never_a_500(signed_in, portal_app):
    """Every POST route, signed in with a valid CSRF token, every form field at once given a value that once reached
    a 500 or a 502 (a hidden key changed by hand, which the service refuses with a 400, was a 502)."""
    client = signed_in("admin@demo.uy")
    token = soup(client.get("/clientes/nuevo")).select_one("input[name=csrf_token]")["value"]
    names = _form_field_names()
    assert {"idempotency_key", "razon", "tipo_cfe"} <= set(names) and len(names) > 100
    failed = []
    for method, path in _routes(portal_app):
        if method != "POST" or path.startswith("/auth/"):
            continue
        for value in ("²", "\x00"):
            with client.post(path, data={**dict.fromkeys(names, value), "csrf_token": token}) as answer:
                if answer.status_code >= 500:
                    failed.append(f"{path} {value!r}: {answer.status_code}")
    assert not failed, failed


def test_every_form_post_with_hostile_files_is_never_a_500(signed_in, portal_app):
    """Every POST route with a file in every file field: a name with a NUL (echoed into the ACKSobre's NomArch, it
    was a 500 of the service), and a CSV whose numbers are superscripts."""
    client = signed_in("admin@demo.uy")
    token = soup(client.get("/clientes/nuevo")).select_one("input[name=csrf_token]")["value"]
    fields = _form_fields()
    files = [name for name, kind in fields.items() if issubclass(kind, FileField)]
    assert {"archivo", "archivos"} <= set(files)
    failed = []
    for method, path in _routes(portal_app):
        if method != "POST" or path.startswith("/auth/"):
            continue
        for file_name, content in (("sobre\x00.xml", b"<x/>"), ("lista.csv", "codigo;nombre;precio\n²;²;²\n".encode())):
            data: dict = {**dict.fromkeys(fields, "1"), "csrf_token": token}
            data |= {name: (io.BytesIO(content), file_name) for name in files}
            with client.post(path, data=data, content_type="multipart/form-data") as answer:
                if answer.status_code >= 500:
                    failed.append(f"{path} {file_name!r}: {answer.status_code}")
    assert not failed, failed
