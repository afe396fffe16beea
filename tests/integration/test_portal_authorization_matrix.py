"""Who may open what in the portal: every route of its url_map, for anonymous visitors, each role, and a
user of another company. A route missing from the tables below fails the test until it is classified."""

from __future__ import annotations

import re

import pytest
import requests
from flask import session
from flask_wtf.csrf import generate_csrf

from tests.integration.test_authorization_matrix import OTHER_COMPANY_EMAIL, _add_other_company_user
from tests.support import cfe_bodies as bodies
from tests.support.html import csrf as _csrf

PUBLIC = {
    "main.home",
    "auth.login",
    "auth.callback",
    "auth.logout",
    "main.healthz",
    "main.switch_language",
    "main.choose_language",
    "static",
}
ANY_ROLE = {
    "main.day_summary",
    "main.switch_company",
    "comprobantes.index",
    "comprobantes.lookup",
    "comprobantes.export",
    "comprobantes.export_xml",
    "correo.panel",
    "correo.history",
    "envios.state_badge",
    "envios.state_panel",
    "envios.contingency",
    "envios.dgi_notice",
    "comprobantes.receipt",
    "comprobantes.receipt_pdf",
    "comprobantes.receipt_xml",
    "dgi.index",
    "dgi.rut",
    "dgi.nombre",
    "dgi.cva",
    "dgi.datos",
    "dgi.validate_document",
    "dgi.contexto",
    "inteligente.index",
    "inteligente.status",
    "avisos.index",
    "avisos.bell",
    "avisos.health",
    "avisos.read",
    "avisos.read_all",
    "informes.index",
    "informes.book",
    "informes.summary_pdf",
    "cotizaciones.index",
    "clientes.index",
    "clientes.card",
    "productos.index",
    "recibidos.index",
    "recibidos.csv",
    "recibidos.xml_zip",
    "recibidos.detail",
    "recibidos.pdf",
    "recibidos.xml",
    "recibidos.answer",
    "recibidos.unreceived_mail",
}
WRITERS = {
    "clientes.new",
    "clientes.update",
    "productos.new",
    "productos.edit",
    "productos.remove",
    "productos.import_list",
    "comprobantes.reference",
    "comprobantes.new",
    "comprobantes.preview",
    "comprobantes.preview_pdf",
    "comprobantes.change_type",
    "comprobantes.add_line",
    "comprobantes.remove_line",
    "comprobantes.document_check",
    "comprobantes.receiver_suggestions",
    "comprobantes.product_suggestions",
    "comprobantes.exchange_rate",
    "comprobantes.sign",
    "dgi.receptor",
    "inteligente.new",
    "inteligente.preview",
    "inteligente.edit_lines",
    "inteligente.document_hint",
    "inteligente.review",
    "inteligente.preview_pdf",
    "inteligente.confirm",
    "inteligente.repeat",
    "inteligente.result",
    "comprobantes.note",
    "comprobantes.copy",
    "comprobantes.cancel",
    "comprobantes.cancel_rest",
    "correo.send",
    "comprobantes.correct",
    "comprobantes.correct_contingency",
    "recibidos.upload",
    "recibidos.accept",
    "recibidos.reject",
    "recibidos.book",
    "recibidos.book_many",
    "recibidos.book_matching",
    "recibidos.reject_many_question",
    "recibidos.reject_many",
    "comprobantes.retry_exchange",
}
ADMIN_OR_SUPPORT = {
    "apikeys.index",
    "correo.mailbox",
    "correo.message",
    "correo.attachment",
    "envios.index",
    "envios.waiting",
    "envios.dgi_banner",
    "envios.envelope_document",
    "envios.report_document",
    "empresa.audit",
}
ADMIN = {
    "apikeys.create",
    "apikeys.revoke",
    "apikeys.rate_limit",
    "empresa.settings",
    "empresa.branches",
    "empresa.branch",
    "empresa.retire_branch",
    "empresa.retire_certificate",
    "empresa.mail",
    "empresa.people",
    "empresa.member_role",
    "empresa.remove_member",
    "empresa.logo",
    "empresa.remove_logo",
    "empresa.logo_image",
    "empresa.certificates",
    "empresa.cae",
    "empresa.contingency",
    "empresa.void_paper_numbers",
    "empresa.remove_contingency_book",
    "envios.void",
    "envios.send_report",
    "envios.retry_envelope",
    "webhooks.index",
    "webhooks.create",
    "webhooks.detail",
    "webhooks.update",
    "webhooks.test",
    "webhooks.deliveries",
    "webhooks.rotate",
    "webhooks.toggle",
    "webhooks.delete",
}
ALLOWED = {
    **dict.fromkeys(ANY_ROLE, {"admin", "usuario", "soporte"}),
    **dict.fromkeys(WRITERS, {"admin", "usuario"}),
    **dict.fromkeys(ADMIN_OR_SUPPORT, {"admin", "soporte"}),
    **dict.fromkeys(ADMIN, {"admin"}),
}
EMAILS = {"admin": "admin@demo.uy", "usuario": "usuario@demo.uy", "soporte": "soporte@demo.uy"}
RECEIPT_PAGES = {"comprobantes.receipt", "comprobantes.receipt_pdf", "comprobantes.receipt_xml"}


def _routes(app) -> list[tuple[str, str, str]]:
    routes = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            routes.append((rule.endpoint, method, rule.rule))
    return routes


def _url(rule: str, receipt_id: str) -> str:
    url = re.sub(r"<int:\w+>", "1", rule.replace("<receipt_id>", receipt_id))
    url = re.sub(r"<any\((\w+)[^>]*>", r"\1", url)  # an any() converter: its first choice
    return re.sub(r"<(?:\w+:)?\w+>", "x", url)


@pytest.fixture
def receipt_of_company_one(live_service, live_token_for) -> str:
    answer = requests.post(
        live_service.url + "/api/v1/comprobante/emitir",
        json=bodies.body(bodies.ETICKET),
        headers={"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["idCfeEmitido"]


def test_every_portal_route_is_classified(portal_app):
    unclassified = {endpoint for endpoint, _, _ in _routes(portal_app)} - PUBLIC - set(ALLOWED)
    assert not unclassified, "say who may use these routes in the tables above"


def _anonymous_csrf(portal_app, client) -> str:
    """A valid CSRF token in an anonymous visitor's session: the pages show anonymous visitors none (it would
    store a session per page view), so it is made here, to prove that sign-in, not CSRF, stops the request."""
    with portal_app.test_request_context():
        token = generate_csrf()
        secret = session["csrf_token"]
    with client.session_transaction() as anonymous:
        anonymous["csrf_token"] = secret
    return token


def test_anonymous_visitors_reach_only_public_routes(portal_app, portal_client):
    token = _anonymous_csrf(portal_app, portal_client)
    for endpoint, method, rule in _routes(portal_app):
        if endpoint in PUBLIC:
            continue
        answer = portal_client.open(_url(rule, "x"), method=method, data={"csrf_token": token})
        assert answer.status_code == 302 and "/auth/login" in answer.headers["Location"], (endpoint, method)


@pytest.mark.parametrize("role", ["admin", "usuario", "soporte"])
def test_each_role_reaches_exactly_its_routes(portal_app, signed_in, role, receipt_of_company_one):
    client = signed_in(EMAILS[role])
    token = _csrf(client)
    for endpoint, method, rule in _routes(portal_app):
        if endpoint in PUBLIC:
            continue
        answer = client.open(
            _url(rule, receipt_of_company_one), method=method, data={"csrf_token": token, "company_id": "1"}
        )
        if role in ALLOWED[endpoint]:
            assert answer.status_code != 403 and "/auth/login" not in answer.headers.get("Location", ""), (
                endpoint,
                method,
                answer.status_code,
            )
        else:
            assert answer.status_code == 403, (endpoint, method, answer.status_code)


def test_a_user_of_another_company_gets_404_for_company_one_receipts(
    portal_app, signed_in, live_service, receipt_of_company_one
):
    _add_other_company_user(live_service.app)
    client = signed_in(OTHER_COMPANY_EMAIL)
    for endpoint, method, rule in _routes(portal_app):
        if endpoint in RECEIPT_PAGES:
            answer = client.open(_url(rule, receipt_of_company_one), method=method)
            assert answer.status_code == 404, (endpoint, answer.status_code)
    page = client.get("/comprobantes/").get_data(as_text=True)
    assert receipt_of_company_one not in page
    assert client.post("/empresa", data={"csrf_token": _csrf(client), "company_id": "1"}).status_code == 403
