"""URLs the service returns are built from its configured public URL (CFE_ISSUER_URL), never from the request's
Host header: a request sent with `Host: evil.example` must not get links to evil.example back."""

from __future__ import annotations

import pytest

from tests.support import cfe_bodies as bodies

PUBLIC = "https://cfe.example.uy/base"
EVIL = {"Host": "evil.example", "X-Forwarded-Host": "evil.example", "Accept": "application/json"}


@pytest.fixture
def service_app(service_config):
    from portal.service import create_app

    app = create_app({**service_config, "ISSUER": PUBLIC})
    yield app
    app.extensions["db_engine"].dispose()


@pytest.fixture
def user(auth_headers):
    return {**auth_headers("usuario@demo.uy"), **EVIL}


def test_a_preview_link_points_at_the_public_url_whatever_the_host_header(api_client, user):
    link = api_client.post("/api/v1/comprobante/previsualizar", json=bodies.body(bodies.ETICKET), headers=user)
    assert link.status_code == 201
    assert link.json["url"].startswith(f"{PUBLIC}/api/v1/comprobante/previsualizar/"), link.json["url"]
    assert "evil.example" not in link.get_data(as_text=True)


def test_a_receipts_links_point_at_the_public_url(api_client, user):
    issued = api_client.post("/api/v1/comprobante/emitir", json=bodies.body(bodies.ETICKET), headers=user)
    assert issued.status_code == 201, issued.json
    got = api_client.get(
        "/api/v1/comprobante/getByIdCfeEmitido",
        query_string={"idCfeEmitido": issued.json["idCfeEmitido"]},
        headers=user,
    )
    for answer in (issued, got):
        assert "evil.example" not in answer.get_data(as_text=True)
        assert all(link.startswith(f"{PUBLIC}/api/v1/") for link in answer.json["enlaces"].values())


def test_a_smart_preview_link_points_at_the_public_url(api_client, user):
    body = {"lineas": [{"descripcion": "Consultoría", "cantidad": "1", "precio": "100"}]}
    preview = api_client.post("/api/v1/cfe/previsualizar-emision-inteligente", json=body, headers=user)
    assert preview.status_code == 201, preview.json
    consulted = api_client.get(f"/api/v1/cfe/emision-inteligente/{preview.json['requestId']}", headers=user)
    for answer in (preview, consulted):
        assert "evil.example" not in answer.get_data(as_text=True)
    assert consulted.json["previsualizacionUrl"].startswith(f"{PUBLIC}/api/v1/comprobante/previsualizar/")
