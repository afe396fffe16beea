"""The DGI lookups with a company API key (`X-API-Key`), created the way a company admin does it.

Kept apart from test_dgi_api.py because the keys belong to the apikeys area: this file needs its
`POST /api/v1/apikeys` and its verifier (`app.extensions["api_key_verifier"]`)."""

from __future__ import annotations

import pytest

from portal.service.dgi import sandbox_data as data

DEMO_CERT, NORTE_CERT = 1, 2


@pytest.fixture
def key_for(api_client, auth_headers):
    """key_for(company_id) -> headers with a new API key of that company (made by admin@demo.uy)."""

    def create(company_id: int = 1) -> dict[str, str]:
        answer = api_client.post(
            "/api/v1/apikeys", json={"nombre": "Consultas DGI"}, headers=auth_headers("admin@demo.uy", company_id)
        )
        assert answer.status_code == 201, answer.get_json()
        return {"X-API-Key": answer.get_json()["clave"]}

    return create


@pytest.fixture
def get(api_client):
    return lambda path, headers: api_client.get(f"/api/v1/dgi/{path}", headers=headers)


@pytest.mark.parametrize(
    ("path", "key", "value"),
    [
        (f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado=1", "denominacion", "DGI RUC PRUEBA NO CEDE"),
        (
            "consultaNombreEntidad?idEmpresa=1&idCertificado=1&tipoDoc=3&nroDoc=13353214",
            "nombre",
            "RODRIGUEZ SILVA JUAN CARLOS",
        ),
        (f"consultaCva/{data.EXPIRED_CVA_RUT}?idEmpresa=1&idCertificado=1", "estado", "VENCIDO"),
        (
            f"consultaDatosEntidad/{data.INDIVIDUAL_RUT}?idEmpresa=1&idCertificado=1",
            "tipoEntidadDescripcion",
            "UNIPERSONAL",
        ),
    ],
)
def test_each_lookup_with_an_api_key(get, key_for, path, key, value):
    answer = get(path, key_for(1))
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()[key] == value
    assert answer.headers["Cache-Control"] == "private, max-age=0"


def test_a_key_looks_up_only_for_its_own_company(get, key_for):
    answer = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=2&idCertificado={NORTE_CERT}", key_for(1))
    assert answer.status_code == 403 and answer.get_json()["error"]["code"] == "empresa_ajena"


def test_a_key_cannot_use_another_companys_certificate(get, key_for):
    answer = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado={NORTE_CERT}", key_for(1))
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "certificado_no_encontrado"


def test_a_key_of_the_other_company_uses_that_companys_certificate(get, key_for):
    norte = key_for(2)
    assert get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=2&idCertificado={NORTE_CERT}", norte).status_code == 200
    refused = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=2&idCertificado={DEMO_CERT}", norte)
    assert refused.status_code == 404


def test_validation_errors_are_the_same_with_a_key(get, key_for):
    answer = get("consultaRut/219999830018?idEmpresa=1&idCertificado=1", key_for(1))
    assert answer.status_code == 422
    assert answer.get_json()["error"]["fields"][0]["field"] == "rut"
    missing = get(f"consultaRut/{data.DEMO_RUT}?idCertificado=1", key_for(1))
    assert missing.status_code == 422 and missing.get_json()["error"]["fields"][0]["field"] == "idEmpresa"


def test_a_wrong_key_is_401(get):
    answer = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado=1", {"X-API-Key": "cfe_live_nope"})
    assert answer.status_code == 401
