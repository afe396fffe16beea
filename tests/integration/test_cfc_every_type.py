"""A paper contingency receipt (CFC) of every type DGI defines (2xx = 1xx + 100: 201-203, 211-213, 221-224,
231-233, 241-243, 251-253, 281, 282), end to end through the API: its book registered, the paper keyed in through
emitir, checked by its 1xx type's rules, signed as its 1xx element with TipoCFE 2xx (valid against DGI's XSD),
printed, sent to DGI in an envelope and answered, counted in the daily report's Cont section (valid against
ReporteDiarioCFE.xsd with every CFC type in one report), filed in the IVA book its 1xx type goes in, and adjusted
by the electronic notes DGI allows on it."""

from __future__ import annotations

import copy
import subprocess
import typing
from datetime import timedelta

import pytest
from lxml import etree

from portal.domain.cfe_types import (
    BOLETA_TYPES,
    CFC_BASE,
    CFC_NAMES,
    CFC_TYPES,
    CFE_TYPES,
    NOTE_REFERENCE_TYPES,
    SALE_TYPES,
    electronic_type,
)
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.model import CfeInput, SupportedCfeType
from portal.service.cfe.schema import validate_xml
from portal.service.empresa.schemas import CfcType
from portal.service.envios import report_xml
from portal.service.platform import db
from tests.support.envios import ENVIOS_CONFIG, REJECT_MARKER, drain

NS = {"d": "http://cfe.dgi.gub.uy"}
EVERY_CFC = sorted(CFC_TYPES)


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def example(tipo: int) -> dict:
    """The OpenAPI example of a 1xx type (there is a working one for each), as a fresh dict."""
    examples = typing.cast(dict, CfeInput.model_config["json_schema_extra"])["examples"]
    return copy.deepcopy(next(e for e in examples if e["tipoCFE"] == tipo))


def serie_of(tipo: int) -> str:
    """A serie of its own for each CFC type's book (two letters)."""
    index = EVERY_CFC.index(tipo)
    return "K" + chr(ord("A") + index)


def register(api_client, admin, tipo: int) -> dict:
    today = today_montevideo()
    body = {
        "tipoCFE": tipo,
        "serie": serie_of(tipo),
        "desde": 1,
        "hasta": 20,
        "caeId": f"90260000{tipo}",
        "fechaAutorizacion": (today - timedelta(days=30)).isoformat(),
        "vencimiento": (today + timedelta(days=700)).isoformat(),
    }
    answer = api_client.post("/api/v1/empresa/contingencia", json=body, headers=admin)
    assert answer.status_code == 201, answer.json
    return answer.json


def paper(tipo: int, nro: int, *, days_ago: int = 0, **changes) -> dict:
    body = {**example(CFC_BASE[tipo]), "tipoCFE": tipo, "contingencia": {"serie": serie_of(tipo), "nro": nro}}
    body["fchEmis"] = (today_montevideo() - timedelta(days=days_ago)).isoformat()
    return {**body, **changes}


def key_in(api_client, user, body):
    return api_client.post("/api/v1/comprobante/emitir", json=body, headers=user)


def fetch(api_client, user, cfe_id: str, accept: str) -> bytes:
    answer = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        query_string={"idCfeEmitido": cfe_id},
        headers={**user, "Accept": accept},
    )
    assert answer.status_code == 200, answer.data[:500]
    return answer.data


def test_every_cfc_type_is_one_list_derived_from_the_1xx_types():
    assert CFC_TYPES == {code + 100 for code in CFE_TYPES}
    assert set(typing.get_args(CfcType)) == CFC_TYPES  # the book's tipoCFE
    assert {t for t in typing.get_args(SupportedCfeType) if t >= 200} == CFC_TYPES  # emitir's tipoCFE
    assert set(report_xml.CFC_SECTIONS) == CFC_TYPES  # the daily report's Cont sections
    assert CFC_NAMES[221] == "e-Factura de Exportación de contingencia"


@pytest.mark.parametrize("tipo", EVERY_CFC)
def test_a_paper_cfc_of_each_type_is_keyed_in_signed_printed_and_sent(
    api_client, admin, user, service_app, tipo, tmp_path
):
    book = register(api_client, admin, tipo)
    answer = key_in(api_client, user, paper(tipo, 7, days_ago=2))
    assert answer.status_code == 201, answer.json
    issued = answer.json
    assert (issued["tipoCFE"], issued["serie"], issued["nro"]) == (tipo, serie_of(tipo), 7)
    assert issued["cae"]["caeId"] == book["caeId"]
    xml = fetch(api_client, user, issued["idCfeEmitido"], "application/xml")
    root = etree.fromstring(xml)
    element = CFE_TYPES[electronic_type(tipo)].element
    assert root.findtext(f"d:{element}/d:Encabezado/d:IdDoc/d:TipoCFE", namespaces=NS) == str(tipo)
    assert validate_xml(xml, "CFEDGI.xsd") == []
    pdf = fetch(api_client, user, issued["idCfeEmitido"], "application/pdf")
    (tmp_path / "cfc.pdf").write_bytes(pdf)
    text = subprocess.run(["pdftotext", str(tmp_path / "cfc.pdf"), "-"], capture_output=True, text=True, check=True)
    words = " ".join(text.stdout.split())  # a note prints its short name ("NC e-Ticket de contingencia")
    assert "de contingencia" in words and f"Serie {serie_of(tipo)} Nº 0000007" in words
    roll = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        query_string={"idCfeEmitido": issued["idCfeEmitido"], "formato": "80mm"},
        headers={**user, "Accept": "application/pdf"},
    )
    assert roll.status_code == (200 if CFE_TYPES[electronic_type(tipo)].element == "eTck" else 422)  # as its 1xx
    again = key_in(api_client, user, paper(tipo, 7, days_ago=2))
    assert (again.status_code, again.json["error"]["code"]) == (409, "cfc_ya_ingresado")
    drain(service_app)  # its road to DGI: the envelope, DGI's answer (a CFC is accepted or observed, never rejected)
    state = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": issued["idCfeEmitido"]}, headers=user
    ).json["dgi"]
    assert state["estado"] == "aceptado", state


# A body each family's 1xx type refuses, and the CFC of that type refuses the same way (its rules are its 1xx's).
BROKEN = {
    221: lambda body: {k: v for k, v in body.items() if k != "clauVenta"},
    224: lambda body: {k: v for k, v in body.items() if k != "modVenta"},
    231: lambda body: {k: v for k, v in body.items() if k != "complFiscal"},
    241: lambda body: {k: v for k, v in body.items() if k != "complFiscal"},
    251: lambda body: {**body, "items": [{"indFact": 3, "nomItem": "Con IVA", "cantidad": "1", "precioUnitario": "9"}]},
}


@pytest.mark.parametrize("tipo", sorted(BROKEN))
def test_a_cfc_is_checked_by_its_1xx_types_rules(api_client, admin, user, tipo):
    register(api_client, admin, tipo)
    electronic = key_in(api_client, user, BROKEN[tipo](example(CFC_BASE[tipo])))
    keyed = key_in(api_client, user, BROKEN[tipo](paper(tipo, 3)))
    assert electronic.status_code == keyed.status_code == 422, keyed.json
    codes = {(f["field"], f["code"]) for f in keyed.json["error"]["fields"]}
    assert codes == {(f["field"], f["code"]) for f in electronic.json["error"]["fields"]}


def test_the_daily_report_holds_every_cfc_type_in_its_cont_section_valid_against_dgis_schema(
    api_client, admin, user, service_app
):
    from portal.service.envios import reports
    from portal.service.envios.models import DgiDailyReport

    for tipo in EVERY_CFC:
        register(api_client, admin, tipo)
        for nro in (1, 2):
            answer = key_in(api_client, user, paper(tipo, nro))
            assert answer.status_code == 201, (tipo, answer.json)
    with service_app.app_context():
        report_id = reports.build(1, today_montevideo(), "test")
        xml = db.new_session().get(DgiDailyReport, report_id).xml
    assert validate_xml(xml, "ReporteDiarioCFE.xsd") == []
    root = etree.fromstring(xml)
    for tipo in EVERY_CFC:
        section = root.find(f"d:{report_xml.CFC_SECTIONS[tipo]}", NS)
        assert section is not None, tipo
        assert section.findtext("d:TipoComp", namespaces=NS) == str(tipo)
        assert section.findtext("d:RsmnData/d:CantCFCEmi", namespaces=NS) == "2"
    sale = root.find("d:Rsmn_Fac_Exp_Cont/d:RsmnData/d:Montos/d:Mnts_FExp_Item", NS)
    assert sale is not None and sale.findtext("d:TotMntExpyAsim", namespaces=NS) not in (None, "0.00")
    assert root.find("d:Rsmn_Bol_Cont/d:RsmnData/d:Montos/d:Mnts_Bol_Item", NS) is not None


def test_each_cfc_goes_in_the_iva_book_of_its_1xx_type(api_client, admin, user):
    for tipo in EVERY_CFC:
        register(api_client, admin, tipo)
        assert key_in(api_client, user, paper(tipo, 1)).status_code == 201, tipo
    today = today_montevideo().isoformat()
    period = {"desde": today, "hasta": today}
    sales = api_client.get("/api/v1/informes/ventas", query_string=period, headers=user)
    purchases = api_client.get("/api/v1/informes/compras", query_string=period, headers=user)
    assert sales.status_code == purchases.status_code == 200, (sales.json, purchases.json)
    sold = {row["tipoCFE"] for row in sales.json["filas"]}
    bought = {row["tipoCFE"] for row in purchases.json["filas"]}
    assert sold == {t for t in EVERY_CFC if CFC_BASE[t] in SALE_TYPES}
    assert bought == {t for t in EVERY_CFC if CFC_BASE[t] in BOLETA_TYPES}


@pytest.mark.parametrize(("original", "note"), [(221, 122), (221, 123), (241, 142), (231, 133), (251, 152)])
def test_the_electronic_notes_dgi_allows_reference_a_cfc(api_client, admin, user, service_app, original, note):
    assert original in NOTE_REFERENCE_TYPES[note]
    register(api_client, admin, original)
    issued = key_in(api_client, user, paper(original, 5, days_ago=1)).json
    body = example(note)
    body["referencias"] = [{"tpoDocRef": original, "serie": issued["serie"], "nroCFERef": 5, "razonRef": "Ajuste"}]
    answer = key_in(api_client, user, body)
    assert answer.status_code == 201, answer.json
    [ref] = answer.json["referencias"]
    assert (ref["tpoDocRef"], ref["nroCFERef"]) == (original, 5)
    drain(service_app)  # DGI holds the CFC, so it accepts the note on it (no E12); an e-Ticket's goes in the report
    expected = "pendiente_reporte" if CFE_TYPES[note].element == "eTck" else "aceptado"
    assert state(api_client, user, answer.json["idCfeEmitido"])["estadoDGI"] == expected


@pytest.mark.parametrize("tipo", [221, 224, 241, 251])
def test_an_observed_cfc_of_each_family_is_corrected_and_accepted(api_client, admin, user, service_app, tipo):
    register(api_client, admin, tipo)
    body = paper(tipo, 9, days_ago=1)
    receiver = body["receptor"]["rznSocRecep"]
    body["receptor"] = {**body["receptor"], "rznSocRecep": f"{REJECT_MARKER}E05"}
    issued = key_in(api_client, user, body).json
    drain(service_app)
    observed = state(api_client, user, issued["idCfeEmitido"])
    assert (observed["estadoDGI"], [m["codigo"] for m in observed["dgi"]["motivos"]]) == ("observado", ["C05"])
    fixed = {**body, "receptor": {**body["receptor"], "rznSocRecep": receiver}}
    corrected = api_client.post(
        f"/api/v1/comprobante/contingencia/{issued['idCfeEmitido']}/corregir", json=fixed, headers=user
    )
    assert corrected.status_code == 200, corrected.json
    drain(service_app)
    accepted = state(api_client, user, issued["idCfeEmitido"])
    assert (accepted["estadoDGI"], accepted["dgi"]["observaciones"]) == ("aceptado", 1)


def test_the_compliance_watch_counts_an_observed_cfc_of_any_family(api_client, admin, user, service_app):
    register(api_client, admin, 241)
    body = paper(241, 4, days_ago=1)
    body["receptor"] = {**body["receptor"], "rznSocRecep": f"{REJECT_MARKER}E05"}
    assert key_in(api_client, user, body).status_code == 201
    drain(service_app)
    health = api_client.get("/api/v1/empresa/salud", headers=admin)
    assert health.status_code == 200, health.json
    watch = {item["clave"]: item for item in health.json["items"]}
    assert watch["cfc_observados"]["estado"] == "warning" and watch["cfc_observados"]["datos"]["cantidad"] == 1


def state(api_client, user, cfe_id: str) -> dict:
    answer = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": cfe_id}, headers=user
    )
    return answer.json
