"""The portal's API keys page through the Flask test client, against a live service: roles, the secret
shown once and never cached or logged, htmx fragments, 422s that keep the input, revocation."""

from __future__ import annotations

import logging
import re

import pytest

from tests.support.html import csrf
from tests.support.html import soup as _soup

HTMX = {"HX-Request": "true"}


def _csrf(client) -> str:
    return csrf(client, "/apikeys/")


def _create(client, nombre="ERP", limite="600", ventana="60", headers=None):
    data = {"nombre": nombre, "limite": limite, "ventana": ventana, "csrf_token": _csrf(client)}
    return client.post("/apikeys/", data=data, headers=headers or {})


def _only_key(live_service, email="admin@demo.uy", company_id=1):
    from portal.client import CfeClient
    from tests.conftest import mint_token

    api = CfeClient(live_service.url).as_user(mint_token(live_service.app, email), company_id=company_id)
    (key,) = api.list_api_keys().items
    return key


@pytest.fixture
def admin(signed_in):
    return signed_in("admin@demo.uy")


def test_admin_sees_the_create_dialog_and_an_empty_list(admin):
    page = admin.get("/apikeys/")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    soup = _soup(page)
    opener = soup.find("button", attrs={"data-open-dialog": "create-key-dialog"})
    assert opener is not None and soup.find("dialog", id="create-key-dialog") is not None
    assert not soup.find("dialog", id="create-key-dialog").has_attr("open")
    assert "todavía no tiene claves" in soup.find(id="apikeys-list").get_text()


def test_creating_with_htmx_shows_the_secret_once_closes_the_dialog_and_updates_the_list(admin, live_service, caplog):
    caplog.set_level(logging.DEBUG)
    answer = _create(admin, "ERP central", "120", "60", headers=HTMX)
    assert answer.status_code == 201
    assert answer.headers["Cache-Control"] == "no-store" and "Location" not in answer.headers
    assert "HX-Request" in answer.headers["Vary"]
    soup = _soup(answer)
    secret = soup.find("input", id="new-key-secret")["value"]
    assert re.fullmatch(r"cfe_live_[A-Za-z0-9_-]{43}", secret)
    assert answer.get_data(as_text=True).count(secret) == 1
    assert soup.find("button", attrs={"data-copy": "new-key-secret"}) is not None
    assert "no se va a mostrar nunca más" in soup.find(class_="secret-warning").get_text()

    # The dialog's form comes back empty and marked to close; the secret and the list arrive out of band.
    assert soup.find(id="create-key").has_attr("data-close-dialog-on-load")
    assert soup.find(id="create-key").find("input", {"name": "nombre"}).get("value") in (None, "")
    assert soup.find(id="new-key")["hx-swap-oob"] == "true"
    listing = soup.find(id="apikeys-list")
    assert listing["hx-swap-oob"] == "true" and "ERP central" in listing.get_text()
    assert listing.find(attrs={"data-testid": "apikey-prefix"}).get_text().startswith(secret[:16])
    assert "<html" not in answer.get_data(as_text=True)

    later = admin.get("/apikeys/").get_data(as_text=True)
    assert secret not in later and secret[:16] in later
    assert all(secret[9:] not in record.getMessage() for record in caplog.records)
    assert _only_key(live_service).name == "ERP central"


def test_creating_without_javascript_answers_the_page_with_the_secret_not_a_redirect(admin):
    answer = _create(admin, "Caja 1")
    assert answer.status_code == 201 and answer.headers["Cache-Control"] == "no-store"
    soup = _soup(answer)
    assert soup.find("html") is not None
    assert soup.find("input", id="new-key-secret")["value"].startswith("cfe_live_")


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"nombre": ""}, "nombre", "Poné un nombre"),
        ({"nombre": "x" * 81}, "nombre", "Máximo 80"),
        ({"limite": "0"}, "limite", "Entre 1 y 100000"),
        ({"ventana": "86401"}, "ventana", "Entre 1 y 86400 segundos"),
        ({"limite": "muchas"}, "limite", "número entero"),
    ],
)
def test_invalid_create_is_422_with_the_error_next_to_the_field_and_the_input_kept(
    admin, live_service, fields, field, message
):
    values = {"nombre": "ERP", "limite": "600", "ventana": "60", **fields}
    answer = _create(admin, headers=HTMX, **values)
    assert answer.status_code == 422
    form = _soup(answer).find(id="create-key")
    error = form.find(id=f"{field}-error")
    assert error is not None and message in error.get_text()
    assert form.find("input", {"name": field})["aria-invalid"] == "true"
    for name, value in values.items():
        assert form.find("input", {"name": name}).get("value", "") == value
    assert "new-key-secret" not in answer.get_data(as_text=True)

    plain = _create(admin, **values)
    assert plain.status_code == 422
    assert _soup(plain).find("dialog", id="create-key-dialog").has_attr("open")


def _row_form(client, key_id):
    row = _soup(client.get("/apikeys/")).find(id=f"key-{key_id}")
    return row, {i["name"]: i.get("value", "") for i in row.select("form.rate-limit-form input")}


def test_the_limit_changes_in_place_and_bad_values_come_back_next_to_the_field(admin, live_service):
    _create(admin, "ERP")
    key = _only_key(live_service)
    _, data = _row_form(admin, key.id)
    assert data[f"{key.id}-limite"] == "600" and data[f"{key.id}-ventana"] == "60"

    bad = admin.post(f"/apikeys/{key.id}/rate-limit", data={**data, f"{key.id}-limite": "0"}, headers=HTMX)
    assert bad.status_code == 422
    row = _soup(bad).find("tbody")
    assert row["id"] == f"key-{key.id}"
    assert "Entre 1 y 100000" in row.find(id=f"{key.id}-limite-error").get_text()
    assert row.find("input", id=f"{key.id}-limite")["value"] == "0"
    assert _only_key(live_service).rate_limit.limit == 600

    good = admin.post(f"/apikeys/{key.id}/rate-limit", data={**data, f"{key.id}-limite": "3"}, headers=HTMX)
    assert good.status_code == 200
    soup = _soup(good)
    assert soup.find("tbody", id=f"key-{key.id}").find("input", id=f"{key.id}-limite")["value"] == "3"
    assert "3 solicitudes cada 60 segundos" in soup.find(id="alerts").get_text()  # the flash, out of band
    history = soup.find(attrs={"data-testid": "apikey-history"}).get_text(" ", strip=True)
    assert "de 600 cada 60 s a 3 cada 60 s" in history
    assert _only_key(live_service).rate_limit.limit == 3

    plain = admin.post(f"/apikeys/{key.id}/rate-limit", data={**data, f"{key.id}-limite": "5"})
    assert plain.status_code == 303 and plain.headers["Location"] == "/apikeys/"


def test_the_row_shows_the_current_windows_usage(admin, live_service):
    from portal.service.apikeys import limiting
    from portal.service.platform import ratelimit

    _create(admin, "ERP", "10", "60")
    key = _only_key(live_service)
    with live_service.app.app_context():
        for _ in range(4):  # counted in the key's own window, as requests made with it are (limiting.consume)
            ratelimit.limiter().hit(limiting._item(10, 60), key.id)
    usage = _soup(admin.get("/apikeys/")).find(attrs={"data-testid": "apikey-usage"}).get_text(" ", strip=True)
    assert "Ventana actual: 4 de 10 usadas" in usage


def test_a_limit_in_the_thousands_reads_as_the_reader_writes_numbers(admin, live_service):
    """A key of 1500 requests every 3600 s read "1500 cada 3600 s" and "0 de 1500 usadas" in both languages."""
    _create(admin, "ERP", "1500", "3600")
    soup = _soup(admin.get("/apikeys/"))
    assert "0 de 1.500 usadas" in soup.find(attrs={"data-testid": "apikey-usage"}).get_text(" ", strip=True)
    assert "creó la clave con 1.500 cada 3.600 s" in " ".join(soup.find(id="apikeys-list").get_text(" ").split())
    admin.post("/idioma", data={"lang": "en", "next": "/apikeys/", "csrf_token": _csrf(admin)})
    soup = _soup(admin.get("/apikeys/"))
    assert "0 of 1,500 used" in soup.find(attrs={"data-testid": "apikey-usage"}).get_text(" ", strip=True)
    assert "1,500 every 3,600 s" in " ".join(soup.find(id="apikeys-list").get_text(" ").split())


def test_revoking_swaps_the_row_and_the_key_stays_listed_as_revoked(admin, live_service):
    _create(admin, "ERP")
    key = _only_key(live_service)
    # The confirmation is the page's own dialog (not the browser's bare confirm()), and the form is inside it.
    dialog = _soup(admin.get("/apikeys/")).find("dialog", id=f"revoke-{key.id}")
    assert "No se puede deshacer" in dialog.get_text() and dialog.find("form")["hx-post"].endswith("/revocar")
    answer = admin.post(f"/apikeys/{key.id}/revocar", data={"csrf_token": _csrf(admin)}, headers=HTMX)
    assert answer.status_code == 200
    row = _soup(answer).find("tbody", id=f"key-{key.id}")
    assert "Revocada" in row.get_text() and row.find("form") is None
    assert _only_key(live_service).status == "revocada"
    again = admin.post(f"/apikeys/{key.id}/revocar", data={"csrf_token": _csrf(admin)})
    assert again.status_code == 303


def test_an_unknown_key_is_the_404_page(admin):
    answer = admin.post("/apikeys/ak_nope/revocar", data={"csrf_token": _csrf(admin)})
    assert answer.status_code == 404


def test_posts_need_csrf(admin):
    assert admin.post("/apikeys/", data={"nombre": "x", "limite": "1", "ventana": "1"}).status_code == 400


def test_soporte_reads_the_list_without_any_control_and_cannot_post(signed_in, live_service):
    admin = signed_in("admin@demo.uy")
    _create(admin, "ERP")
    key = _only_key(live_service)
    soporte = signed_in("soporte@demo.uy")
    page = soporte.get("/apikeys/")
    assert page.status_code == 200
    soup = _soup(page)
    listing = soup.find(id="apikeys-list")
    assert "ERP" in listing.get_text() and listing.find(attrs={"data-testid": "apikey-limit"}) is not None
    assert listing.find("form") is None and listing.find("button") is None
    assert soup.find("dialog") is None and soup.find(attrs={"data-open-dialog": True}) is None
    token = _csrf(soporte)
    for path in ("/apikeys/", f"/apikeys/{key.id}/revocar", f"/apikeys/{key.id}/rate-limit"):
        assert soporte.post(path, data={"csrf_token": token, "nombre": "x"}).status_code == 403
    assert _only_key(live_service).active


def test_usuario_is_refused_every_api_keys_route(signed_in):
    usuario = signed_in("usuario@demo.uy")
    for method, path in (
        ("GET", "/apikeys/"),
        ("POST", "/apikeys/"),
        ("POST", "/apikeys/ak_x/revocar"),
        ("POST", "/apikeys/ak_x/rate-limit"),
    ):
        answer = usuario.open(path, method=method, data={"csrf_token": _csrf_of_home(usuario)})
        assert answer.status_code == 403, path


def _csrf_of_home(client) -> str:
    return csrf(client)


def test_the_page_has_no_inline_scripts_styles_or_handlers(admin):
    _create(admin, "ERP")
    html = admin.get("/apikeys/").get_data(as_text=True)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert not re.search(r"\sstyle=|\son[a-z]+=|hx-on", html)


def test_the_page_speaks_english_too(admin):
    token = _csrf(admin)
    admin.post("/idioma", data={"lang": "en", "next": "/apikeys/", "csrf_token": token})
    _create(admin, "ERP")
    soup = _soup(admin.get("/apikeys/"))
    assert soup.find("button", attrs={"data-open-dialog": True}).get_text(strip=True) == "Create key"
    assert "Company keys" in soup.find(id="keys-title").get_text()
    assert "Active" in soup.find(id="apikeys-list").get_text()


def test_service_field_errors_land_on_the_form_fields(portal_app):
    from portal.client.errors import FieldError, ValidationError
    from portal.web.apikeys.forms import CreateKeyForm
    from portal.web.forms_common import apply_service_errors

    with portal_app.test_request_context():
        form = CreateKeyForm(formdata=None, meta={"csrf": False})
        refusal = ValidationError(
            "Revisá los datos.",
            fields=(
                FieldError("rateLimit.ventanaSegundos", "x", "Debe ser menor o igual que 86400."),
                FieldError("otra.cosa", "x", "Otra cosa."),
            ),
        )
        assert apply_service_errors(form, refusal, form.SERVICE_FIELDS) == ["Otra cosa."]
        assert form.ventana.errors == ["Debe ser menor o igual que 86400."]
        assert form.form_errors == ["Otra cosa."]  # shown at the top of the form, not lost


def test_revoking_without_javascript_asks_on_a_page_of_its_own(admin, live_service, signed_in):
    """The "Revocar" button only opened its dialog by script: without it, it did nothing. It is now a GET form's
    button to the same question on a page of its own (with script, the dialog opens instead)."""
    _create(admin, "ERP")
    key = _only_key(live_service)
    opener = _soup(admin.get("/apikeys/")).find("button", attrs={"data-open-dialog": f"revoke-{key.id}"})
    assert opener["type"] == "submit" and opener.find_parent("form")["method"].lower() == "get"
    asked = admin.get(opener.find_parent("form")["action"])
    assert asked.status_code == 200 and asked.headers["Cache-Control"] == "no-store"
    question = _soup(asked)
    assert question.h1.get_text(strip=True) == "¿Revocar la clave «ERP»?"
    assert _only_key(live_service).active  # asking revoked nothing
    action = question.find("button", string="Revocar la clave").find_parent("form")
    token = action.find("input", attrs={"name": "csrf_token"})["value"]
    assert admin.post(action["action"], data={"csrf_token": token}).status_code == 303
    assert _only_key(live_service).status == "revocada"
    assert admin.get(f"/apikeys/{key.id}/revocar").status_code == 404  # nothing left to ask about
    assert admin.get("/apikeys/ak_nope/revocar").status_code == 404
    assert signed_in("soporte@demo.uy").get(f"/apikeys/{key.id}/revocar").status_code == 403
