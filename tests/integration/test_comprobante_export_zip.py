"""The receipt list's signed XMLs as one ZIP (GET buscar with formato=zip or Accept: application/zip): each
receipt of the filtered set exactly as it was signed (the XML the receipt's own download gives), named by type and
number, written while it is sent; and the OpenAPI document says so."""

from __future__ import annotations

import io
import zipfile

import pytest

from portal.service.platform.zipstream import ZIP
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

BUSCAR = "/api/v1/comprobante/buscar"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _archive(api_client, user, query: dict, accept: str | None = None) -> zipfile.ZipFile:
    headers = {**user, "Accept": accept} if accept else user
    with api_client.get(BUSCAR, query_string=query, headers=headers) as answer:  # a file: closed as a server would
        assert answer.status_code == 200 and answer.mimetype == ZIP, answer.status_code
        assert answer.headers["Content-Disposition"] == 'attachment; filename="comprobantes-xml.zip"'
        assert answer.is_streamed  # written while it is sent: a month's receipts never whole in memory
        archive = zipfile.ZipFile(io.BytesIO(answer.data))
    assert archive.testzip() is None
    return archive


def test_each_receipt_of_the_filter_is_in_the_zip_as_it_was_signed(api_client, user):
    ticket = issue(api_client, user, bodies.body(bodies.ETICKET))
    factura = issue(api_client, user, bodies.body(bodies.EFACTURA))
    archive = _archive(api_client, user, {"formato": "zip"})
    expected = {f"{r['tipoCFE']}_{r['serie']}-{r['nro']:07d}.xml": r["idCfeEmitido"] for r in (ticket, factura)}
    assert set(expected) <= set(archive.namelist())
    for name, receipt_id in expected.items():
        signed = api_client.get(
            "/api/v1/comprobante/getByIdCfeEmitido",
            query_string={"idCfeEmitido": receipt_id},
            headers={**user, "Accept": "application/xml"},
        )
        assert archive.read(name) == signed.data
    only_facturas = _archive(api_client, user, {"tipoCFE": 111}, accept=ZIP)
    assert all(name.startswith("111_") for name in only_facturas.namelist())
    assert f"111_{factura['serie']}-{factura['nro']:07d}.xml" in only_facturas.namelist()


def test_the_openapi_document_offers_the_list_as_a_zip(api_client):
    operation = api_client.get("/api/v1/openapi.json").json["paths"][BUSCAR]["get"]
    assert ZIP in operation["responses"]["200"]["content"]
    formato = next(p for p in operation["parameters"] if p["name"] == "formato")
    assert "zip" in str(formato["schema"])
