"""The provider's password change (/cuenta/contrasena): who may, the rules, the throttle, and what a change ends."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from sqlalchemy import select

from portal.service.platform import db
from portal.service.platform.models import User
from tests.support.html import soup, text
from tests.support.oidc import authorize_path, exchange_code, refresh, sign_in_at_provider

PAGE = "/cuenta/contrasena"
NEW = "una-contraseña-nueva-larga"
API = "/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido=999999"  # any role; 404 means "token accepted"


def _csrf_of(response) -> str:
    return soup(response).find("input", {"name": "csrf_token"})["value"]


def _sign_in(browser, email="usuario@demo.uy", password="demo-password"):
    """Sign `browser` (a service test client) in at the provider through authorize: the answer (302 with a code)."""
    return sign_in_at_provider(browser, authorize_path()[0], email, password)


def _tokens(browser, service_app) -> dict:
    """A code for the signed-in `browser`, exchanged: the portal's tokens, refresh token included."""
    path, verifier = authorize_path()
    return exchange_code(browser, service_app, browser.get(path), verifier)


def _change(browser, current="demo-password", new=NEW, confirm=None, *, query=""):
    page = browser.get(PAGE + query)
    assert page.status_code == 200
    fields = {"current_password": current, "new_password": new, "confirm_password": new if confirm is None else confirm}
    return browser.post(PAGE + query, data={"csrf_token": _csrf_of(page), **fields})


def _hash(service_app, email="usuario@demo.uy") -> str:
    with service_app.app_context():
        return db.session().scalar(select(User.password_hash).where(User.email == email))


@pytest.fixture
def browser(api_client):
    assert _sign_in(api_client).status_code == 302
    return api_client


def test_a_change_makes_the_new_password_the_one_that_signs_in(browser, service_app):
    query = "?" + urlencode({"client_id": "cfe-portal", "return_to": service_app.config["PORTAL_POST_LOGOUT_URIS"][0]})
    answer = _change(browser, query=query)
    assert answer.status_code == 303
    done = browser.get(answer.headers["Location"])
    assert "Cambiaste tu contraseña" in done.get_data(as_text=True)
    back = soup(done).find("a", string=lambda s: s and "Volver a" in s)
    assert back["href"] == service_app.config["PORTAL_POST_LOGOUT_URIS"][0] and "Portal CFE" in text(back)

    assert _sign_in(service_app.test_client(), password="demo-password").status_code == 422
    assert _sign_in(service_app.test_client(), password=NEW).status_code == 302
    assert browser.get(authorize_path()[0]).status_code == 302  # this browser stays signed in


def test_the_way_back_is_only_an_address_registered_for_the_client(browser):
    answer = _change(browser, query="?client_id=cfe-portal&return_to=https://evil.example/")
    done = browser.get(answer.headers["Location"])
    assert "evil.example" not in done.get_data(as_text=True) and not soup(done).find("a", href=True)


@pytest.mark.parametrize(
    ("new", "confirm", "field", "message"),
    [
        ("corta-11ch", None, "new_password", "al menos 12 caracteres"),
        (NEW, NEW + "x", "confirm_password", "no coinciden"),
        ("usuario@demo.uy", None, "new_password", "no puede ser tu correo"),
        ("demo-password-2", "demo-password-3", "confirm_password", "no coinciden"),
        # Easy to guess (zxcvbn): among the most used, a keyboard run, words of the product and country, the
        # person's own e-mail with a year, their company's name with one.
        ("password1234", None, "new_password", "fácil de adivinar"),
        ("qwertyuiop12", None, "new_password", "fácil de adivinar"),
        ("contraseña1234", None, "new_password", "fácil de adivinar"),
        ("Montevideo2026", None, "new_password", "fácil de adivinar"),
        ("usuario@demo.uy2026", None, "new_password", "fácil de adivinar"),
        ("Demo S.A.2026", None, "new_password", "fácil de adivinar"),
    ],
)
def test_a_new_password_against_the_rules_is_refused_at_its_field(browser, service_app, new, confirm, field, message):
    before = _hash(service_app)
    answer = _change(browser, new=new, confirm=confirm)
    assert answer.status_code == 422
    page = soup(answer)
    error = page.find(id=f"{field}-error")
    assert message in text(error)
    assert f"{field}-error" in page.find("input", id=field)["aria-describedby"].split()
    assert page.find("input", id=field)["aria-invalid"] == "true"
    summary = page.find(id="error-summary")
    assert summary.has_attr("autofocus") and summary.find("a", href=f"#{field}")
    assert page.title.string.startswith("Error: ")
    assert _hash(service_app) == before


def test_the_same_password_again_is_refused(browser, service_app):
    before = _hash(service_app)
    answer = _change(browser, new="demo-password")
    # demo-password is 13 characters: long enough, so only "the same as now" stops it
    assert answer.status_code == 422
    assert "distinta de la actual" in text(soup(answer).find(id="new_password-error"))
    assert _hash(service_app) == before


def test_a_wrong_current_password_is_refused_and_throttled_with_sign_in(browser, service_app):
    before = _hash(service_app)
    wrong = _change(browser, current="not-the-password")
    assert wrong.status_code == 422
    assert "no es correcta" in text(soup(wrong).find(id="current_password-error"))
    for _ in range(4):
        assert _change(browser, current="not-the-password").status_code == 422
    locked = _change(browser)  # the right one, too late
    assert locked.status_code == 429 and "Demasiados intentos" in locked.get_data(as_text=True)
    assert _hash(service_app) == before
    # the same counters as sign-in's: this account cannot be tried from here at sign-in either
    assert _sign_in(service_app.test_client()).status_code == 429


def test_a_change_without_its_csrf_token_is_refused(browser, service_app):
    before = _hash(service_app)
    answer = browser.post(
        PAGE, data={"current_password": "demo-password", "new_password": NEW, "confirm_password": NEW}
    )
    assert answer.status_code == 400
    assert "demasiado tiempo" in answer.get_data(as_text=True)
    assert _hash(service_app) == before


def test_a_browser_not_signed_in_is_asked_to_sign_in_first_then_comes_back(api_client, service_app):
    before = _hash(service_app)
    page = api_client.get(PAGE + "?ui_locales=en")
    assert page.status_code == 200
    assert "sign in to your account first" in page.get_data(as_text=True)
    assert not soup(page).find("input", {"name": "new_password"})
    posted = api_client.post(
        PAGE, data={"current_password": "demo-password", "new_password": NEW, "confirm_password": NEW}
    )
    assert not soup(posted).find("input", {"name": "new_password"}) and _hash(service_app) == before

    signed = api_client.post(
        PAGE + "?ui_locales=en",
        data={"csrf_token": _csrf_of(page), "email": "usuario@demo.uy", "password": "demo-password"},
    )
    assert signed.status_code == 303 and signed.headers["Location"].endswith(PAGE + "?ui_locales=en")
    form = api_client.get(signed.headers["Location"])
    assert soup(form).find("input", {"name": "new_password"}) and "Change your password" in form.get_data(as_text=True)


def test_a_change_ends_the_users_other_sessions_and_tokens(browser, service_app):
    elsewhere = service_app.test_client()
    assert _sign_in(elsewhere).status_code == 302
    tokens = _tokens(elsewhere, service_app)
    bearer = {"Authorization": f"Bearer {tokens['access_token']}"}
    assert browser.get(API, headers=bearer).status_code == 404
    someone_else = service_app.test_client()
    assert _sign_in(someone_else, "soporte@demo.uy").status_code == 302

    assert _change(browser).status_code == 303

    assert elsewhere.get(authorize_path()[0]).status_code == 200  # the sign-in page again, no code
    refreshed = refresh(browser, service_app, tokens["refresh_token"])
    assert refreshed.status_code == 400 and refreshed.json["error"] == "invalid_grant"
    assert browser.get(API, headers=bearer).status_code == 401
    assert someone_else.get(authorize_path()[0]).status_code == 302  # another user's session is theirs


def test_the_page_speaks_english_and_links_the_other_language(browser):
    page = browser.get(PAGE + "?ui_locales=en&client_id=cfe-portal")
    assert "Change your password" in page.get_data(as_text=True)
    switch = soup(page).find("a", lang="es")
    assert "ui_locales=es" in switch["href"] and "client_id=cfe-portal" in switch["href"]


def test_the_portals_header_links_to_the_providers_page_with_the_way_back(signed_in, live_service, portal_app):
    home = signed_in("usuario@demo.uy").get("/")
    link = soup(home).find("a", string="Cambiar contraseña")
    target = urlsplit(link["href"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == live_service.url + PAGE
    query = parse_qs(target.query)
    assert query["client_id"] == [portal_app.config["OIDC_CLIENT_ID"]] and query["ui_locales"] == ["es"]
    assert query["return_to"][0] in live_service.app.config["PORTAL_POST_LOGOUT_URIS"]  # so the page links back


def test_an_easy_password_is_refused_in_english_too(browser, service_app):
    before = _hash(service_app)
    answer = _change(browser, new="Montevideo2026", query="?ui_locales=en")
    assert answer.status_code == 422
    assert "easy to guess" in text(soup(answer).find(id="new_password-error"))
    assert _hash(service_app) == before
