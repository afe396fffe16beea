"""The portal's DGI page through the real sign-in and a live service: the four lookups laid out, full page
vs fragment, the 422 path (portal's and service's), the as-you-type check, the remembered certificate,
operator mode, DGI failures with a way forward, and "use as receiver"."""

from __future__ import annotations

import datetime as dt
import socket
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup

from portal.service.dgi import sandbox_data as data
from portal.service.dgi.sandbox import SandboxRegistry
from tests.support.dgi_standin import RunningStandIn, StandIn
from tests.support.html import csrf
from tests.support.html import soup as _soup

HTMX = {"HX-Request": "true"}


def _testid(soup, name: str):
    found = soup.find(attrs={"data-testid": name})
    assert found is not None, f"no data-testid={name}"
    return found


def _hint(soup, field_id: str) -> str:
    return soup.find(id=f"{field_id}-hint").get_text(" ", strip=True)


def _csrf(client, path="/dgi/") -> str:
    return csrf(client, path)


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


@pytest.fixture
def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/ePrueba/ws"


@pytest.fixture
def slow_standin():
    running = RunningStandIn(StandIn(SandboxRegistry(), delay=5))
    yield running.url
    running.stop()


# --- the page --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("email", ["admin@demo.uy", "soporte@demo.uy", "usuario@demo.uy"])
def test_every_role_gets_the_page_with_four_lookups_and_its_certificate_chosen(signed_in, email):
    page = signed_in(email).get("/dgi/")
    assert page.status_code == 200
    soup = _soup(page)
    tabs = [a.get_text(strip=True) for a in soup.select("nav.dgi-tabs a")]
    assert tabs == ["RUT", "Nombre por documento", "CVA", "Datos de la entidad"]
    selected = soup.find("select", id="contexto").find("option", selected=True)
    assert selected["value"] == "1:1" and selected.get_text().startswith("Demo S.A. · vence ")
    assert "Las consultas se firman con «Certificado de prueba" in soup.find(id="contexto-hint").get_text()


def test_a_user_of_two_companies_sees_both_companies_certificates(signed_in):
    soup = _soup(signed_in("admin@demo.uy").get("/dgi/"))
    groups = [g["label"] for g in soup.find("select", id="contexto").find_all("optgroup")]
    assert groups == ["Demo S.A. (RUT 219999830019)", "Comercial del Norte S.R.L. (RUT 211003420017)"]


def test_a_lookup_url_is_a_full_page_and_its_htmx_request_only_the_lookup_block(usuario):
    page = usuario.get(f"/dgi/rut?rut={data.DEMO_RUT}")
    assert "<html" in page.get_data(as_text=True) and "HX-Request" in page.headers["Vary"]
    fragment = usuario.get(f"/dgi/rut?rut={data.DEMO_RUT}", headers=HTMX)
    html = fragment.get_data(as_text=True)
    assert fragment.status_code == 200 and "HX-Request" in fragment.headers["Vary"]
    assert html.lstrip().startswith('<section id="dgi-lookup"') and "<html" not in html
    assert 'id="dgi-contexto"' not in html  # the picker stays as it is
    assert _testid(BeautifulSoup(html, "html.parser"), "entity-name").get_text() == "DGI RUC PRUEBA NO CEDE"


def test_each_form_gets_its_own_url_and_pushes_it(usuario):
    for tab, endpoint in (("rut", "/dgi/rut"), ("nombre", "/dgi/nombre"), ("cva", "/dgi/cva"), ("datos", "/dgi/datos")):
        form = _soup(usuario.get(endpoint)).find("form", class_="dgi-form")
        assert (form["method"], form["action"], form["hx-get"], form["hx-push-url"]) == (
            "get",
            endpoint,
            endpoint,
            "true",
        ), tab
        assert form["hx-disinherit"] == "*"  # the live document check inside must not push its own URL


# --- results ---------------------------------------------------------------------------------------------


def test_a_rut_result_is_laid_out_for_a_person(usuario):
    soup = _soup(usuario.get("/dgi/rut?rut=21-999983-001-9"))
    assert _testid(soup, "entity-name").get_text() == "DGI RUC PRUEBA NO CEDE"
    assert _testid(soup, "entity-trade-name").get_text() == "EMPRESA DEMO"
    assert _testid(soup, "entity-rut").get_text() == "21-999983-001-9"
    state = _testid(soup, "entity-state")
    assert state.get_text() == "Activo" and "badge-ok" in state["class"]
    assert _testid(soup, "entity-issuer").get_text() == "Emisor electrónico"
    assert "SOCIEDAD CIVIL" in soup.find(attrs={"data-testid": "dgi-result"}).get_text()
    assert soup.find(attrs={"data-testid": "entity-activities"}) is None  # consultaRut carries none
    assert _testid(soup, "use-as-receiver")["href"] == f"/dgi/receptor?rut={data.DEMO_RUT}"
    assert _hint(soup, "rut") == "✓ RUT válido: 21-999983-001-9"  # the field keeps what was typed, checked
    assert soup.find("input", id="rut")["value"] == "21-999983-001-9"


@pytest.mark.parametrize(
    ("rut", "label", "css"),
    [
        (data.INACTIVE_RUT, "Clausurado", "badge-bad"),
        (data.SUSPENDED_RUT, "Suspendido", "badge-warn"),
    ],
)
def test_a_taxpayer_that_is_not_active_says_so_in_its_badge(usuario, rut, label, css):
    soup = _soup(usuario.get(f"/dgi/rut?rut={rut}"))
    state = _testid(soup, "entity-state")
    assert state.get_text() == label and css in state["class"]
    assert "no lo registra como activo" in soup.find(attrs={"data-testid": "dgi-result"}).get_text()


def test_entity_data_shows_address_contacts_and_activities(usuario):
    soup = _soup(usuario.get(f"/dgi/datos?rut={data.DGI_CEDE_RUT}"))
    address = _testid(soup, "entity-address").get_text(" ", strip=True)
    assert "12 METROS 6855" in address and "CASUPA, LAVALLEJA" in address
    contacts = _testid(soup, "entity-contacts").get_text(" ", strip=True)
    assert "Correo electrónico" in contacts and "planprod@dgi.gub.uy" in contacts and "25062222" in contacts
    rows = [
        [td.get_text(strip=True) for td in tr.find_all("td")]
        for tr in _testid(soup, "entity-activities").find("tbody").find_all("tr")
    ]
    assert [r[0] for r in rows] == ["47115", "84110"]
    assert rows[0][1] == "COMERCIO AL POR MENOR REALIZADO POR LOS FREE SHOPS" and "2020" in rows[0][2]


@pytest.mark.parametrize(
    ("rut", "label", "css", "dated"),
    [
        (data.DEMO_RUT, "VIGENTE", "badge-ok", True),
        (data.EXPIRED_CVA_RUT, "VENCIDO", "badge-bad", True),
        (data.NO_CVA_RUT, "SIN CERTIFICADO", "badge-neutral", False),
    ],
)
def test_the_cva_is_a_clear_badge_with_its_dates(usuario, rut, label, css, dated):
    soup = _soup(usuario.get(f"/dgi/cva?rut={rut}"))
    badge = _testid(soup, "cva-state")
    assert badge.get_text() == label and css in badge["class"]
    assert (soup.find(attrs={"data-testid": "cva-issued"}) is not None) == dated
    assert (soup.find(attrs={"data-testid": "cva-expires"}) is not None) == dated


def test_a_name_by_document_offers_an_e_ticket_to_that_person(usuario):
    soup = _soup(usuario.get("/dgi/nombre?tipoDoc=3&nroDoc=1.335.321-4"))
    assert _testid(soup, "entity-name").get_text() == "RODRIGUEZ SILVA JUAN CARLOS"
    assert _testid(soup, "entity-document").get_text(" ", strip=True) == "CI 1.335.321-4"
    link = urlsplit(_testid(soup, "use-as-receiver")["href"])
    assert link.path == "/comprobantes/nuevo"
    assert parse_qs(link.query) == {
        "tipoCFE": ["101"],
        "tipoDocRecep": ["3"],
        "docRecep": ["13353214"],
        "rznSocRecep": ["RODRIGUEZ SILVA JUAN CARLOS"],
    }


def test_an_unknown_taxpayer_is_explained_in_place_keeping_the_form(usuario):
    answer = usuario.get(f"/dgi/rut?rut={data.UNKNOWN_RUT}", headers=HTMX)
    assert answer.status_code == 404
    soup = _soup(answer)
    assert "no tiene ese documento registrado" in _testid(soup, "dgi-problem").get_text()
    assert soup.find("input", id="rut")["value"] == data.UNKNOWN_RUT


# --- use as receiver -------------------------------------------------------------------------------------

RECEIVER = {
    "tipoCFE": ["111"],
    "tipoDocRecep": ["2"],
    "docRecep": [data.DGI_CEDE_RUT],
    "rznSocRecep": ["DGI RUC PRUEBA CEDE"],
    "dirRecep": ["12 METROS 6855"],
    "ciudadRecep": ["CASUPA"],
    "deptoRecep": ["LAVALLEJA"],
}


def test_use_as_receiver_from_a_rut_result_opens_a_receipt_with_the_receiver_filled_in(usuario):
    answer = usuario.get(f"/dgi/receptor?rut={data.DGI_CEDE_RUT}")
    assert answer.status_code == 303
    target = urlsplit(answer.headers["Location"])
    assert target.path == "/comprobantes/nuevo" and parse_qs(target.query) == RECEIVER


def test_use_as_receiver_from_entity_data_links_straight_to_the_receipt(usuario):
    link = urlsplit(_testid(_soup(usuario.get(f"/dgi/datos?rut={data.DGI_CEDE_RUT}")), "use-as-receiver")["href"])
    assert link.path == "/comprobantes/nuevo" and parse_qs(link.query) == RECEIVER


def test_soporte_who_cannot_issue_is_not_offered_use_as_receiver(signed_in):
    soporte = signed_in("soporte@demo.uy")
    soup = _soup(soporte.get(f"/dgi/datos?rut={data.DGI_CEDE_RUT}"))
    assert _testid(soup, "entity-name") and soup.find(attrs={"data-testid": "use-as-receiver"}) is None
    assert soporte.get(f"/dgi/receptor?rut={data.DGI_CEDE_RUT}").status_code == 403


def test_the_receipt_link_uses_the_receipts_endpoint_when_it_exists_and_its_path_otherwise(portal_app, monkeypatch):
    from portal.web.dgi import viewmodels as vm

    if "comprobantes.new" not in portal_app.view_functions:
        portal_app.add_url_rule("/comprobantes/emitir-nuevo", endpoint="comprobantes.new", view_func=lambda: "")
    with portal_app.test_request_context("/dgi/"):
        registered = urlsplit(vm.receipt_url(tipoCFE=111, docRecep="219999830019", dirRecep=None))
        assert registered.path == portal_app.url_map.bind("x").build("comprobantes.new")
        assert parse_qs(registered.query) == {"tipoCFE": ["111"], "docRecep": ["219999830019"]}
        monkeypatch.setattr(vm, "RECEIPT_ENDPOINT", "no.such_endpoint")
        assert vm.receipt_url(tipoCFE=111, rznSocRecep="A & B") == "/comprobantes/nuevo?tipoCFE=111&rznSocRecep=A+%26+B"


# --- invalid input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "field", "message"),
    [
        ("/dgi/rut?rut=21-999983-001-8", "rut", "dígito verificador"),
        ("/dgi/cva?rut=2199998300", "rut", "12 dígitos"),
        ("/dgi/datos?rut=", "rut", "Ingresá el número"),
        ("/dgi/rut?rut=21999983001X", "rut", "12 dígitos"),
        ("/dgi/nombre?tipoDoc=3&nroDoc=1.335.321-5", "nroDoc", "dígito verificador"),
        ("/dgi/nombre?tipoDoc=1&nroDoc=12", "nroDoc", "de 3 a 9 dígitos"),
        ("/dgi/nombre?tipoDoc=5&nroDoc=AB123", "tipoDoc", "Elegí NIE, RUT o CI"),
        ("/dgi/nombre?tipoDoc=CI&nroDoc=13353214", "tipoDoc", "Elegí NIE, RUT o CI"),
    ],
)
def test_invalid_input_is_a_422_with_the_error_next_to_the_field_and_the_input_kept(usuario, url, field, message):
    for headers in ({}, HTMX):
        answer = usuario.get(url, headers=headers)
        assert answer.status_code == 422
        soup = _soup(answer)
        control = soup.find(id=field)
        assert control is not None and control.get("aria-invalid") == "true", headers
        error = control.find_next(class_="field-error")
        assert message in error.get_text(), error
        assert soup.find(attrs={"data-testid": "dgi-result"}) is None
    if field != "tipoDoc":
        typed = parse_qs(urlsplit(url).query, keep_blank_values=True)[field][0]
        assert soup.find("input", id=field)["value"] == typed


def test_the_services_field_errors_land_next_to_the_fields(usuario, monkeypatch):
    from portal.web.dgi import forms

    # A portal whose own check lets a bad RUT through still shows the service's verdict on the field.
    monkeypatch.setattr(forms, "check_document", lambda *_: forms.DocumentCheck(True, "", ""))
    answer = usuario.get("/dgi/rut?rut=219999830018")
    assert answer.status_code == 422
    soup = _soup(answer)
    assert soup.find("input", id="rut").get("aria-invalid") == "true"
    assert "dígito verificador" in _hint(soup, "rut")


# --- the as-you-type check -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected", "valid"),
    [
        ("tipoDoc=2&rut=219999830019", "RUT válido: 21-999983-001-9", "true"),
        ("tipoDoc=2&rut=21-999983-001-8", "El dígito verificador no es correcto", "false"),
        ("tipoDoc=2&rut=2199", "Un RUT tiene 12 dígitos", "false"),
        ("tipoDoc=3&nroDoc=1.335.321-4", "Cédula válida: 1.335.321-4", "true"),
        ("tipoDoc=3&nroDoc=13353215", "El dígito verificador no es correcto", "false"),
        ("tipoDoc=3&nroDoc=123456789", "Una cédula tiene de 2 a 8 dígitos", "false"),
        ("tipoDoc=1&nroDoc=934020101", "NIE válido: 93.402.010-1", "true"),
        ("tipoDoc=5&nroDoc=AB12", "DGI solo registra NIE, RUT y CI", "false"),
    ],
)
def test_the_document_check_as_the_user_types(usuario, query, expected, valid):
    answer = usuario.get(f"/dgi/validar-documento?{query}", headers=HTMX)
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert "<html" not in html and expected in html
    assert BeautifulSoup(html, "html.parser").find(attrs={"data-valid": True})["data-valid"] == valid


def test_an_empty_field_gets_its_help_back(usuario):
    html = usuario.get("/dgi/validar-documento?tipoDoc=2&rut=", headers=HTMX).get_data(as_text=True)
    assert "12 dígitos" in html and "data-valid" not in html


def test_each_document_field_asks_for_the_check_as_the_user_types(usuario):
    rut_input = _soup(usuario.get("/dgi/rut")).find("input", id="rut")
    assert rut_input["hx-get"] == "/dgi/validar-documento" and rut_input["hx-target"] == "#rut-hint"
    assert rut_input["hx-trigger"].startswith("input changed delay:300ms") and '"2"' in rut_input["hx-vals"]
    doc_input = _soup(usuario.get("/dgi/nombre")).find("input", id="nroDoc")
    assert doc_input["hx-include"] == "#tipoDoc" and "change from:#tipoDoc" in doc_input["hx-trigger"]


# --- company and certificate -----------------------------------------------------------------------------


def test_the_chosen_certificate_is_remembered_and_used(signed_in, live_service):
    admin = signed_in("admin@demo.uy")
    answer = admin.post(
        "/dgi/contexto", data={"contexto": "2:2", "next": f"/dgi/rut?rut={data.DEMO_RUT}", "csrf_token": _csrf(admin)}
    )
    assert answer.status_code == 303 and answer.headers["Location"] == f"/dgi/rut?rut={data.DEMO_RUT}"
    assert _soup(admin.get("/dgi/")).find("select", id="contexto").find("option", selected=True)["value"] == "2:2"
    # The lookups now go out with Comercial del Norte's certificate: expire it, and the service says so.
    _expire_certificate(live_service.app, 2)
    refused = admin.get(f"/dgi/rut?rut={data.DEMO_RUT}")
    assert refused.status_code == 422
    problem = _testid(_soup(refused), "dgi-problem").get_text(" ", strip=True)
    assert "No se puede consultar con ese certificado" in problem and "venció" in problem


def _expire_certificate(app, certificate_id: int) -> None:
    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    with app.app_context():
        session = db.session()
        session.get(Certificate, certificate_id).not_after = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
        session.commit()


def test_an_expired_certificate_is_listed_but_cannot_be_chosen(signed_in, live_service):
    _expire_certificate(live_service.app, 1)
    client = signed_in("usuario@demo.uy")
    soup = _soup(client.get("/dgi/"))
    option = soup.find("option", value="1:1")
    assert option.has_attr("disabled")
    answer = client.post("/dgi/contexto", data={"contexto": "1:1", "csrf_token": _csrf(client)})
    assert answer.status_code == 422 and "vencido" in _soup(answer).find(class_="field-error").get_text()


def test_after_choosing_only_same_site_paths_are_followed(usuario):
    answer = usuario.post(
        "/dgi/contexto", data={"contexto": "1:1", "next": "//evil.example/dgi/", "csrf_token": _csrf(usuario)}
    )
    assert answer.status_code == 303 and answer.headers["Location"] == "/dgi/"


def test_another_companys_certificate_cannot_be_chosen(usuario):
    answer = usuario.post("/dgi/contexto", data={"contexto": "2:2", "csrf_token": _csrf(usuario)})
    assert answer.status_code == 422
    assert "Elegí una de las opciones" in _soup(answer).find(class_="field-error").get_text()


def test_choosing_needs_the_csrf_token(usuario):
    assert usuario.post("/dgi/contexto", data={"contexto": "1:1"}).status_code == 400


def test_operator_mode_when_the_service_lists_no_certificates(usuario, monkeypatch):
    from portal.client.api import UserApi

    listed = UserApi.userinfo
    monkeypatch.setattr(
        UserApi,
        "userinfo",
        lambda self: replace(
            listed(self), companies=tuple(replace(c, certificates=()) for c in listed(self).companies)
        ),
    )
    soup = _soup(usuario.get("/dgi/"))
    assert soup.find("select", id="contexto") is None
    assert soup.find("input", id="idEmpresa")["value"] == "1" and soup.find("input", id="idCertificado")
    problem = _testid(_soup(usuario.get(f"/dgi/rut?rut={data.DEMO_RUT}")), "dgi-problem")
    assert "Falta elegir el certificado" in problem.get_text()

    token = _csrf(usuario)
    refused = usuario.post("/dgi/contexto", data={"idEmpresa": "2", "idCertificado": "2", "csrf_token": token})
    assert refused.status_code == 422 and "No pertenecés a esa empresa" in refused.get_data(as_text=True)
    chosen = usuario.post("/dgi/contexto", data={"idEmpresa": "1", "idCertificado": "1", "csrf_token": token})
    assert chosen.status_code == 303
    found = usuario.get(f"/dgi/rut?rut={data.DEMO_RUT}")
    assert found.status_code == 200 and _testid(_soup(found), "entity-name").get_text() == "DGI RUC PRUEBA NO CEDE"
    wrong = usuario.post("/dgi/contexto", data={"idEmpresa": "1", "idCertificado": "2", "csrf_token": token})
    assert wrong.status_code == 303
    refused = usuario.get(f"/dgi/rut?rut={data.DEMO_RUT}")
    assert refused.status_code == 404  # the service does not reveal another company's certificate
    assert "Elegí otros arriba" in _testid(_soup(refused), "dgi-problem").get_text()


# --- DGI failures ----------------------------------------------------------------------------------------


def test_an_unreachable_dgi_shows_a_retry_in_place_keeping_the_form(usuario, live_service, closed_port_url):
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=closed_port_url, DGI_TIMEOUT_SECONDS=2)
    url = f"/dgi/datos?rut={data.DEMO_RUT}"
    for headers in ({}, HTMX):
        answer = usuario.get(url, headers=headers)
        assert answer.status_code == 502
        soup = _soup(answer)
        problem = _testid(soup, "dgi-problem")
        assert "DGI no responde" in problem.get_text()
        retry = problem.find("a", string="Reintentar")
        assert retry["href"] == url and retry["hx-get"] == url
        assert soup.find("input", id="rut")["value"] == data.DEMO_RUT
    assert "HX-Retarget" not in answer.headers  # in the results area, not the page's alert region


def test_use_as_receiver_with_dgi_down_retries_with_a_plain_link(usuario, live_service, closed_port_url):
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=closed_port_url)
    answer = usuario.get(f"/dgi/receptor?rut={data.DGI_CEDE_RUT}")
    assert answer.status_code == 502
    retry = _testid(_soup(answer), "dgi-problem").find("a", string="Reintentar")
    assert retry["href"] == f"/dgi/receptor?rut={data.DGI_CEDE_RUT}" and not retry.has_attr("hx-get")


def test_a_slow_dgi_is_a_504_with_a_retry(usuario, live_service, slow_standin):
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=slow_standin, DGI_TIMEOUT_SECONDS=0.3)
    answer = usuario.get(f"/dgi/rut?rut={data.DEMO_RUT}", headers=HTMX)
    assert answer.status_code == 504
    assert "no respondió a tiempo" in _testid(_soup(answer), "dgi-problem").get_text()


def test_a_lookup_dgi_does_not_offer_is_explained(usuario, live_service, closed_port_url):
    live_service.app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=closed_port_url)
    answer = usuario.get(f"/dgi/cva?rut={data.DEMO_RUT}")
    assert answer.status_code == 501
    problem = _testid(_soup(answer), "dgi-problem")
    assert "DGI no ofrece esta consulta" in problem.get_text() and problem.find("a", string="Reintentar") is None


def test_the_service_down_is_still_the_portals_503(usuario, live_service):
    live_service.stop()
    assert usuario.get(f"/dgi/rut?rut={data.DEMO_RUT}").status_code == 503


# --- English ---------------------------------------------------------------------------------------------


def test_the_page_in_english(usuario):
    with usuario.session_transaction() as session:
        session["lang"] = "en"
    soup = _soup(usuario.get(f"/dgi/cva?rut={data.EXPIRED_CVA_RUT}"))
    assert soup.find("h1").get_text() == "DGI lookups"
    assert _testid(soup, "cva-state").get_text() == "EXPIRED"
    assert [a.get_text(strip=True) for a in soup.select("nav.dgi-tabs a")] == [
        "RUT",
        "Name by document",
        "CVA",
        "Entity data",
    ]
    hint = usuario.get("/dgi/validar-documento?tipoDoc=2&rut=219999830018").get_data(as_text=True)
    assert "check digit" in hint
