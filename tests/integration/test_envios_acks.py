"""DGI's acknowledgements are kept as they came and checked against DGI's trusted certificate (issue 25, items 6
and 28): soporte and admins download each envelope, report and acknowledgement; an acknowledgement that does not
verify against the trusted certificate is flagged on its envelope or report, not silently trusted."""

from __future__ import annotations

import pytest
from lxml import etree

from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.signing import verify_signature
from portal.service.platform.certificates import generate_self_signed
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain

D = "{http://cfe.dgi.gub.uy}"
SOBRES, REPORTES = "/api/v1/envios/sobres", "/api/v1/envios/reportes"


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


def _one_envelope_answered(api_client, admin, service_app) -> dict:
    issue(api_client, admin, bodies.body(bodies.EFACTURA))
    drain(service_app)
    [sobre] = api_client.get(SOBRES, headers=admin).json["items"]
    assert sobre["estado"] == "respondido"
    return sobre


def _report_answered(api_client, admin, service_app) -> dict:
    answer = api_client.post(REPORTES, headers=admin, json={"fecha": today_montevideo().isoformat()})
    assert answer.status_code == 202, answer.json
    drain(service_app)
    [report] = api_client.get(REPORTES, headers=admin).json["items"]
    assert report["estado"] == "aceptado"
    return report


def test_each_envelope_and_its_acknowledgements_are_kept_verified_and_downloadable(
    api_client, admin, auth_headers, service_app
):
    sobre = _one_envelope_answered(api_client, admin, service_app)
    assert sobre["documentos"] == ["sobre", "acuse", "respuesta"]
    assert (sobre["firmaAcuse"], sobre["firmaRespuesta"]) == ("verificada", "verificada")
    support = auth_headers("soporte@demo.uy")
    roots = {}
    for documento, root_tag in (("sobre", "EnvioCFE"), ("acuse", "ACKSobre"), ("respuesta", "ACKCFE")):
        answer = api_client.get(f"{SOBRES}/{sobre['idSobre']}/{documento}", headers=support)
        assert answer.status_code == 200 and answer.mimetype == "application/xml"
        disposition = answer.headers["Content-Disposition"]
        assert disposition.startswith("attachment; filename=") and sobre["archivo"] in disposition
        roots[documento] = etree.fromstring(answer.data)
        assert roots[documento].tag == f"{D}{root_tag}"
        if documento != "sobre":
            assert verify_signature(answer.data)  # as DGI signed it: the bytes are DGI's, untouched
    assert roots["acuse"].findtext(f"{D}Detalle/{D}Estado") == "AS"


def test_the_daily_report_and_its_acknowledgement_are_kept_verified_and_downloadable(api_client, admin, service_app):
    issue(api_client, admin, bodies.body(bodies.ETICKET))
    report = _report_answered(api_client, admin, service_app)
    assert report["documentos"] == ["reporte", "acuse"] and report["firmaAcuse"] == "verificada"
    ack = api_client.get(f"{REPORTES}/{report['idReporte']}/acuse", headers=admin)
    assert ack.status_code == 200 and etree.fromstring(ack.data).tag == f"{D}ACKRepDiario"
    assert f'filename="ACKRep_{report["archivo"]}"' in ack.headers["Content-Disposition"]
    sent = api_client.get(f"{REPORTES}/{report['idReporte']}/reporte", headers=admin)
    assert sent.status_code == 200 and etree.fromstring(sent.data).tag == f"{D}Reporte"


def test_only_soporte_and_admins_of_the_company_download(api_client, admin, auth_headers, service_app):
    sobre = _one_envelope_answered(api_client, admin, service_app)
    url = f"{SOBRES}/{sobre['idSobre']}/acuse"
    assert api_client.get(url, headers=auth_headers("usuario@demo.uy")).status_code == 403
    other = api_client.get(url, headers=auth_headers("admin@demo.uy", 2))
    assert other.status_code == 404 and other.json["error"]["code"] == "no_encontrado"
    assert api_client.get(f"{SOBRES}/{sobre['idSobre']}/otra-cosa", headers=admin).status_code == 404
    assert api_client.get(f"{SOBRES}/99999/sobre", headers=admin).status_code == 404
    assert api_client.get(f"{REPORTES}/99999/acuse", headers=admin).status_code == 404


def test_the_download_endpoints_are_in_the_openapi_document(api_client):
    paths = api_client.get("/api/v1/openapi.json").json["paths"]
    for path, values in (
        ("/api/v1/envios/sobres/{id_sobre}/{documento}", ["sobre", "acuse", "respuesta"]),
        ("/api/v1/envios/reportes/{id_reporte}/{documento}", ["reporte", "acuse"]),
    ):
        get = paths[path]["get"]
        [documento] = [p for p in get["parameters"] if p["name"] == "documento"]
        assert documento["schema"]["enum"] == values
        assert "application/xml" in get["responses"]["200"]["content"]


@pytest.fixture
def other_trusted_cert(service_config, tmp_path):
    """DGI's trusted certificate set to one that did not sign the simulator's acknowledgements."""
    _key, cert = generate_self_signed("214844360018", "Otro DGI", days=30)
    path = tmp_path / "dgi.pem"
    path.write_bytes(cert)
    service_config["DGI_TRUSTED_CERT_PATH"] = str(path)


def test_acknowledgements_that_do_not_verify_against_the_trusted_certificate_are_flagged(
    other_trusted_cert, api_client, admin, service_app, caplog
):
    sobre = _one_envelope_answered(api_client, admin, service_app)
    assert (sobre["firmaAcuse"], sobre["firmaRespuesta"]) == ("invalida", "invalida")
    report = _report_answered(api_client, admin, service_app)
    assert report["firmaAcuse"] == "invalida"
    assert "not verified: invalida" in caplog.text


def test_a_trusted_certificate_setting_that_names_no_certificate_stops_the_service_at_start(service_config, tmp_path):
    from portal.service import create_app

    (tmp_path / "not-a-cert.pem").write_text("hola")
    for path in (tmp_path / "missing.pem", tmp_path / "not-a-cert.pem"):
        with pytest.raises(ValueError, match="CFE_DGI_TRUSTED_CERT"):
            create_app({**service_config, "DGI_TRUSTED_CERT_PATH": str(path)})
