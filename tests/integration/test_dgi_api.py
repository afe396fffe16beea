"""The DGI lookups through the API with a JWT: answers, every validation error, company and certificate
checks, the cache, DGI failures (502/504, bounded), and the SOAP backend end to end against the stand-in.

API-key access is in test_dgi_api_keys.py (the key endpoints belong to another area)."""

from __future__ import annotations

import datetime as dt
import socket
import time
from collections.abc import Iterator

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from lxml import etree

from portal.domain.uruguay_time import day_in_uruguay, today_montevideo
from portal.service.dgi import sandbox_data as data
from portal.service.dgi.sandbox import SandboxRegistry
from tests.support.certificates import make_certificate
from tests.support.dgi_standin import RunningStandIn, StandIn

Q = "idEmpresa=1&idCertificado=1"
DEMO_CERT, NORTE_CERT = 1, 2  # the seed's certificates of company 1 (Demo S.A.) and 2 (Comercial del Norte)
NS = {
    "soap": "http://schemas.xmlsoap.org/soap/envelope/",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "wsse": "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd",
}


@pytest.fixture
def jwt(auth_headers):
    return auth_headers("usuario@demo.uy")


@pytest.fixture
def get(api_client, jwt):
    def call(path: str, headers: dict | None = None):
        return api_client.get(f"/api/v1/dgi/{path}", headers=jwt if headers is None else headers)

    return call


def _fields(answer) -> list[tuple[str, str]]:
    return [(f["field"], f["code"]) for f in answer.get_json()["error"]["fields"]]


def _add_certificate(app, company_id: int, not_before: dt.datetime, not_after: dt.datetime) -> int:
    from portal.service.platform import db
    from portal.service.platform.keystore import store_certificate
    from portal.service.platform.models import Company

    made = make_certificate("219999830019", "Demo S.A.", not_before=not_before, not_after=not_after)
    key_pem, cert_pem = made.key_pem, made.cert_pem
    with app.app_context():
        session = db.session()
        cert = store_certificate(session, session.get(Company, company_id), "Certificado de prueba", key_pem, cert_pem)
        session.commit()
        return cert.id


def _certificate_der(app, certificate_id: int) -> bytes:
    from portal.service.platform import db
    from portal.service.platform.models import Certificate

    with app.app_context():
        pem = db.session().get(Certificate, certificate_id).cert_pem.encode()
    return x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER)


@pytest.fixture
def standin() -> Iterator[RunningStandIn]:
    """DGI's stand-in on a real port: verifies the WS-Security signature of every request."""
    running = RunningStandIn(StandIn(SandboxRegistry()))
    yield running
    running.stop()


@pytest.fixture
def soap(service_app, standin) -> RunningStandIn:
    """The service switched to the SOAP backend, pointed at the stand-in."""
    service_app.config.update(DGI_BACKEND="soap", DGI_SOAP_URL=standin.url, DGI_TIMEOUT_SECONDS=5)
    return standin


# --- answers ---------------------------------------------------------------------------------------------


def test_consulta_rut_answers_the_identity_as_the_library_shapes_it(get):
    answer = get(f"consultaRut/{data.DEMO_RUT}?{Q}")
    assert answer.status_code == 200
    assert answer.get_json() == SandboxRegistry().consulta_rut(data.DEMO_RUT).to_json()
    assert "domicilioFiscal" not in answer.get_json() and "actividades" not in answer.get_json()
    assert answer.headers["Cache-Control"] == "private, max-age=0"


def test_consulta_datos_entidad_answers_address_contacts_and_activities(get):
    body = get(f"consultaDatosEntidad/{data.DGI_CEDE_RUT}?{Q}").get_json()
    assert body == SandboxRegistry().consulta_datos_entidad(data.DGI_CEDE_RUT).to_json()
    assert body["domicilioFiscal"]["localidad"] == "CASUPA"
    assert body["domicilioFiscal"]["contactos"][0] == {"tipo": "CORREO ELECTRONICO", "valor": "PLANPROD@DGI.GUB.UY"}
    assert [a["giroCod"] for a in body["actividades"]] == ["47115", "84110"]
    assert body["actividades"][0]["fechaInicio"] == "2020-12-10"


def test_a_rut_may_be_typed_with_separators(get):
    body = get(f"consultaRut/21-999983-001-9?{Q}").get_json()
    assert body["rut"] == data.DEMO_RUT and body["activo"] is True


def test_inactive_and_suspended_taxpayers_say_so(get):
    closed = get(f"consultaRut/{data.INACTIVE_RUT}?{Q}").get_json()
    suspended = get(f"consultaRut/{data.SUSPENDED_RUT}?{Q}").get_json()
    assert (closed["activo"], closed["estadoActividad"], closed["emisorElectronico"]) == (False, "CL", False)
    assert (suspended["activo"], suspended["estadoActividad"]) == (False, "SU")


@pytest.mark.parametrize(
    ("rut", "estado", "vigente", "dated"),
    [
        (data.DEMO_RUT, "VIGENTE", True, True),
        (data.EXPIRED_CVA_RUT, "VENCIDO", False, True),
        (data.NO_CVA_RUT, "SIN_CERTIFICADO", False, False),
    ],
)
def test_consulta_cva_in_its_three_states_with_dates(get, rut, estado, vigente, dated):
    body = get(f"consultaCva/{rut}?{Q}").get_json()
    assert (body["estado"], body["vigente"]) == (estado, vigente)
    assert (body["fechaEmision"] is not None, body["fechaVencimiento"] is not None) == (dated, dated)
    today = today_montevideo().isoformat()
    if estado == "VIGENTE":
        assert body["fechaEmision"] <= today <= body["fechaVencimiento"]
    if estado == "VENCIDO":
        assert body["fechaVencimiento"] < today


@pytest.mark.parametrize(
    ("tipo", "numero", "nombre"),
    [
        (3, "1.335.321-4", "RODRIGUEZ SILVA JUAN CARLOS"),
        (1, data.PERSON_NIE, "SCHMIDT ANNA"),
        (2, data.DGI_RUT, "DIRECCION GENERAL IMPOSITIVA"),
        (3, data.INDIVIDUAL_CI, "GONZALEZ PEREZ MARIA FERNANDA"),
    ],
)
def test_consulta_nombre_entidad_by_ci_nie_and_rut(get, tipo, numero, nombre):
    answer = get(f"consultaNombreEntidad?{Q}&tipoDoc={tipo}&nroDoc={numero}")
    assert answer.status_code == 200
    assert answer.get_json() == {"tipoDoc": tipo, "nroDoc": numero.replace(".", "").replace("-", ""), "nombre": nombre}


@pytest.mark.parametrize("email", ["admin@demo.uy", "soporte@demo.uy", "usuario@demo.uy"])
def test_every_role_may_look_up(get, auth_headers, email):
    assert get(f"consultaRut/{data.DEMO_RUT}?{Q}", auth_headers(email, 1)).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        f"consultaRut/{data.UNKNOWN_RUT}?{Q}",
        f"consultaCva/{data.UNKNOWN_RUT}?{Q}",
        f"consultaDatosEntidad/{data.UNKNOWN_RUT}?{Q}",
        f"consultaNombreEntidad?{Q}&tipoDoc=3&nroDoc={data.UNKNOWN_CI}",
    ],
)
def test_an_unknown_taxpayer_is_404(get, jwt, path):
    answer = get(path)
    assert answer.status_code == 404
    assert answer.get_json()["error"]["code"] == "taxpayer_not_found"
    english = get(path, {**jwt, "Accept-Language": "en"}).get_json()["error"]["message"]
    assert english.startswith("There is no") and english.endswith("in the registry.")


def test_without_a_credential_it_is_401(get):
    assert get(f"consultaRut/{data.DEMO_RUT}?{Q}", headers={}).status_code == 401


# --- validation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (f"consultaRut/219999830018?{Q}", [("rut", "check_digit")]),
        (f"consultaCva/21999983001?{Q}", [("rut", "format")]),
        (f"consultaDatosEntidad/2199998300190?{Q}", [("rut", "format")]),
        (f"consultaRut/21999983001X?{Q}", [("rut", "format")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=3&nroDoc=13353215", [("nroDoc", "check_digit")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=3&nroDoc=123456789", [("nroDoc", "format")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=1&nroDoc=934020102", [("nroDoc", "check_digit")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=2&nroDoc=21999983001", [("nroDoc", "format")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=3&nroDoc=", [("nroDoc", "required")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=9&nroDoc=13353214", [("tipoDoc", "invalid")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=5&nroDoc=AB123456", [("tipoDoc", "unsupported")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=CI&nroDoc=13353214", [("tipoDoc", "int_parsing")]),
        (f"consultaNombreEntidad?{Q}&nroDoc=13353214", [("tipoDoc", "missing")]),
        (f"consultaNombreEntidad?{Q}&tipoDoc=3", [("nroDoc", "missing")]),
        (f"consultaRut/{data.DEMO_RUT}?idEmpresa=1", [("idCertificado", "missing")]),
        (f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado=uno", [("idCertificado", "int_parsing")]),
        (f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado=0", [("idCertificado", "greater_than")]),
        (f"consultaRut/{data.DEMO_RUT}?idCertificado=1", [("idEmpresa", "missing")]),
    ],
)
def test_every_validation_error_is_a_422_naming_the_field(get, path, expected):
    answer = get(path)
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["error"]["code"] == "validation_error"
    assert _fields(answer) == expected


def test_a_non_numeric_idempresa_is_a_422(get):
    answer = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=demo&idCertificado=1")
    assert answer.status_code == 422


def test_a_malformed_rut_never_reaches_dgi(get, soap):
    assert get(f"consultaDatosEntidad/219999830018?{Q}").status_code == 422
    assert get(f"consultaNombreEntidad?{Q}&tipoDoc=2&nroDoc=219999830018").status_code == 422
    assert soap.app.last_request is None
    assert get(f"consultaDatosEntidad/{data.DEMO_RUT}?{Q}").status_code == 200
    assert soap.app.last_request is not None


# --- company and certificate -----------------------------------------------------------------------------


def test_a_company_the_user_does_not_belong_to_is_refused(get):
    answer = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=2&idCertificado={NORTE_CERT}")
    assert answer.status_code == 403 and answer.get_json()["error"]["code"] == "empresa_ajena"


def test_idempresa_must_be_the_company_the_caller_acts_for(get, auth_headers):
    answer = get(
        f"consultaRut/{data.DEMO_RUT}?idEmpresa=2&idCertificado={NORTE_CERT}",
        auth_headers("admin@demo.uy", company_id=1),
    )
    assert answer.status_code == 403 and answer.get_json()["error"]["code"] == "empresa_ajena"


def test_a_user_of_two_companies_looks_up_as_either(get, auth_headers):
    admin = auth_headers("admin@demo.uy")
    assert get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado={DEMO_CERT}", admin).status_code == 200
    assert get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=2&idCertificado={NORTE_CERT}", admin).status_code == 200


def test_another_companys_certificate_is_refused_without_revealing_it(get, auth_headers):
    admin = auth_headers("admin@demo.uy")
    foreign = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado={NORTE_CERT}", admin)
    missing = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado=999", admin)
    assert foreign.status_code == missing.status_code == 404
    strip = lambda body: {k: v for k, v in body["error"].items() if k != "requestId"}  # noqa: E731
    assert strip(foreign.get_json()) == strip(missing.get_json())
    assert foreign.get_json()["error"]["code"] == "certificado_no_encontrado"


def test_an_expired_certificate_is_a_422_on_idcertificado(get, service_app):
    now = dt.datetime.now(dt.UTC)
    expired = _add_certificate(service_app, 1, now - dt.timedelta(days=400), now - dt.timedelta(days=2))
    answer = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=1&idCertificado={expired}")
    assert answer.status_code == 422
    assert _fields(answer) == [("idCertificado", "certificado_vencido")]
    last_day = day_in_uruguay(now - dt.timedelta(days=2))  # dd/mm/aaaa as Montevideo counts days
    assert answer.get_json()["error"]["fields"][0]["message"] == f"El certificado venció el {last_day:%d/%m/%Y}."


def test_a_certificate_not_valid_yet_is_a_422_too(get, service_app):
    now = dt.datetime.now(dt.UTC)
    future = _add_certificate(service_app, 1, now + dt.timedelta(days=3), now + dt.timedelta(days=400))
    answer = get(f"consultaCva/{data.DEMO_RUT}?idEmpresa=1&idCertificado={future}")
    assert answer.status_code == 422 and _fields(answer) == [("idCertificado", "certificado_no_vigente")]
    first_day = day_in_uruguay(now + dt.timedelta(days=3))
    message = answer.get_json()["error"]["fields"][0]["message"]
    assert message == f"El certificado recién es válido desde el {first_day:%d/%m/%Y}."


def test_a_bad_document_and_an_expired_certificate_are_reported_together(get, service_app):
    now = dt.datetime.now(dt.UTC)
    expired = _add_certificate(service_app, 1, now - dt.timedelta(days=400), now - dt.timedelta(days=2))
    answer = get(f"consultaNombreEntidad?idEmpresa=1&idCertificado={expired}&tipoDoc=3&nroDoc=13353215")
    assert _fields(answer) == [("nroDoc", "check_digit"), ("idCertificado", "certificado_vencido")]


@pytest.mark.parametrize(
    ("path", "english", "spanish"),
    [
        (
            "consultaRut/123",
            "The RUT number is not in the right format.",
            "El número de RUT no tiene el formato correcto.",
        ),
        (
            "consultaRut/219999830018",
            "The check digit is not correct.",
            "El dígito verificador no es correcto.",
        ),
        (
            "consultaNombreEntidad?tipoDoc=3&nroDoc=123456789",
            "The document number is not in the right format.",
            "El número de documento no tiene el formato correcto.",
        ),
    ],
)
def test_a_badly_written_document_is_said_in_the_readers_language(get, jwt, path, english, spanish):
    """The RUT's and the document's own refusals were plain Spanish strings outside the catalogue: an English
    client read "El número de RUT no tiene el formato correcto."."""
    joined = "&" if "?" in path else "?"
    said = get(f"{path}{joined}{Q}", {**jwt, "Accept-Language": "en"}).get_json()["error"]["fields"][0]["message"]
    assert said == english
    assert get(f"{path}{joined}{Q}").get_json()["error"]["fields"][0]["message"] == spanish


# --- cache -----------------------------------------------------------------------------------------------


def test_a_repeated_lookup_is_answered_from_the_cache(get, soap):
    first = get(f"consultaDatosEntidad/{data.DGI_CEDE_RUT}?{Q}")
    assert first.headers["X-DGI-Cache"] == "miss" and soap.app.last_request is not None
    soap.app.last_request = None
    second = get(f"consultaDatosEntidad/{data.DGI_CEDE_RUT}?{Q}")
    assert second.headers["X-DGI-Cache"] == "hit" and second.get_json() == first.get_json()
    assert soap.app.last_request is None  # DGI was not asked again
    get(f"consultaDatosEntidad/{data.DEMO_RUT}?{Q}")
    assert soap.app.last_request is not None  # another RUT is another entry


def test_each_lookup_kind_has_its_own_cache_entry(get):
    assert get(f"consultaRut/{data.DEMO_RUT}?{Q}").headers["X-DGI-Cache"] == "miss"
    assert get(f"consultaCva/{data.DEMO_RUT}?{Q}").headers["X-DGI-Cache"] == "miss"
    assert get(f"consultaCva/{data.DEMO_RUT}?{Q}").headers["X-DGI-Cache"] == "hit"


def test_the_cache_time_is_configurable_and_zero_turns_it_off(get, service_app):
    service_app.config["DGI_CACHE_SECONDS"] = 0
    for _ in range(2):
        assert get(f"consultaRut/{data.DEMO_RUT}?{Q}").headers["X-DGI-Cache"] == "miss"


def test_the_cache_time_comes_from_the_environment(monkeypatch, service_config):
    from portal.service import create_app

    monkeypatch.setenv("CFE_DGI_CACHE_SECONDS", "42")
    monkeypatch.setenv("CFE_DGI_BACKEND", "soap")
    app = create_app(service_config)
    try:
        assert (app.config["DGI_CACHE_SECONDS"], app.config["DGI_BACKEND"]) == (42, "soap")
    finally:
        app.extensions["db_engine"].dispose()


def test_a_wrong_backend_setting_stops_the_service_at_start(service_config):
    from portal.service import create_app

    with pytest.raises(ValueError, match="DGI_BACKEND"):
        create_app({**service_config, "DGI_BACKEND": "carrier-pigeon"})


# --- DGI failures ----------------------------------------------------------------------------------------


def test_a_slow_dgi_is_a_504_within_the_configured_timeout(get, service_app, soap):
    soap.app.delay = 5
    service_app.config["DGI_TIMEOUT_SECONDS"] = 0.5
    started = time.monotonic()
    answer = get(f"consultaRut/{data.DEMO_RUT}?{Q}")
    elapsed = time.monotonic() - started
    assert answer.status_code == 504 and answer.get_json()["error"]["code"] == "dgi_timeout"
    assert elapsed < soap.app.delay  # cut short by the timeout: it did not wait for DGI's (late) answer
    soap.app.delay = 0
    assert get(f"consultaRut/{data.DEMO_RUT}?{Q}").status_code == 200  # the failure was not cached


def test_an_unreachable_dgi_is_a_502(get, service_app):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    service_app.config.update(
        DGI_BACKEND="soap", DGI_SOAP_URL=f"http://127.0.0.1:{port}/ePrueba/x", DGI_TIMEOUT_SECONDS=2
    )
    answer = get(f"consultaRut/{data.DEMO_RUT}?{Q}")
    assert answer.status_code == 502
    assert answer.get_json()["error"]["code"] == "dgi_unavailable"
    assert "DGI" in answer.get_json()["error"]["message"]


# --- SOAP backend end to end -----------------------------------------------------------------------------


def test_the_soap_backend_signs_with_the_chosen_company_certificate(get, service_app, soap):
    soap.app.trusted = {_certificate_der(service_app, DEMO_CERT)}  # DGI knows only Demo S.A.'s certificate
    answer = get(f"consultaDatosEntidad/{data.DGI_CEDE_RUT}?{Q}")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["denominacion"] == "DGI RUC PRUEBA CEDE" and body["domicilioFiscal"]["localidad"] == "CASUPA"
    assert body["emisorElectronico"] is None  # DGI's RUT service does not say
    envelope = etree.fromstring(soap.app.last_request)
    assert envelope.xpath("soap:Header/wsse:Security/ds:Signature/ds:SignatureValue/text()", namespaces=NS)
    assert soap.app.last_verified is not None  # the stand-in verified the Body signature
    assert soap.app.last_verified.certificate_der == _certificate_der(service_app, DEMO_CERT)


def test_the_soap_backend_with_another_certificate_is_refused_by_dgi(get, auth_headers, service_app, soap):
    soap.app.trusted = {_certificate_der(service_app, DEMO_CERT)}
    answer = get(f"consultaRut/{data.DEMO_RUT}?idEmpresa=2&idCertificado={NORTE_CERT}", auth_headers("admin@demo.uy"))
    assert answer.status_code == 502 and answer.get_json()["error"]["code"] == "dgi_fault"
    assert soap.app.last_verified.certificate_der == _certificate_der(service_app, NORTE_CERT)


def test_the_soap_backend_answers_rut_and_name_by_rut_and_404_for_unknown(get, soap):
    assert get(f"consultaRut/{data.DGI_RUT}?{Q}").get_json()["denominacion"] == "DIRECCION GENERAL IMPOSITIVA"
    name = get(f"consultaNombreEntidad?{Q}&tipoDoc=2&nroDoc={data.DGI_RUT}")
    assert name.get_json()["nombre"] == "DIRECCION GENERAL IMPOSITIVA"
    unknown = get(f"consultaRut/{data.UNKNOWN_RUT}?{Q}")
    assert unknown.status_code == 404 and unknown.get_json()["error"]["code"] == "taxpayer_not_found"


@pytest.mark.parametrize(
    "path", [f"consultaCva/{data.DEMO_RUT}?{Q}", f"consultaNombreEntidad?{Q}&tipoDoc=3&nroDoc={data.PERSON_CI}"]
)
def test_what_dgi_offers_no_web_service_for_is_501_with_soap(get, soap, path):
    answer = get(path)
    assert answer.status_code == 501 and answer.get_json()["error"]["code"] == "dgi_not_offered"


# --- OpenAPI ---------------------------------------------------------------------------------------------


def test_the_four_lookups_are_documented(api_client):
    doc = api_client.get("/api/v1/openapi.json").get_json()
    paths = {
        "/api/v1/dgi/consultaRut/{rut}": "Entidad",
        "/api/v1/dgi/consultaNombreEntidad": "NombreEntidad",
        "/api/v1/dgi/consultaCva/{rut}": "EstadoCva",
        "/api/v1/dgi/consultaDatosEntidad/{rut}": "DatosEntidad",
    }
    for path, schema in paths.items():
        op = doc["paths"][path]["get"]
        assert op["tags"] == ["DGI"]
        assert {"bearerAuth", "apiKeyAuth"} == {next(iter(s)) for s in op["security"]}
        params = {p["name"]: p for p in op["parameters"]}
        assert params["idEmpresa"]["required"] and params["idCertificado"]["required"]
        assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(schema)
        assert {"403", "404", "422", "502", "504"} <= set(op["responses"])
    nombre = {p["name"]: p for p in doc["paths"]["/api/v1/dgi/consultaNombreEntidad"]["get"]["parameters"]}
    assert nombre["tipoDoc"]["schema"]["enum"] == [1, 2, 3, 4, 5, 6, 7]
    assert doc["components"]["schemas"]["EstadoCva"]["examples"]
