"""Issuing keeps the issuer, the year's UI and the signing certificate per process for a moment
(portal/service/platform/readcache.py): a change through this process is used by the very next receipt, a change
made behind its back (another process, the operator's SQL) within CFE_READ_CACHE_SECONDS."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from lxml import etree
from sqlalchemy import create_engine, text

from portal.domain.uruguay_time import today_montevideo
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
