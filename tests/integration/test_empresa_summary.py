"""GET /empresa/resumen: today's receipts and totals, the DGI states, CAE ranges and certificates with their
warnings, for every role and always within the caller's company."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from sqlalchemy import delete, update

from portal.domain.uruguay_time import MONTEVIDEO, today_montevideo
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe
from portal.service.empresa.models import Branch, CompanySettings
from portal.service.platform import db
from portal.service.platform.models import Certificate, Company
from tests.support import cfe_bodies as bodies
from tests.support.certificates import expiring_in

SUMMARY = "/api/v1/empresa/resumen"
IN_DOLLARS = {"tpoMoneda": "USD", "tpoCambio": "40"}


@pytest.fixture
def usuario(auth_headers):
    return auth_headers("usuario@demo.uy", 1)


def _set(service_app, model, where, **values):
    with service_app.app_context():
        db.session().execute(update(model).where(*where).values(**values))
        db.session().commit()


def test_today_counts_and_totals_by_type_and_currency_of_the_company_only(
    api_client, auth_headers, usuario, service_app
):
    tickets = [bodies.issue(api_client, usuario, bodies.body(bodies.ETICKET)) for _ in range(2)]
    invoice = bodies.issue(api_client, usuario, {**bodies.body(bodies.EFACTURA), **IN_DOLLARS})
    credit = bodies.issue(api_client, usuario, bodies.note(102, 101, tickets[0]["serie"], tickets[0]["nro"]))
    yesterday = bodies.issue(api_client, usuario, bodies.body(bodies.ETICKET))
    _set(
        service_app,
        IssuedCfe,
        [IssuedCfe.id == yesterday["idCfeEmitido"]],
        fch_emis=today_montevideo() - timedelta(days=1),
    )
    bodies.issue(api_client, auth_headers("admin@demo.uy", 2), bodies.body(bodies.ETICKET))  # another company

    answer = api_client.get(SUMMARY, headers=usuario)
    assert answer.status_code == 200, answer.json
    today = answer.json["hoy"]
    assert today["fecha"] == today_montevideo().isoformat() and today["cantidad"] == 4

    def paid(receipt):
        return float(receipt["totales"]["mntPagar"])

    assert [(t["tipoCFE"], t["moneda"], t["cantidad"], float(t["total"])) for t in today["porTipo"]] == [
        (101, "UYU", 2, 2 * paid(tickets[0])),
        (102, "UYU", 1, paid(credit)),
        (111, "USD", 1, paid(invoice)),
    ]
    by_currency = {t["moneda"]: (t["cantidad"], float(t["neto"])) for t in today["porMoneda"]}
    assert by_currency == {"UYU": (3, 2 * paid(tickets[0]) - paid(credit)), "USD": (1, paid(invoice))}


def test_dgi_states_waiting_rejected_and_the_latest_rejected(api_client, auth_headers, usuario, service_app):
    issued = [bodies.issue(api_client, usuario, bodies.body(bodies.ETICKET)) for _ in range(6)]
    states = ["aceptado", "rechazado", "sobre_rechazado", "observado", "en_sobre", "pendiente"]
    for receipt, state in zip(issued, states, strict=True):
        _set(service_app, IssuedCfe, [IssuedCfe.id == receipt["idCfeEmitido"]], dgi_status=state)
    other = bodies.issue(api_client, auth_headers("admin@demo.uy", 2), bodies.body(bodies.ETICKET))
    _set(service_app, IssuedCfe, [IssuedCfe.id == other["idCfeEmitido"]], dgi_status="rechazado")

    dgi = api_client.get(SUMMARY, headers=usuario).json["dgi"]
    assert {s["estado"]: s["cantidad"] for s in dgi["porEstado"]} == {state: 1 for state in states}
    assert dgi["enEspera"] == 3  # sobre_rechazado, en_sobre, pendiente
    assert dgi["rechazados"] == 2
    latest = {r["id"]: r for r in dgi["ultimosRechazados"]}
    assert set(latest) == {issued[1]["idCfeEmitido"], issued[2]["idCfeEmitido"]}  # never Del Norte's
    first = latest[issued[1]["idCfeEmitido"]]
    assert (first["tipoCFE"], first["serie"], first["nro"], first["estado"]) == (
        101,
        issued[1]["serie"],
        issued[1]["nro"],
        "rechazado",
    )


def _cae_of(api_client, headers, tipo):
    return next(r for r in api_client.get(SUMMARY, headers=headers).json["cae"] if r["tipoCFE"] == tipo)


def test_cae_warns_under_ten_percent_left_and_within_thirty_days(api_client, usuario, service_app):
    ticket_range = [CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101]
    size = 100_000  # the demo ranges: numbers 1 to 100.000
    _set(service_app, CaeRangeRecord, ticket_range, next_nro=size - size // 10 + 1)  # exactly 10 % left
    assert _cae_of(api_client, usuario, 101)["restantes"] == size // 10
    assert _cae_of(api_client, usuario, 101)["avisos"] == []
    _set(service_app, CaeRangeRecord, ticket_range, next_nro=size - size // 10 + 2)
    assert _cae_of(api_client, usuario, 101)["avisos"] == ["pocos_numeros"]

    invoice_range = [CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 111]
    _set(service_app, CaeRangeRecord, invoice_range, vencimiento=today_montevideo() + timedelta(days=30))
    assert _cae_of(api_client, usuario, 111)["avisos"] == []
    _set(service_app, CaeRangeRecord, invoice_range, vencimiento=today_montevideo() + timedelta(days=29))
    shown = _cae_of(api_client, usuario, 111)
    assert shown["avisos"] == ["por_vencer"] and shown["diasRestantes"] == 29


def test_exhausted_and_expired_types_are_named_and_not_listed(api_client, usuario, service_app):
    _set(
        service_app,
        CaeRangeRecord,
        [CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101],
        next_nro=CaeRangeRecord.hnro + 1,
    )
    _set(
        service_app,
        CaeRangeRecord,
        [CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 111],
        vencimiento=today_montevideo() - timedelta(days=1),
    )
    summary = api_client.get(SUMMARY, headers=usuario).json
    assert summary["tiposSinCae"] == [101, 111]
    assert not {101, 111} & {r["tipoCFE"] for r in summary["cae"]}


def test_certificate_days_left_and_por_vencer_within_thirty_days(api_client, usuario, service_app):
    def certificate():
        found = api_client.get(SUMMARY, headers=usuario).json["certificados"]
        assert len(found) == 1  # Demo S.A.'s only, not Del Norte's
        return found[0]["diasRestantes"], found[0]["estado"]

    _set(service_app, Certificate, [Certificate.company_id == 1], not_after=expiring_in(30))
    assert certificate() == (30, "vigente")
    _set(service_app, Certificate, [Certificate.company_id == 1], not_after=expiring_in(29))
    assert certificate() == (29, "por_vencer")
    # Counted by Uruguay's calendar, as the compliance watch counts (and its notice says): at one minute past
    # midnight 12 days from now is 12 days away, not the 11 whole days of 24 hours there are until then.
    early = datetime.combine(today_montevideo() + timedelta(days=12), time(0, 1), tzinfo=MONTEVIDEO)
    _set(service_app, Certificate, [Certificate.company_id == 1], not_after=early)
    assert certificate() == (12, "por_vencer")


def _without_legend(session):
    session.execute(
        update(CompanySettings).where(CompanySettings.company_id == 1).values(resolucion=None, fecha_emisor=None)
    )


def _without_address(session):
    session.execute(delete(Branch).where(Branch.company_id == 1))
    session.execute(update(Company).where(Company.id == 1).values(domicilio_fiscal="", ciudad="", departamento=""))


def _without_certificate(session):
    session.execute(
        update(Certificate).where(Certificate.company_id == 1).values(not_after=datetime.now(UTC) - timedelta(days=1))
    )


def _without_cae(session):
    session.execute(
        update(CaeRangeRecord)
        .where(CaeRangeRecord.company_id == 1)
        .values(vencimiento=today_montevideo() - timedelta(days=1))
    )


MISSING = {
    "sin_resolucion_ni_fecha_emisor": _without_legend,
    "sin_domicilio": _without_address,
    "sin_certificado": _without_certificate,
    "sin_cae": _without_cae,
}


def test_the_demo_companies_have_nothing_left_to_set_up(api_client, auth_headers, usuario):
    assert api_client.get(SUMMARY, headers=usuario).json["pendientes"] == []  # Res. 1516/2021
    assert api_client.get(SUMMARY, headers=auth_headers("admin@demo.uy", 2)).json["pendientes"] == []  # Fecha emisor


@pytest.mark.parametrize("code", list(MISSING))
def test_what_is_left_to_set_up_is_named(api_client, auth_headers, usuario, service_app, code):
    assert api_client.get(SUMMARY, headers=usuario).json["pendientes"] == []  # read (and kept) complete first
    with service_app.app_context():
        MISSING[code](db.session())
        db.session().commit()
    assert api_client.get(SUMMARY, headers=usuario).json["pendientes"] == [code]
    assert api_client.get(SUMMARY, headers=auth_headers("admin@demo.uy", 2)).json["pendientes"] == []


def test_a_company_missing_everything_is_told_each_in_the_order_of_the_empresa_pages(api_client, usuario, service_app):
    with service_app.app_context():
        for take_away in MISSING.values():
            take_away(db.session())
        db.session().commit()
    assert api_client.get(SUMMARY, headers=usuario).json["pendientes"] == [
        "sin_resolucion_ni_fecha_emisor",
        "sin_domicilio",
        "sin_certificado",
        "sin_cae",
    ]


def test_a_fix_through_the_api_is_seen_at_once(api_client, auth_headers, usuario, service_app):
    with service_app.app_context():
        _without_legend(db.session())
        db.session().commit()
    assert api_client.get(SUMMARY, headers=usuario).json["pendientes"] == ["sin_resolucion_ni_fecha_emisor"]
    admin = auth_headers("admin@demo.uy", 1)
    fixed = api_client.put(
        "/api/v1/empresa/configuracion",
        json={"regimen": "general", "fechaEmisor": "2021-03-01", "ivaAlDia": True, "formatoPapel": "a4"},
        headers=admin,
    )
    assert fixed.status_code == 200, fixed.json
    assert api_client.get(SUMMARY, headers=usuario).json["pendientes"] == []


@pytest.mark.parametrize("email", ["admin@demo.uy", "soporte@demo.uy", "usuario@demo.uy"])
def test_every_role_reads_it(api_client, auth_headers, email):
    answer = api_client.get(SUMMARY, headers=auth_headers(email, 1))
    assert answer.status_code == 200
    assert answer.json["hoy"]["cantidad"] == 0 and answer.json["dgi"]["enEspera"] == 0
    assert {r["tipoCFE"] for r in answer.json["cae"]} >= {101, 111}


def test_an_api_key_reads_it_and_no_credential_is_a_401(api_client, auth_headers):
    created = api_client.post("/api/v1/apikeys", json={"nombre": "Tablero"}, headers=auth_headers("admin@demo.uy", 1))
    answer = api_client.get(SUMMARY, headers={"X-API-Key": created.json["clave"]})
    assert answer.status_code == 200 and "RateLimit" in answer.headers
    refused = api_client.get(SUMMARY)
    assert refused.status_code == 401 and refused.json["error"]["message"]


def test_the_openapi_entry_has_an_example(api_client):
    document = api_client.get("/api/v1/openapi.json").json
    entry = document["paths"]["/api/v1/empresa/resumen"]["get"]
    assert {"200", "401", "403", "429", "500"} <= set(entry["responses"])
    assert document["components"]["schemas"]["SummaryOut"]["examples"][0]["hoy"]["porTipo"]
    pending = document["components"]["schemas"]["SummaryOut"]["properties"]["pendientes"]
    assert set(pending["items"]["enum"]) == set(MISSING) and "emisor_sin_domicilio" in pending["description"]
