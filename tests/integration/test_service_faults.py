"""Inputs that used to crash the service with a 500: each now gets its documented error in the JSON shape."""

from __future__ import annotations

import pytest
import requests
from joserfc import jwt

from portal.service.dgi import sandbox_data as data
from tests.support import recibidos as sup

XML = {"Content-Type": "application/xml"}


def _assert_error(answer, status: int, code: str | None = None) -> dict:
    assert answer.status_code == status, answer.get_data(as_text=True)[:300]
    error = answer.get_json()["error"]
    assert error["requestId"] == answer.headers["X-Request-ID"]
    if code:
        assert error["code"] == code, error
    return error


@pytest.mark.parametrize("number", [2**31, 99999999999999999999999])
def test_a_path_integer_past_the_databases_range_is_a_404_on_every_route_that_takes_one(
    api_client, auth_headers, number
):
    """Every `<int:...>` of the API (ids, an attachment's position) past what an integer column holds names nothing:
    the 404 in the error shape, where the received CFEs', DGI envelopes' and reports' and notices' routes answered
    a 500 (SQLite's OverflowError), and the OpenAPI document says the range."""
    import re

    from portal.service import area_routes
    from portal.service.platform.api import MAX_PATH_INTEGER, OPERATIONS
    from portal.service.platform.openapi import build_document

    area_routes()
    document = build_document("http://127.0.0.1")
    headers = auth_headers("admin@demo.uy", company_id=1)
    integer_routes = 0
    for operation in OPERATIONS:
        parameters = document["paths"][operation.path][operation.method]["parameters"]
        integers = {p["name"] for p in parameters if p["in"] == "path" and p["schema"]["type"] == "integer"}
        if not integers:
            continue
        integer_routes += 1
        for parameter in parameters:
            if parameter["name"] in integers:
                assert parameter["schema"] == {"type": "integer", "minimum": 0, "maximum": MAX_PATH_INTEGER}
        values = {name: str(number) for name in integers} | {"documento": "sobre"}
        path = re.sub(r"\{(\w+)\}", lambda match, values=values: values.get(match.group(1), "1"), operation.path)
        answer = api_client.open(path, method=operation.method.upper(), headers=headers, json={})
        assert answer.status_code == 404, (operation.method, path, answer.status_code)
        _assert_error(answer, 404)
    assert integer_routes >= 20


@pytest.mark.parametrize("company", ["\u00b2", "1\u00b2", "\u0661", "99999999999999999999999"])
def test_a_company_id_that_is_not_plain_ascii_digits_is_a_422(api_client, auth_headers, company):
    headers = {**auth_headers("admin@demo.uy"), "X-Empresa-Id": company}
    _assert_error(api_client.get("/api/v1/apikeys", headers=headers), 422, "empresa_invalida")
    query = {"idEmpresa": company}
    answer = api_client.get("/api/v1/apikeys", headers=auth_headers("admin@demo.uy"), query_string=query)
    _assert_error(answer, 422, "empresa_invalida")


def test_a_superscript_digit_in_a_dgi_lookup_is_a_422(api_client, auth_headers):
    answer = api_client.get(
        f"/api/v1/dgi/consultaRut/{data.DEMO_RUT}?idEmpresa=\u00b2&idCertificado=1",
        headers=auth_headers("admin@demo.uy"),
    )
    assert answer.status_code == 422


@pytest.mark.parametrize(
    "path",
    [
        f"consultaRut/{data.DEMO_RUT}",
        f"consultaCva/{data.DEMO_RUT}",
        f"consultaDatosEntidad/{data.DEMO_RUT}",
        "consultaNombreEntidad?tipoDoc=3&nroDoc=13353214&",
    ],
)
@pytest.mark.parametrize("certificate", [2**63, 2**63 - 1, 10**30])
def test_a_huge_certificate_id_is_a_clear_error_on_every_dgi_lookup(api_client, auth_headers, path, certificate):
    separator = "" if path.endswith("&") else "?"
    answer = api_client.get(
        f"/api/v1/dgi/{path}{separator}idEmpresa=1&idCertificado={certificate}", headers=auth_headers("usuario@demo.uy")
    )
    assert answer.status_code in (404, 422), answer.get_data(as_text=True)[:300]
    assert answer.get_json()["error"]["code"] in ("validation_error", "certificado_no_encontrado")


def test_signing_an_xml_just_under_the_limit_whose_signature_passes_it_is_answered(api_client, auth_headers):
    head, tail = b'<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eTck><TmstFirma>', b"</TmstFirma></eTck></CFE>"
    body = head + b"x" * (2 * 1024 * 1024 - 200 - len(head) - len(tail)) + tail
    answer = api_client.post(
        "/api/v1/comprobante/firmarXml", data=body, headers={**auth_headers("usuario@demo.uy"), **XML}
    )
    error = _assert_error(answer, 413, "payload_too_large")
    assert "firmado" in error["message"]


@pytest.mark.parametrize("sub", ["abc", "1.5", "\u00b2", "", "9" * 40])
def test_a_token_whose_subject_is_not_a_user_number_is_a_401(service_app, api_client, sub):
    keys = service_app.extensions["identity_keys"]
    import time

    claims = {
        "iss": service_app.config["ISSUER"],
        "aud": service_app.config["API_AUDIENCE"],
        "sub": sub,
        "exp": int(time.time()) + 300,
        "iat": int(time.time()),
        "jti": "x",
    }
    token = jwt.encode({"alg": "RS256", "typ": "at+jwt", "kid": keys.kid}, claims, keys.private_key)
    for path in ("/api/v1/apikeys", "/oauth/userinfo"):
        _assert_error(api_client.get(path, headers={"Authorization": f"Bearer {token}"}), 401, "invalid_token")


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/api/v1/comprobante/firmarXml", "application/xml"), ("/api/v1/comprobante/emitir", "application/json")],
)
def test_a_chunked_body_over_the_cap_is_refused_whole_with_413(live_service, live_token_for, path, content_type):
    def chunks():
        yield b"<CFE xmlns='http://cfe.dgi.gub.uy'>" if content_type.endswith("xml") else b'{"tipoCFE": 101, "x": "'
        for _ in range(48):
            yield b" " * 65536

    headers = {"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}", "Content-Type": content_type}
    answer = requests.post(live_service.url + path, data=chunks(), headers=headers, timeout=30)
    assert answer.status_code == 413, answer.text[:300]
    assert answer.json()["error"]["code"] == "payload_too_large"


def test_a_small_chunked_body_is_read_whole(live_service, live_token_for):
    headers = {"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}", "Content-Type": "application/xml"}
    answer = requests.post(
        live_service.url + "/api/v1/comprobante/firmarXml", data=iter([b"<other", b"/>"]), headers=headers, timeout=30
    )
    assert answer.status_code == 422 and "CFE" in answer.json()["error"]["message"]


def test_a_chunked_upload_of_envelopes_is_read_to_its_own_cap_not_the_json_bodies(live_service, live_token_for):
    """Received envelopes may be up to the upload's cap (more than a JSON body's 2 MB): sent chunked to the
    development server, 3 MB of them were refused 413 by the JSON bodies' cap before the upload's was asked."""
    boundary = "cfe-frontera"
    envelope = sup.envelope([sup.cfe(1)], idemisor=77)
    padding = b"<!--" + b" " * (3 * 1024 * 1024) + b"-->"  # a comment after the root: still the same envelope

    def chunks():
        yield f'--{boundary}\r\nContent-Disposition: form-data; name="archivos"; filename="s.xml"\r\n'.encode()
        yield b"Content-Type: application/xml\r\n\r\n" + envelope + padding + f"\r\n--{boundary}--\r\n".encode()

    headers = {
        "Authorization": f"Bearer {live_token_for('usuario@demo.uy')}",
        "Content-Type": f"multipart/form-data; boundary={boundary}",
    }
    answer = requests.post(live_service.url + "/api/v1/recibidos", data=chunks(), headers=headers, timeout=60)
    assert answer.status_code != 413, answer.text[:300]
    assert answer.status_code == 201, answer.text[:300]


@pytest.mark.parametrize("doc_type", [1, 2, 3])
@pytest.mark.parametrize("number", ["1335321\u00b2", "1\u00b2", "\uff11\uff13\uff13\uff15\uff13\uff12\uff11\uff14"])
def test_a_document_number_with_non_ascii_digits_is_a_422(api_client, auth_headers, doc_type, number):
    answer = api_client.get(
        "/api/v1/dgi/consultaNombreEntidad",
        headers=auth_headers("usuario@demo.uy"),
        query_string={"idEmpresa": 1, "idCertificado": 1, "tipoDoc": doc_type, "nroDoc": number},
    )
    _assert_error(answer, 422, "validation_error")
