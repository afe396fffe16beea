"""The "Envíos a DGI" page through the real sign-in and a live service: who may see it and act, what it lists
(envelopes with DGI's acknowledgement, receipts waiting and why, daily reports, voided ranges), late items
flagged, and the admin's form to void unused numbers (errors kept next to the fields, voided once)."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from portal.domain.uruguay_time import today_montevideo
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain
from tests.support.html import soup

HTMX = {"HX-Request": "true"}


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def issue_api(live_service, live_token_for):
    client = live_service.app.test_client()
    return lambda body: bodies.issue(client, {"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"}, body)


def void_form(page: BeautifulSoup, **fields) -> dict:
    form = page.select_one("#void-numbers form")
    data = {i["name"]: i.get("value", "") for i in form.find_all("input") if i.get("type") != "checkbox"}
    return {**data, "tipo_cfe": "181", **fields}


def rows(page: BeautifulSoup, testid: str) -> list[str]:
    table = page.find(attrs={"data-testid": testid})
    return [tr.get_text(" ", strip=True) for tr in table.select("tbody tr")] if table else []


@pytest.mark.parametrize(
    ("email", "status", "has_form"),
    [("usuario@demo.uy", 403, False), ("soporte@demo.uy", 200, False), ("admin@demo.uy", 200, True)],
)
def test_support_and_admins_see_the_page_only_admins_void(signed_in, email, status, has_form):
    client = signed_in(email)
    answer = client.get("/envios/")
    assert answer.status_code == status
    if status == 200:
        page = soup(answer)
        assert page.h1.get_text(strip=True) == "Envíos a DGI"
        assert (page.select_one("#void-numbers form") is not None) == has_form
        assert page.find("a", href="/envios/") is not None  # the navigation entry
    else:
        assert soup(client.get("/")).find("a", href="/envios/") is None
    if email == "soporte@demo.uy":
        token = soup(client.get("/"))("input", {"name": "csrf_token"})[0]["value"]
        data = {"tipo_cfe": "181", "motivo": "Talonario", "confirmar": "y", "csrf_token": token}
        assert client.post("/envios/anular", data=data).status_code == 403


def test_the_page_lists_envelopes_waiting_receipts_and_numbers_voided_by_a_rejection(
    signed_in, issue_api, live_service
):
    accepted = issue_api(bodies.body(bodies.EFACTURA))
    rejected_body = bodies.body(bodies.EFACTURA)
    rejected_body["receptor"] = {**rejected_body["receptor"], "rznSocRecep": f"X {REJECT_MARKER}E09"}
    rejected = issue_api(rejected_body)
    drain(live_service.app)
    waiting = issue_api(bodies.body(bodies.EFACTURA))  # not sent yet
    page = soup(signed_in("soporte@demo.uy").get("/envios/"))

    (envelope,) = rows(page, "envelopes")
    assert "Sob_219999830019_" in envelope and "Respondido sobre recibido (AS)" in envelope
    assert "Aceptados: 1 · rechazados: 1" in envelope
    (pending,) = rows(page, "waiting")
    assert f"e-Factura A-{waiting['nro']:07d}" in pending and "Pendiente de envío a DGI" in pending
    (voided,) = rows(page, "voided")
    assert f"e-Factura A {rejected['nro']}" in voided and "Rechazado por DGI" in voided and "E09" in voided
    assert accepted["nro"] != rejected["nro"]
    assert page.find(attrs={"data-testid": "overdue-summary"}) is None


def test_a_receipt_waiting_longer_than_expected_is_flagged(signed_in, issue_api, live_service):
    issue_api(bodies.body(bodies.EFACTURA))
    live_service.app.config["ENVIOS_OVERDUE_MINUTES"] = 0
    page = soup(signed_in("admin@demo.uy").get("/envios/"))
    row = page.select_one("[data-testid=waiting] tbody tr")
    assert row["data-overdue"] == "true" and row.find(attrs={"data-testid": "overdue"}).get_text() == "Demorado"
    assert "1 envío lleva más de lo esperado" in page.find(attrs={"data-testid": "overdue-summary"}).get_text()


def test_the_admin_voids_unused_numbers_once_and_sees_them_listed(signed_in):
    admin = signed_in("admin@demo.uy")
    data = void_form(soup(admin.get("/envios/")), cantidad="2", motivo="Talonario dañado", confirmar="y")
    answer = admin.post("/envios/anular", data=data)
    assert answer.status_code == 303 and answer.headers["Location"] == "/envios/"
    again = admin.post("/envios/anular", data=data)  # the browser resends the same form
    assert again.status_code == 303
    page = soup(admin.get("/envios/"))
    (voided,) = rows(page, "voided")
    assert "e-Remito A 1–2" in voided and "Anulado por un administrador" in voided and "Talonario dañado" in voided
    assert "Anulaste los números 1 a 2 (serie A) de e-Remito." in page.get_text(" ", strip=True)


def test_one_number_voided_is_said_as_one_in_both_languages(signed_in):
    admin = signed_in("admin@demo.uy")
    data = void_form(soup(admin.get("/envios/")), cantidad="1", motivo="Talonario dañado", confirmar="y")
    assert admin.post("/envios/anular", data=data).status_code == 303
    assert "Anulaste el número 1 (serie A) de e-Remito." in soup(admin.get("/envios/")).get_text(" ", strip=True)
    admin.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": data["csrf_token"]})
    data = void_form(soup(admin.get("/envios/")), cantidad="1", motivo="Talonario dañado", confirmar="y")
    assert admin.post("/envios/anular", data=data).status_code == 303
    assert "You voided number 2 (series A) of e-Remito." in soup(admin.get("/envios/")).get_text(" ", strip=True)


def test_a_void_form_with_problems_comes_back_with_them_next_to_the_fields_and_the_input_kept(signed_in):
    admin = signed_in("admin@demo.uy")
    data = void_form(soup(admin.get("/envios/")), cantidad="0", serie="a", motivo="")
    answer = admin.post("/envios/anular", data=data, headers=HTMX)
    fragment = soup(answer)
    assert answer.status_code == 422 and fragment.find("html") is None
    assert fragment.select_one("#cantidad-error").get_text() == "Entre 1 y 1.000.000."
    assert fragment.select_one("#motivo-error").get_text() == "Indicá el motivo."
    assert "Confirmá que querés anularlos." in fragment.get_text()
    assert fragment.select_one("#cantidad")["value"] == "0" and fragment.select_one("#serie")["value"] == "A"
    # The service's own refusal lands next to its field too: more numbers than the CAE has left.
    data = void_form(fragment, cantidad="999999", motivo="Demasiados", confirmar="y")
    refused = soup(admin.post("/envios/anular", data=data, headers=HTMX))
    assert refused.select_one("#cantidad-error") is not None
    assert rows(soup(admin.get("/envios/")), "voided") == []


def test_each_company_sees_its_own_submissions(signed_in, issue_api, live_service):
    issue_api(bodies.body(bodies.EFACTURA))
    drain(live_service.app)
    admin = signed_in("admin@demo.uy")
    assert len(rows(soup(admin.get("/envios/")), "envelopes")) == 1
    token = soup(admin.get("/"))("input", {"name": "csrf_token"})[0]["value"]
    assert admin.post("/empresa", data={"company_id": "2", "csrf_token": token}).status_code == 303
    page = soup(admin.get("/envios/"))
    assert rows(page, "envelopes") == [] and "Todavía no se envió ningún sobre." in page.get_text()


def test_the_page_and_the_badge_speak_english(signed_in, issue_api, live_service):
    receipt_id = issue_api(bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    drain(live_service.app)
    admin = signed_in("admin@demo.uy")
    token = soup(admin.get("/"))("input", {"name": "csrf_token"})[0]["value"]
    admin.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    page = soup(admin.get("/envios/"))
    assert page.h1.get_text(strip=True) == "Submissions to DGI"
    assert page.find("label", attrs={"for": "motivo"}).get_text(strip=True) == "Reason"
    badge = soup(admin.get(f"/envios/estado/{receipt_id}")).find(attrs={"data-testid": "dgi-state"})
    assert badge.get_text(strip=True) == "Accepted by DGI"


def test_the_reason_of_a_number_voided_by_dgis_rejection_is_english_on_the_english_page(
    signed_in, issue_api, live_service
):
    """It was kept as its Spanish sentence alone and listed so on the English page."""
    rejected_body = bodies.body(bodies.EFACTURA)
    rejected_body["receptor"] = {**rejected_body["receptor"], "rznSocRecep": f"X {REJECT_MARKER}E09"}
    issue_api(rejected_body)
    drain(live_service.app)
    admin = signed_in("admin@demo.uy")
    (voided,) = rows(soup(admin.get("/envios/")), "voided")
    assert "Comprobante anulado por rechazo de DGI (E09)" in voided
    token = soup(admin.get("/"))("input", {"name": "csrf_token"})[0]["value"]
    admin.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    (voided,) = rows(soup(admin.get("/envios/")), "voided")
    assert "Receipt voided by DGI's rejection (E09)" in voided and "Comprobante anulado" not in voided


def test_the_admin_sends_a_days_report_now_and_sees_dgis_answer(signed_in, issue_api, live_service):
    issue_api(bodies.body(bodies.ETICKET))
    admin = signed_in("admin@demo.uy")
    form = soup(admin.get("/envios/")).select_one("#send-report")
    data = {i["name"]: i.get("value", "") for i in form.find_all("input")}
    assert data["fecha"]  # today, by default
    future = admin.post("/envios/reporte", data={**data, "fecha": "2999-01-01"}, headers=HTMX)
    assert future.status_code == 422
    assert soup(future).select_one("#fecha-error").get_text() == "El día todavía no ocurrió."
    answer = admin.post("/envios/reporte", data=data)
    assert answer.status_code == 303
    drain(live_service.app)
    page = soup(admin.get("/envios/"))
    (report,) = rows(page, "reports")
    assert "Recibido por DGI reporte recibido (AR)" in report and "admin@demo.uy" in report
    assert "Enviaste el reporte diario del" in page.get_text()
    assert soup(signed_in("soporte@demo.uy").get("/envios/")).select_one("#send-report") is None


def test_the_admin_retries_an_envelope_in_error_and_it_reaches_dgi(signed_in, issue_api, live_service):
    from sqlalchemy import update

    from portal.service.envios import sending
    from portal.service.envios.models import DgiEnvelope
    from portal.service.platform import db

    receipt = issue_api(bodies.body(bodies.EFACTURA))
    with live_service.app.app_context():  # packed, then a delivery that failed for good (say, a renewed cert)
        (envelope_id,) = sending.pack(1)
        db.session().execute(
            update(DgiEnvelope)
            .where(DgiEnvelope.id == envelope_id)
            .values(state="error", last_error="Certificado rechazado")
        )
        db.session().commit()
    admin = signed_in("admin@demo.uy")
    page = soup(admin.get("/envios/"))
    assert "Con error: revisar" in rows(page, "envelopes")[0] and "Certificado rechazado" in rows(page, "envelopes")[0]
    assert soup(signed_in("soporte@demo.uy").get("/envios/")).find(attrs={"data-testid": "retry-envelope"}) is None
    action = page.find(attrs={"data-testid": "retry-envelope"}).find_parent("form")
    token = action.find("input", attrs={"name": "csrf_token"})["value"]
    assert admin.post(action["action"], data={"csrf_token": token}).status_code == 303
    drain(live_service.app)
    page = soup(admin.get("/envios/"))
    assert "Reintentaste el sobre Nº 1." in page.get_text() and "Respondido" in rows(page, "envelopes")[0]
    assert page.find(attrs={"data-testid": "retry-envelope"}) is None
    again = admin.post(action["action"], data={"csrf_token": token})  # nothing left to retry: said, not a 500
    assert again.status_code == 303
    assert "no hay nada que reintentar" in soup(admin.get("/envios/")).get_text()
    badge = soup(admin.get(f"/envios/estado/{receipt['idCfeEmitido']}")).find(attrs={"data-testid": "dgi-state"})
    assert badge["data-state"] == "aceptado"


def test_the_waiting_section_refreshes_itself_while_receipts_wait_and_stops_when_none_do(
    signed_in, issue_api, live_service
):
    issue_api(bodies.body(bodies.EFACTURA))
    soporte = signed_in("soporte@demo.uy")
    section = soup(soporte.get("/envios/")).find(attrs={"data-testid": "waiting-section"})
    assert (section["hx-get"], section["hx-trigger"]) == ("/envios/pendientes", "every 10s")
    drain(live_service.app)
    fragment = soporte.get("/envios/pendientes", headers=HTMX)
    answer = soup(fragment)
    assert fragment.status_code == 200 and answer.find("html") is None
    section = answer.find(attrs={"data-testid": "waiting-section"})
    assert not section.has_attr("hx-get") and "Ningún comprobante espera respuesta de DGI." in section.get_text()
    assert soup(soporte.get("/envios/pendientes")).h1.get_text(strip=True) == "Envíos a DGI"  # a page without htmx
    assert signed_in("usuario@demo.uy").get("/envios/pendientes").status_code == 403


def test_each_envelope_report_and_acknowledgement_downloads_from_the_page(signed_in, issue_api, live_service):
    issue_api(bodies.body(bodies.EFACTURA))
    drain(live_service.app)
    admin = signed_in("admin@demo.uy")
    token = soup(admin.get("/envios/"))("input", {"name": "csrf_token"})[0]["value"]
    today = today_montevideo().isoformat()
    sent = admin.post("/envios/reporte", data={"fecha": today, "csrf_token": token})
    assert sent.status_code in (302, 303), sent.status_code
    drain(live_service.app)
    support = signed_in("soporte@demo.uy")
    page = soup(support.get("/envios/"))
    assert page.find(attrs={"data-testid": "unverified-ack"}) is None  # the simulator's, verified
    links = {a["data-testid"]: a["href"] for a in page.select('[data-testid="envelopes"] .envios-documents a')}
    assert set(links) == {"document-sobre", "document-acuse", "document-respuesta"}
    for testid, root in (
        ("document-sobre", b"EnvioCFE"),
        ("document-acuse", b"ACKSobre"),
        ("document-respuesta", b"ACKCFE"),
    ):
        answer = support.get(links[testid])
        assert answer.status_code == 200 and answer.mimetype == "application/xml" and root in answer.data
        disposition = answer.headers["Content-Disposition"]
        assert disposition.startswith('attachment; filename="') and "/" not in disposition
    report = {a["data-testid"]: a["href"] for a in page.select('[data-testid="reports"] .envios-documents a')}
    assert set(report) == {"document-reporte", "document-acuse"}
    assert b"ACKRepDiario" in support.get(report["document-acuse"]).data
    assert signed_in("usuario@demo.uy").get(links["document-acuse"]).status_code == 403
    assert support.get(links["document-acuse"].replace("/acuse", "/otra")).status_code == 404


@pytest.fixture
def untrusted_acks(service_config, tmp_path):
    """DGI's trusted certificate set to one that did not sign the simulator's acknowledgements."""
    from portal.service.platform.certificates import generate_self_signed

    path = tmp_path / "dgi.pem"
    path.write_bytes(generate_self_signed("214844360018", "Otro DGI", days=30)[1])
    service_config["DGI_TRUSTED_CERT_PATH"] = str(path)


def test_an_acknowledgement_that_does_not_verify_is_flagged_on_the_page(
    untrusted_acks, signed_in, issue_api, live_service
):
    issue_api(bodies.body(bodies.EFACTURA))
    drain(live_service.app)
    page = soup(signed_in("soporte@demo.uy").get("/envios/"))
    flags = page.select('[data-testid="envelopes"] [data-testid="unverified-ack"]')
    assert len(flags) == 2  # the ACKSobre and the ACKCFE
    assert "no es la del certificado de DGI configurado" in rows(page, "envelopes")[0]


def test_each_list_pages_on_its_own_with_the_list_contract(signed_in, live_service, live_token_for, monkeypatch):
    from portal.client import CfeClient
    from portal.web.envios import overview

    monkeypatch.setattr(overview, "ROWS_SHOWN", 2)
    api = CfeClient(live_service.url).as_user(live_token_for("admin@demo.uy"), company_id=1)
    for key in ("page-a", "page-b", "page-c"):
        api.void_numbers(181, reason="Talonario dañado", count=1, idempotency_key=key)
    admin = signed_in("admin@demo.uy")
    first = soup(admin.get("/envios/"))
    assert len(rows(first, "voided")) == 2 and "Se muestran 2 de 3" in first.get_text(" ", strip=True)
    following = first.find("a", rel="next")["href"]
    assert following.startswith("/envios/?anulaciones=")
    second = soup(admin.get(following))
    (last,) = rows(second, "voided")
    assert last.startswith("e-Remito A 1 ")  # the oldest, after the two newest
    assert second.find("a", string="Primera página")["href"] == "/envios/"
    assert len(rows(soup(admin.get("/envios/?anulaciones=estropeado")), "voided")) == 2


def test_an_empty_cantidad_voids_nothing_and_offers_the_whole_rest_with_its_count(
    signed_in, live_service, live_token_for
):
    admin = signed_in("admin@demo.uy")
    data = void_form(soup(admin.get("/envios/")), cantidad="", motivo="Cierre del local", confirmar="y")
    answer = admin.post("/envios/anular", data=data, headers=HTMX)
    fragment = soup(answer)
    assert answer.status_code == 422
    assert "Indicá cuántos números anular" in fragment.select_one("#cantidad-error").get_text()
    assert rows(soup(admin.get("/envios/")), "voided") == []  # nothing voided behind the one checkbox
    rest = fragment.find(attrs={"data-testid": "void-rest"})
    assert "Anular todo el resto: 100.000 números (del 1 al 100000, serie A)" in rest.get_text(" ", strip=True)
    # Choosing it voids exactly the numbers it stated: the range's retirement, in the audit like its upload.
    data = {**void_form(fragment, cantidad="", motivo="Cierre del local", confirmar="y"), "resto": "y"}
    assert admin.post("/envios/anular", data=data).status_code == 303
    (voided,) = rows(soup(admin.get("/envios/")), "voided")
    assert "e-Remito A 1–100000" in voided
    from portal.client import CfeClient

    api = CfeClient(live_service.url).as_user(live_token_for("admin@demo.uy"), company_id=1)
    assert api.list_audit().items[0].action == "cae_dado_de_baja"
    audit = soup(admin.get("/empresa/auditoria")).get_text(" ", strip=True)
    assert "Dio de baja un CAE" in audit and "Anulados hasta" in audit and "100000" in audit


def test_a_report_refused_for_want_of_a_valid_certificate_says_so_next_to_the_day(signed_in, live_service):
    """The service refuses a day's report with 409 when the company has no valid signing certificate: the admin
    got the 502 "El servicio CFE respondió con un error" page, the day typed lost; now the form again (422) with
    why next to the day, and its value kept."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    admin = signed_in("admin@demo.uy")
    form = soup(admin.get("/envios/")).select_one("#send-report")
    data = {i["name"]: i.get("value", "") for i in form.find_all("input")}
    yesterday = (today_montevideo() - timedelta(days=1)).isoformat()
    with live_service.app.app_context():
        db.session().execute(update(Certificate).values(not_after=datetime.now(UTC) - timedelta(days=1)))
        db.session().commit()
    answer = admin.post("/envios/reporte", data={**data, "fecha": yesterday}, headers=HTMX)
    assert answer.status_code == 422
    page = soup(answer)
    assert "certificado de firma vigente" in page.select_one("#fecha-error").get_text()
    assert page.select_one("#send-report input[name=fecha]")["value"] == yesterday


def test_why_an_envelope_waits_is_english_on_the_english_page(signed_in, issue_api, live_service):
    """The envelope's last error was kept as its Spanish sentence alone and shown so on the English page."""
    from portal.service.envios import outage

    with live_service.app.app_context():
        outage.set_simulator_mode("caido")
    issue_api(bodies.body(bodies.EFACTURA))
    drain(live_service.app)
    admin = signed_in("admin@demo.uy")
    token = soup(admin.get("/"))("input", {"name": "csrf_token"})[0]["value"]
    admin.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})
    page = soup(admin.get("/envios/"))
    (envelope,) = rows(page, "envelopes")
    assert "Could not connect to DGI's service." in envelope
    assert "No se pudo conectar" not in page.get_text()
    assert re.match(r"No\. \d+ ", envelope) and "Nº" not in envelope, (
        envelope
    )  # the envelope's number, as English says it


def _in_english(admin) -> None:
    token = soup(admin.get("/"))("input", {"name": "csrf_token"})[0]["value"]
    admin.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": token})


def test_dgis_motives_of_an_envelope_and_of_what_waits_are_english_on_the_english_page(
    signed_in, issue_api, live_service, live_token_for
):
    """The envelope and waiting lists showed DGI's Spanish texts of its codes (stored as DGI's glosa) to an
    English reader; they are said by their code, and the glosa stays DGI's Spanish in the API's answer."""
    from sqlalchemy import update

    from portal.service.envios.models import DgiEnvelope, DgiSubmission
    from portal.service.envios.states import motive
    from portal.service.platform import db

    issue_api(bodies.body(bodies.EFACTURA))
    drain(live_service.app)
    with live_service.app.app_context():  # DGI refused the envelope: too big (S07)
        db.session().execute(update(DgiEnvelope).values(ack_state="BS", ack_motives=[motive("S07")]))
        db.session().execute(update(DgiSubmission).values(state="sobre_rechazado", motives=[motive("S07")]))
        db.session().commit()
    admin = signed_in("admin@demo.uy")
    (envelope,) = rows(soup(admin.get("/envios/")), "envelopes")
    assert "S07 Sobre enviado supera el tamaño máximo admitido" in envelope
    _in_english(admin)
    page = soup(admin.get("/envios/"))
    (envelope,) = rows(page, "envelopes")
    (waiting,) = rows(page, "waiting")
    for row in (envelope, waiting):
        assert "S07 The envelope is larger than the maximum size allowed" in row
    assert "Sobre enviado supera" not in page.get_text()
    token = live_token_for("admin@demo.uy")
    headers = {"Authorization": f"Bearer {token}", "X-Empresa-Id": "1", "Accept-Language": "en"}
    (listed,) = live_service.app.test_client().get("/api/v1/envios/sobres", headers=headers).json["items"]
    assert listed["motivos"] == [
        {
            "codigo": "S07",
            "glosa": "Sobre enviado supera el tamaño máximo admitido",
            "texto": "The envelope is larger than the maximum size allowed",
        }
    ]


def test_dgis_motive_of_a_refused_daily_report_is_english_on_the_english_page(signed_in, issue_api, live_service):
    """DGI's report codes (R01-R06) had no English: an English reader read «La secuencia indicada...»."""
    from sqlalchemy import update

    from portal.service.envios.models import DgiDailyReport
    from portal.service.envios.states import motive
    from portal.service.platform import db

    issue_api(bodies.body(bodies.ETICKET))
    admin = signed_in("admin@demo.uy")
    form = soup(admin.get("/envios/")).select_one("#send-report")
    assert admin.post("/envios/reporte", data={i["name"]: i.get("value", "") for i in form("input")}).status_code == 303
    drain(live_service.app)
    with live_service.app.app_context():  # DGI refused it: wrong sequence (R05)
        db.session().execute(update(DgiDailyReport).values(ack_state="BR", ack_motives=[motive("R05")]))
        db.session().commit()
    _in_english(admin)
    page = soup(admin.get("/envios/"))
    (report,) = rows(page, "reports")
    assert "R05 The sequence number given in the report is not correct" in report
    assert "La secuencia indicada" not in page.get_text()
