"""The portal's shell: sign-in through the real provider, navigation per role, language, company switch,
session handling, CSRF and security headers."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from bs4 import BeautifulSoup

from tests.conftest import mint_token
from tests.support import cfe_bodies as bodies
from tests.support.html import csrf as _csrf
from tests.support.oidc import refresh


def _nav_labels(html: str) -> list[str]:
    nav = BeautifulSoup(html, "html.parser").select("ul.areas a")
    return [a.get_text(strip=True) for a in nav]


def test_anonymous_visitor_sees_sign_in_and_protected_pages_redirect(portal_client):
    home = portal_client.get("/")
    assert home.status_code == 200 and "/auth/login" in home.get_data(as_text=True)
    protected = portal_client.get("/comprobantes/")
    assert protected.status_code == 302
    assert protected.headers["Location"].startswith("/auth/login?next=/comprobantes/")


@pytest.mark.parametrize(
    ("email", "role", "nav"),
    [
        (
            "admin@demo.uy",
            "administrador",
            [
                "Comprobantes",
                "Recibidos",
                "Emisión inteligente",
                "Informes",
                "Clientes",
                "Productos",
                "Claves de API",  # under "Más" from here on
                "DGI",
                "Cotizaciones",
                "Envíos a DGI",
                "Empresa",
                "Webhooks",
            ],
        ),
        (
            "soporte@demo.uy",
            "soporte",
            [
                "Comprobantes",
                "Recibidos",
                "Emisión inteligente",
                "Informes",
                "Clientes",
                "Productos",
                "Claves de API",  # under "Más" from here on
                "DGI",
                "Cotizaciones",
                "Envíos a DGI",
                "Auditoría",
            ],
        ),
        (
            "usuario@demo.uy",
            "usuario",
            [
                "Comprobantes",
                "Recibidos",
                "Emisión inteligente",
                "Informes",
                "Clientes",
                "Productos",
                "DGI",
                "Cotizaciones",
            ],
        ),
    ],
)
def test_home_greets_who_is_signed_in_and_shows_the_navigation_of_the_role(signed_in, email, role, nav):
    client = signed_in(email)
    html = client.get("/").get_data(as_text=True)
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find(attrs={"data-testid": "who-email"}).get_text(strip=True) == email
    assert soup.find(attrs={"data-testid": "who-role"}).get_text(strip=True) == role
    assert "Demo S.A." in soup.find(attrs={"data-testid": "who-company"}).get_text()
    assert _nav_labels(html) == nav
    # The settings and support pages sit under "Más", a disclosure the keyboard and no-JavaScript both open.
    more = [a.get_text(strip=True) for a in soup.select("ul.areas .nav-more details a")]
    assert more == [
        label
        for label in nav
        if label in ("Claves de API", "DGI", "Cotizaciones", "Envíos a DGI", "Empresa", "Auditoría", "Webhooks")
    ]


def test_usuario_is_refused_the_api_keys_page_by_the_server(signed_in):
    page = signed_in("usuario@demo.uy").get("/apikeys/")
    assert page.status_code == 403
    assert "No tenés permiso" in page.get_data(as_text=True)


def test_tokens_stay_on_the_server(signed_in_through_provider):
    client = signed_in_through_provider()
    cookie = client.get_cookie("cfe_portal_session", domain="127.0.0.1")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Lax"
    assert "eyJ" not in cookie.value and len(cookie.value) < 120
    assert "eyJ" not in client.get("/").get_data(as_text=True)


def test_language_switch_needs_csrf_and_changes_the_page_language(signed_in):
    client = signed_in()
    assert client.post("/idioma", data={"lang": "en"}).status_code == 400
    answer = client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": _csrf(client)})
    assert answer.status_code == 303
    html = client.get("/").get_data(as_text=True)
    assert '<html lang="en"' in html and "Receipts" in _nav_labels(html)


def _service_language(live_service, email: str) -> str:
    from portal.service.platform import db
    from portal.service.platform.models import User

    with live_service.app.app_context():
        return db.session().query(User).filter_by(email=email).one().locale


def test_the_language_switch_is_the_one_the_service_writes_to_the_user_in(signed_in, live_service):
    """Not only the last sign-in's: an admin who switches to English gets the admins' e-mails in English."""
    from portal.service.eventos.admin_mail import admin_addresses
    from portal.service.platform import db

    client = signed_in("admin@demo.uy")
    assert _service_language(live_service, "admin@demo.uy") == "es"
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": _csrf(client)})
    assert _service_language(live_service, "admin@demo.uy") == "en"
    with live_service.app.app_context():
        assert "admin@demo.uy" in admin_addresses(db.session(), 1)["en"]
    client.post("/idioma", data={"lang": "es", "next": "/", "csrf_token": _csrf(client)})
    assert _service_language(live_service, "admin@demo.uy") == "es"


def test_the_language_switches_while_the_service_cannot_keep_it(signed_in, monkeypatch, caplog):
    from portal.client.errors import ServiceUnavailable
    from portal.web.main import routes

    class Down:
        def set_language(self, lang):
            raise ServiceUnavailable("down", status=503, code="unavailable", request_id="r-1")

    client = signed_in()
    monkeypatch.setattr(routes, "api", Down)
    answer = client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": _csrf(client)})
    assert answer.status_code == 303
    monkeypatch.undo()
    assert '<html lang="en"' in client.get("/").get_data(as_text=True)
    assert "language not kept by the service" in caplog.text and "r-1" in caplog.text


@pytest.mark.parametrize(
    ("email", "spanish", "english"),
    [
        ("usuario@demo.uy", "usuario", "user"),
        ("soporte@demo.uy", "soporte", "support"),
        ("admin@demo.uy", "administrador", "administrator"),
    ],
)
def test_the_footer_names_the_role_in_the_pages_language(signed_in, email, spanish, english):
    client = signed_in(email)
    footer = BeautifulSoup(client.get("/").data, "html.parser").select_one("footer").get_text(" ", strip=True)
    assert f"{email} ({spanish})" in footer
    client.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": _csrf(client)})
    footer = BeautifulSoup(client.get("/").data, "html.parser").select_one("footer").get_text(" ", strip=True)
    assert f"{email} ({english})" in footer


def test_open_redirects_are_refused_after_the_language_switch(signed_in):
    client = signed_in()
    answer = client.post("/idioma", data={"lang": "es", "next": "//evil.example/x", "csrf_token": _csrf(client)})
    assert answer.headers["Location"] == "/"


def test_company_switch_for_a_user_of_two_companies(signed_in):
    client = signed_in("admin@demo.uy")
    token = _csrf(client)
    assert client.post("/empresa", data={"company_id": "2", "csrf_token": token}).status_code == 303
    html = client.get("/").get_data(as_text=True)
    assert (
        "Comercial del Norte"
        in BeautifulSoup(html, "html.parser").find(attrs={"data-testid": "who-company"}).get_text()
    )
    assert client.post("/empresa", data={"company_id": "99", "csrf_token": token}).status_code == 403


@pytest.mark.parametrize(
    ("was_on", "lands_on"),
    [
        ("/dgi/cva?nroDoc=1", "/dgi/cva?nroDoc=1"),  # the same page
        ("/comprobantes/0123456789abcdef", "/comprobantes/"),  # a record of the other company: its area's list
        ("//evil.example/x", "/"),
    ],
)
def test_switching_company_stays_on_the_page_the_user_was_on(signed_in, was_on, lands_on):
    client = signed_in("admin@demo.uy")
    answer = client.post("/empresa", data={"company_id": "2", "next": was_on, "csrf_token": _csrf(client)})
    assert answer.status_code == 303 and answer.headers["Location"] == lands_on


def test_dgi_lookups_follow_the_company_chosen_in_the_header(signed_in):
    client = signed_in("admin@demo.uy")

    def chosen_certificate() -> str:
        page = BeautifulSoup(client.get("/dgi/").get_data(as_text=True), "html.parser")
        return page.find("select", id="contexto").find("option", selected=True)["value"]

    assert chosen_certificate() == "1:1"
    client.post("/empresa", data={"company_id": "2", "csrf_token": _csrf(client)})
    assert chosen_certificate() == "2:2"  # Comercial del Norte signs now, not Demo S.A.
    client.post("/empresa", data={"company_id": "1", "csrf_token": _csrf(client)})
    assert chosen_certificate() == "1:1"


def test_htmx_request_with_an_expired_session_gets_401_and_hx_redirect(signed_in, portal_app):
    client = signed_in()
    with client.session_transaction() as session:
        session["last_seen"] = time.time() - portal_app.config["IDLE_TIMEOUT"].total_seconds() - 5
    here = f"http://{portal_app.config['SERVER_NAME']}/dgi/"
    answer = client.get("/dgi/", headers={"HX-Request": "true", "HX-Current-URL": here})
    assert answer.status_code == 401
    assert answer.headers["HX-Redirect"] == "/auth/login?next=/dgi/"


def test_absolute_timeout_ends_the_session_even_when_active(signed_in, portal_app):
    client = signed_in()
    with client.session_transaction() as session:
        session["login_at"] = time.time() - portal_app.config["ABSOLUTE_TIMEOUT"].total_seconds() - 5
    assert client.get("/comprobantes/").status_code == 302


def test_htmx_fragment_is_only_the_block_and_varies_on_hx_request(signed_in):
    client = signed_in()
    fragment = client.get("/resumen", headers={"HX-Request": "true"})
    html = fragment.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="day-summary"') and "<html" not in html
    assert "HX-Request" in fragment.headers["Vary"]
    assert "<html" in client.get("/").get_data(as_text=True)


def test_sign_out_revokes_the_refresh_token(signed_in_through_provider, live_service):
    client = signed_in_through_provider()  # `signed_in` holds no refresh token: nothing to revoke
    with client.session_transaction() as session:
        refresh_token = session["tokens"]["refresh_token"]
    assert refresh_token
    answer = client.post("/auth/logout", data={"csrf_token": _csrf(client)})
    assert answer.status_code == 303 and "/oauth/logout" in answer.headers["Location"]
    reuse = refresh(requests.Session(), live_service.app, refresh_token)
    assert reuse.status_code == 400
    assert client.get("/comprobantes/").status_code == 302


def test_expired_access_token_is_refreshed_on_the_server(signed_in_through_provider):
    client = signed_in_through_provider()
    with client.session_transaction() as session:
        old = session["tokens"]["access_token"]
        session["tokens"] = {**session["tokens"], "expires_at": time.time() - 1}
    assert client.get("/").status_code == 200
    with client.session_transaction() as session:
        assert session["tokens"]["access_token"] != old


def _set_role(live_service, email: str, role: str) -> None:
    """Change a member's role of the demo company as an admin's Personas page does (the service's own path)."""
    from sqlalchemy import select

    from portal.service.empresa import onboarding
    from portal.service.platform import db
    from portal.service.platform.models import Role, User

    with live_service.app.app_context():
        user_id = db.session().scalar(select(User.id).where(User.email == email))
        onboarding.change_member_role(1, user_id, Role(role))


def _nav_targets(page) -> set[str]:
    header = BeautifulSoup(page.get_data(as_text=True), "html.parser").find("header")
    return {a["href"] for a in header.select("nav a[href]")}


def test_a_role_changed_after_sign_in_shows_from_the_next_token_refresh(signed_in_through_provider, live_service):
    """The session kept the companies and roles of the sign-in until the next one: a person made admin saw no
    admin pages, for up to 12 hours. They are read again with every refresh of the access token (10 minutes)."""
    client = signed_in_through_provider("usuario@demo.uy")
    assert "/empresa/" not in _nav_targets(client.get("/"))
    _set_role(live_service, "usuario@demo.uy", "admin")
    assert "/empresa/" not in _nav_targets(client.get("/"))  # the token still holds: nothing asked yet
    with client.session_transaction() as session:
        session["tokens"] = {**session["tokens"], "expires_at": time.time() - 1}
    assert "/empresa/" in _nav_targets(client.get("/"))
    assert client.get("/empresa/personas").status_code == 200


def test_a_demoted_admin_refused_by_the_service_sees_their_new_role_at_once(signed_in, live_service):
    """The portal kept showing a demoted admin the admin pages, each refused by the service, until they signed
    in again. The refusal (rol_insuficiente) makes the portal read the user's roles again: the refusal's own page
    already shows the navigation of the role they have now, and so does every page after it."""
    _set_role(live_service, "usuario@demo.uy", "admin")
    client = signed_in("usuario@demo.uy")
    assert "/empresa/" in _nav_targets(client.get("/"))
    _set_role(live_service, "usuario@demo.uy", "usuario")
    refused = client.get("/empresa/personas")
    assert refused.status_code == 403
    assert "/empresa/" not in _nav_targets(refused) and "/comprobantes/" in _nav_targets(refused)
    assert "/empresa/" not in _nav_targets(client.get("/"))
    assert client.get("/empresa/personas").status_code == 403  # now refused by the portal itself


def test_service_down_is_a_503_page_with_a_way_forward(signed_in, live_service):
    client = signed_in()
    live_service.stop()
    page = client.get("/")
    assert page.status_code == 503  # the home still opens, with its actions: see test_portal_home.py
    text = page.get_data(as_text=True)
    assert "no está respondiendo" in text and "Reintentar" in text
    fragment = client.get("/", headers={"HX-Request": "true"})
    assert fragment.status_code == 503 and fragment.headers["HX-Retarget"] == "#alerts"


def test_sign_in_while_the_service_is_down_is_the_503_page_with_a_way_forward(portal_client, live_service):
    live_service.stop()
    page = portal_client.get("/auth/login")
    assert page.status_code == 503
    text = page.get_data(as_text=True)
    assert "no está respondiendo" in text and "Reintentar" in text and "Algo salió mal" not in text


def test_sign_in_after_the_service_went_down_is_the_503_page_not_a_redirect_to_it(portal_client, live_service):
    assert portal_client.get("/auth/login").status_code == 302  # the provider's metadata is read and kept
    live_service.stop()
    page = portal_client.get("/auth/login")
    assert page.status_code == 503 and "Location" not in page.headers
    assert "no está respondiendo" in page.get_data(as_text=True)


def test_service_down_between_sign_in_and_its_callback_is_the_503_page(portal_client, live_service):
    state = parse_qs(urlsplit(portal_client.get("/auth/login").headers["Location"]).query)["state"][0]
    live_service.stop()
    callback = portal_client.get(f"/auth/callback?code=x&state={state}")
    assert callback.status_code == 503 and "no está respondiendo" in callback.get_data(as_text=True)


def test_sign_out_while_the_service_is_down_still_ends_the_portal_session_and_says_so(signed_in, live_service):
    client = signed_in()
    token = _csrf(client)
    live_service.stop()
    answer = client.post("/auth/logout", data={"csrf_token": token})
    assert answer.status_code in (302, 303) and answer.headers["Location"].endswith("/")
    assert client.get("/comprobantes/").status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert "Cerraste la sesión en el portal" in home


def test_security_headers_on_every_page(portal_client):
    answer = portal_client.get("/")
    csp = answer.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    for directive in ("frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'", "script-src 'self'"):
        assert directive in csp
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["Referrer-Policy"] == "same-origin"
    assert answer.headers["Cache-Control"] == "no-store"


def test_pages_have_no_inline_scripts_styles_or_handlers(signed_in):
    html = signed_in("admin@demo.uy").get("/").get_data(as_text=True)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert not re.search(r"\sstyle=|\son[a-z]+=|hx-on", html)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_wrong_method_is_a_page_in_the_users_language_not_werkzeugs_english(signed_in, lang):
    client = signed_in()
    client.post("/idioma", data={"lang": lang, "csrf_token": _csrf(client)})
    answer = client.get("/idioma")  # POST only
    text = BeautifulSoup(answer.get_data(as_text=True), "html.parser").find("main").get_text(" ", strip=True)
    assert answer.status_code == 405
    assert "The method is not allowed" not in text
    expected = "Acción no permitida" if lang == "es" else "Action not allowed"
    assert expected in text


def test_a_pdf_may_be_shown_by_the_browsers_viewer_but_framed_only_by_the_portal(signed_in, live_service):
    client = signed_in()
    receipt = requests.post(
        live_service.url + "/api/v1/comprobante/emitir",
        json=bodies.body(bodies.ETICKET),
        headers={"Authorization": f"Bearer {mint_token(live_service.app, 'usuario@demo.uy')}"},
        timeout=30,
    ).json()
    answer = client.get(f"/comprobantes/{receipt['idCfeEmitido']}/pdf")
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    csp = answer.headers["Content-Security-Policy"]
    # Chromium's PDF viewer styles its wrapper inline; nothing of ours runs in a PDF, and only we frame it.
    assert "style-src 'unsafe-inline'" in csp and "frame-ancestors 'self'" in csp and "script-src" not in csp


def test_the_pages_styles_and_scripts_are_kept_a_year_under_addresses_that_change_with_them(portal_client):
    html = portal_client.get("/").get_data(as_text=True)
    addresses = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
    assert len(addresses) >= 4  # pico, the portal's stylesheet, htmx, the portal's script
    for address in addresses:
        assert re.search(r"\?v=[0-9a-f]{16}$", address), address
        kept = portal_client.get(address)
        kept.close()
        assert kept.status_code == 200
        assert kept.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    # Yesterday's address (another digest) or none at all: the file as it is now, which the browser must ask for
    # again next time.
    for stale in (addresses[0].split("?")[0] + "?v=0123456789abcdef", addresses[0].split("?")[0]):
        answer = portal_client.get(stale)
        answer.close()
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "no-cache"
