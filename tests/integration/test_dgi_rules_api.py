"""DGI's blocking rules through POST /emitir: each receipt DGI would reject is a 422 with its documented code
and takes no number; IVA-included totals match the shelf price; the UI of Tabla E comes from the table."""

from __future__ import annotations

import io
from datetime import timedelta
from decimal import Decimal

import pytest
from lxml import etree
from pdfminer.high_level import extract_text
from sqlalchemy import select

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import CaeRangeRecord
from portal.service.empresa.models import CompanySettings
from portal.service.indices.models import UiValue
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue as _issue

EMITIR = "/api/v1/comprobante/emitir"
GET = "/api/v1/comprobante/getByIdCfeEmitido"
NS = {"c": "http://cfe.dgi.gub.uy"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _counters(service_app) -> dict:
    with service_app.app_context():
        rows = db.session().scalars(select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1))
        return {row.id: row.next_nro for row in rows}


def _settings(service_app, **values) -> None:
    with service_app.app_context():
        session = db.session()
        row = session.get(CompanySettings, 1) or CompanySettings(company_id=1, formato_papel="a4")
        for name, value in {"regimen": "general", "iva_al_dia": True, **values}.items():
            setattr(row, name, value)
        session.add(row)
        session.commit()


def _refused(api_client, user, service_app, body: dict, field: str, code: str) -> dict:
    before = _counters(service_app)
    answer = api_client.post(EMITIR, json=body, headers=user)
    assert answer.status_code == 422, answer.json
    assert {"field": field, "code": code} in [
        {"field": f["field"], "code": f["code"]} for f in answer.json["error"]["fields"]
    ], answer.json
    assert _counters(service_app) == before  # no number was taken
    return answer.json["error"]


def _ticket(**fields) -> dict:
    return {**bodies.body(bodies.ETICKET), **fields}


def test_b_c11_a_zero_price_is_refused(api_client, user, service_app):
    body = _ticket()
    body["items"][0]["precioUnitario"] = "0"
    error = _refused(api_client, user, service_app, body, "items[0].precioUnitario", "must_be_positive")
    assert "mayor que 0" in error["fields"][0]["message"]


def test_a_c5_an_issue_date_beyond_60_days_is_refused(api_client, user, service_app):
    ahead = today_montevideo() + timedelta(days=61)
    error = _refused(api_client, user, service_app, _ticket(fchEmis=ahead.isoformat()), "fchEmis", "too_far_ahead")
    assert f"{today_montevideo() + timedelta(days=60):%d/%m/%Y}" in error["fields"][0]["message"]


def test_a_c5_1_a_fch_valor_of_a_later_month_is_refused(api_client, user, service_app):
    today = today_montevideo()
    next_month = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
    body = {**bodies.body(bodies.ERESGUARDO), "fchValor": next_month.isoformat()}
    _refused(api_client, user, service_app, body, "fchValor", "after_issue_month")


def test_a_c10_mnt_bruto_2_is_refused(api_client, user, service_app):
    _refused(api_client, user, service_app, _ticket(mntBruto=2), "mntBruto", "not_supported")


def test_b_c4_indicator_16_is_refused_for_a_general_issuer(api_client, user, service_app):
    body = _ticket()
    body["items"][0]["indFact"] = 16
    _refused(api_client, user, service_app, body, "items[0].indFact", "not_allowed_for_regime")


def test_a_c10_an_iva_minimo_issuer_must_send_mnt_bruto_3(api_client, user, service_app):
    _settings(service_app, regimen="iva_minimo")
    error = _refused(api_client, user, service_app, _ticket(), "mntBruto", "regime_requires_3")
    assert "IVA mínimo" in error["fields"][0]["message"]


def test_g_c5_mnt_bruto_3_with_an_ordinary_cae_takes_no_number(api_client, user, service_app):
    _settings(service_app, regimen="iva_minimo")
    body = {
        "tipoCFE": 101,
        "fmaPago": 1,
        "mntBruto": 3,
        "items": [{"indFact": 16, "nomItem": "Empanada", "cantidad": "3", "precioUnitario": "90"}],
    }
    # Checked by the engine once the CAE is known; the transaction rolls the number back.
    _refused(api_client, user, service_app, body, "caeData.caeEspecial", "required")


def test_an_iva_included_efactura_totals_exactly_13300_and_its_credit_note_2000(api_client, user):
    factura = _issue(
        api_client,
        user,
        {
            "tipoCFE": 111,
            "fmaPago": 2,
            "mntBruto": 1,
            "receptor": bodies.BUYER,
            "items": [
                {"indFact": 3, "nomItem": "Notebook", "cantidad": "1", "precioUnitario": "12000"},
                {"indFact": 2, "nomItem": "Libro", "cantidad": "3", "precioUnitario": "450", "descuentoMonto": "50"},
            ],
        },
    )
    assert factura["totales"]["mntTotal"] == factura["totales"]["mntPagar"] == "13300.00"
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": factura["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    assert etree.fromstring(xml).findtext(".//c:MntPagar", namespaces=NS) == "13300.00"
    pdf = api_client.get(
        GET, query_string={"idCfeEmitido": factura["idCfeEmitido"]}, headers={**user, "Accept": "application/pdf"}
    ).data
    printed = extract_text(io.BytesIO(pdf))
    assert "13.300,00" in printed and "13.300,01" not in printed
    note = bodies.note(112, 111, factura["serie"], factura["nro"])
    note.update(mntBruto=1, items=[{"indFact": 3, "nomItem": "Devolución", "cantidad": "1", "precioUnitario": "2000"}])
    assert _issue(api_client, user, note)["totales"]["mntTotal"] == "2000.00"


def test_a_c17_an_issuer_without_iva_al_dia_writes_it(api_client, user, service_app):
    _settings(service_app, iva_al_dia=False)
    receipt = _issue(api_client, user, _ticket())  # issuing checks CFEDGI.xsd
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).data
    assert etree.fromstring(xml).findtext(".//c:IVAalDia", namespaces=NS) == "1"


def test_the_ui_of_the_issue_year_comes_from_the_table(api_client, user, service_app):
    body = _ticket(items=[{"indFact": 1, "nomItem": "Exento", "cantidad": "1", "precioUnitario": "6000"}])
    del body["mntBruto"]
    assert api_client.post(EMITIR, json=body, headers=user).status_code == 201  # 6,000 < 5,000 UI x 6.4
    with service_app.app_context():
        session = db.session()
        session.merge(UiValue(year=today_montevideo().year, value=Decimal("1.0000"), source="test", verified=True))
        session.commit()
    _refused(api_client, user, service_app, body, "receptor", "required")  # now 6,000 > 5,000 UI x 1


def test_ui_value_command_sets_and_lists_a_year(service_app, service_config, monkeypatch):
    from click.testing import CliRunner

    from portal.service.__main__ import cli

    monkeypatch.setenv("CFE_DATABASE_URL", service_config["DATABASE_URL"])
    runner = CliRunner()
    result = runner.invoke(cli, ["ui-value", "set", "2031", "7,1234", "--source", "INE 31/12/2030"])
    assert result.exit_code == 0, result.output
    listing = runner.invoke(cli, ["ui-value", "list"])
    assert "2031  7.1234  INE 31/12/2030" in listing.output
    assert "2026" in listing.output and "(unverified)" in listing.output  # the seeded years
    assert runner.invoke(cli, ["ui-value", "set", "2031", "seis"]).exit_code == 1
    assert runner.invoke(cli, ["ui-value", "set", "2031", "6.12345"]).exit_code == 1
    with service_app.app_context():
        assert db.session().get(UiValue, 2031).value == Decimal("7.1234")


def test_every_openapi_example_of_emitir_issues_as_it_stands(api_client, user):
    from portal.service.cfe.model import CfeInput

    for example in CfeInput.model_config["json_schema_extra"]["examples"]:
        answer = api_client.post(EMITIR, json=example, headers=user)
        assert answer.status_code == 201, (example["tipoCFE"], answer.json)


def test_smart_issuance_of_an_iva_minimo_company_sells_without_iva(api_client, user, service_app):
    _settings(service_app, regimen="iva_minimo")
    with service_app.app_context():
        session = db.session()
        for cae in session.scalars(
            select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)
        ):
            cae.cae_especial = 2  # DGI gives IVA mínimo issuers special CAEs
        session.commit()
    answer = api_client.post(
        "/api/v1/cfe/emitir-inteligente",
        headers=user,
        json={"lineas": [{"descripcion": "Empanadas", "cantidad": "6", "precio": "90"}]},
    )
    assert answer.status_code == 201, answer.json
    receipt = api_client.get(
        GET, query_string={"idCfeEmitido": answer.json["cfeEmitidos"][0]}, headers={**user, "Accept": "application/xml"}
    ).data
    root = etree.fromstring(receipt)
    assert root.findtext(".//c:MntBruto", namespaces=NS) == "3"
    assert root.findtext(".//c:IndFact", namespaces=NS) == "16"
    assert root.findtext(".//c:MntTotal", namespaces=NS) == "540.00"
    assert root.find(".//c:MntIVATasaBasica", NS) is None


def test_a_year_missing_from_the_table_falls_back_to_the_setting(api_client, user, service_app):
    body = _ticket(items=[{"indFact": 1, "nomItem": "Exento", "cantidad": "1", "precioUnitario": "6000"}])
    del body["mntBruto"]
    with service_app.app_context():
        session = db.session()
        session.delete(session.get(UiValue, today_montevideo().year))
        session.commit()
    service_app.config["UI_VALUE_UYU"] = Decimal("1")  # CFE_UI_VALUE_UYU
    _refused(api_client, user, service_app, body, "receptor", "required")


def test_701_lines_are_too_many_through_the_api_as_the_engine_says(api_client, auth_headers):
    body = bodies.body(bodies.ETICKET)
    body["items"] = [body["items"][0]] * 701
    answer = api_client.post("/api/v1/comprobante/emitir", json=body, headers=auth_headers("usuario@demo.uy"))
    assert answer.status_code == 422
    assert [(f["field"], f["code"]) for f in answer.json["error"]["fields"]] == [("items", "too_many")]
