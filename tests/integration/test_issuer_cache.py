"""Issuing keeps the issuer, the signing certificate and the year's UI per process
(portal/service/platform/readcache.py): a change of the company, its settings, branches or certificates is used by
the very next receipt, made through this process or behind its back (another process, the operator's SQL: the
triggers of migration 0290 bump the company's cache generation); the year's UI, set behind its back, within
CFE_READ_CACHE_SECONDS."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from lxml import etree
from sqlalchemy import create_engine, text

from portal.domain.uruguay_time import today_montevideo
from portal.service import create_app
from tests.conftest import mint_token
from tests.integration.test_empresa_api import SETTINGS, upload_cert
from tests.support import cfe_bodies as bodies
from tests.support.empresa_files import p12

EMITIR = "/api/v1/comprobante/emitir"
GET = "/api/v1/comprobante/getByIdCfeEmitido"
NS = {"c": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}
BOUND = 1.5  # seconds: long enough that the changes below would be missed without the invalidation


@pytest.fixture
def service_config(service_config):
    return {**service_config, "READ_CACHE_SECONDS": BOUND}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@demo.uy", 1)


def _signed_xml(api_client, headers, body=None) -> etree._Element:
    answer = api_client.post(EMITIR, json=body or bodies.body(bodies.ETICKET), headers=headers)
    assert answer.status_code == 201, answer.json
    xml = api_client.get(
        GET,
        query_string={"idCfeEmitido": answer.json["idCfeEmitido"]},
        headers={**headers, "Accept": "application/xml"},
    ).data
    return etree.fromstring(xml)


def test_a_settings_change_through_the_api_is_used_by_the_next_receipt(api_client, admin):
    assert _signed_xml(api_client, admin).find(".//c:IVAalDia", NS) is None  # the issuer is now kept
    answer = api_client.put("/api/v1/empresa/configuracion", json={**SETTINGS, "ivaAlDia": False}, headers=admin)
    assert answer.status_code == 200, answer.json
    assert _signed_xml(api_client, admin).findtext(".//c:IVAalDia", namespaces=NS) == "1"


def test_a_certificate_upload_signs_the_next_receipt(api_client, admin):
    _signed_xml(api_client, admin)  # the seeded certificate is now kept
    uploaded = upload_cert(api_client, admin, p12(valid_to_days=3000))  # expires last: the one that signs
    assert uploaded.status_code == 201, uploaded.json
    serial = _signed_xml(api_client, admin).findtext(".//ds:X509SerialNumber", namespaces=NS)
    assert serial == uploaded.json["serie"]


def _generation(engine, company_id: int = 1) -> int:
    with engine.connect() as connection:
        return connection.execute(
            text("SELECT cache_generation FROM company WHERE id = :id"), {"id": company_id}
        ).one()[0]


def test_every_change_of_what_issuing_keeps_bumps_the_company_generation_and_only_that(service_config):
    engine = create_engine(service_config["DATABASE_URL"])
    try:
        changes = [
            "UPDATE company SET telefono = '099 000 000' WHERE id = 1",
            "UPDATE empresa_config SET iva_al_dia = false WHERE company_id = 1",
            "INSERT INTO empresa_sucursal (company_id, codigo, nombre, domicilio, ciudad, departamento, "
            "predeterminada, created_at) VALUES (1, 77, 'Depósito', 'Ruta 1 km 20', 'Montevideo', 'Montevideo', "
            "false, CURRENT_TIMESTAMP)",
            "DELETE FROM empresa_sucursal WHERE company_id = 1 AND codigo = 77",
            "UPDATE certificate SET name = 'renombrado' WHERE company_id = 1",
        ]
        for change in changes:
            before, other = _generation(engine), _generation(engine, 2)
            with engine.begin() as connection:
                connection.execute(text(change))
            assert _generation(engine) == before + 1, change  # once, even for a change of the company row
            assert _generation(engine, 2) == other, change
    finally:
        engine.dispose()


def test_a_change_behind_the_process_back_signs_the_next_receipt_at_once(service_config):
    # No event of this process sees these changes (another connection's plain SQL) and a minute's lifetime
    # does not expire in between: only the company's generation, read by every issue, brings them in.
    app = create_app({**service_config, "READ_CACHE_SECONDS": 60})
    api_client, admin = app.test_client(), {"Authorization": f"Bearer {mint_token(app, 'admin@demo.uy')}"}
    admin["X-Empresa-Id"] = "1"
    assert _signed_xml(api_client, admin).find(".//c:IVAalDia", NS) is None  # the issuer is now kept
    other_process = create_engine(service_config["DATABASE_URL"])
    try:
        with other_process.begin() as connection:
            connection.execute(text("UPDATE empresa_config SET iva_al_dia = false WHERE company_id = 1"))
        assert _signed_xml(api_client, admin).findtext(".//c:IVAalDia", namespaces=NS) == "1"
        with other_process.begin() as connection:
            connection.execute(text("UPDATE certificate SET retired_at = CURRENT_TIMESTAMP WHERE company_id = 1"))
        refused = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=admin)
        assert refused.status_code == 409 and refused.json["error"]["code"] == "sin_certificado_vigente"
    finally:
        other_process.dispose()
        app.extensions["db_engine"].dispose()


def test_a_change_behind_the_process_back_is_used_within_the_bound(api_client, admin, service_config):
    # Another process (or the operator's SQL) changes the settings and the year's UI: no event reaches this
    # process, so only the cache's lifetime brings the new values in.
    ticket = bodies.body(bodies.ETICKET)
    big = {**ticket, "items": [{"indFact": 1, "nomItem": "Exento", "cantidad": "1", "precioUnitario": "6000"}]}
    del big["mntBruto"]
    assert _signed_xml(api_client, admin, big).find(".//c:IVAalDia", NS) is None  # 6,000 < 5,000 UI x 6.4
    other_process = create_engine(service_config["DATABASE_URL"])
    with other_process.begin() as connection:
        connection.execute(text("UPDATE empresa_config SET iva_al_dia = false WHERE company_id = 1"))
        connection.execute(
            text("UPDATE ui_value SET value = :value WHERE year = :year"),
            {"value": str(Decimal("1.0000")), "year": today_montevideo().year},
        )
    other_process.dispose()
    time.sleep(BOUND + 0.1)
    refused = api_client.post(EMITIR, json=big, headers=admin)  # now 6,000 > 5,000 UI x 1
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["field"] == "receptor"
    assert _signed_xml(api_client, admin).findtext(".//c:IVAalDia", namespaces=NS) == "1"
