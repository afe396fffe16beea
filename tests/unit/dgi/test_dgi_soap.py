"""The SOAP client against the local DGI stand-in: answers, signatures, errors, timeouts."""

from __future__ import annotations

import socket
import time
from dataclasses import replace

import pytest
from cachelib import SimpleCache
from lxml import etree
from werkzeug.wrappers import Response

from portal.service.dgi import (
    CachedRegistry,
    DgiInvalidInput,
    DgiNotOffered,
    DgiTimeout,
    DgiUnavailable,
    TaxpayerNotFound,
    make_registry,
)
from portal.service.dgi import sandbox_data as data
from portal.service.dgi.soap import SoapRegistry, close_shared_session
from tests.support.dgi_standin import SOAP_ACTION
from tests.support.servers import serving

NS = {
    "soap": "http://schemas.xmlsoap.org/soap/envelope/",
    "ds": "http://www.w3.org/2000/09/xmldsig#",
    "wsse": "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd",
    "wsu": "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd",
}


def test_consulta_datos_entidad_reads_what_dgi_answers(soap_registry, sandbox):
    entity = soap_registry.consulta_datos_entidad(data.DGI_CEDE_RUT)
    expected = sandbox.consulta_datos_entidad(data.DGI_CEDE_RUT)
    assert entity == replace(expected, emisor_electronico=None, emisor_electronico_desde=None)


def test_consulta_rut_and_nombre_entidad_by_rut(soap_registry):
    identity = soap_registry.consulta_rut(data.DEMO_RUT)
    assert (identity.denominacion, identity.domicilio_fiscal) == ("DGI RUC PRUEBA NO CEDE", None)
    assert soap_registry.consulta_nombre_entidad(2, data.DGI_RUT).nombre == "DIRECCION GENERAL IMPOSITIVA"


def test_the_request_carries_a_body_signature_that_the_stand_in_verified(soap_registry, standin, certificate):
    soap_registry.consulta_rut(data.DEMO_RUT)
    envelope = etree.fromstring(standin.app.last_request)
    (token,) = envelope.xpath("soap:Header/wsse:Security/wsse:BinarySecurityToken", namespaces=NS)
    (reference,) = envelope.xpath("soap:Header/wsse:Security/ds:Signature/ds:SignedInfo/ds:Reference", namespaces=NS)
    (body_id,) = envelope.xpath("soap:Body/@wsu:Id", namespaces=NS)
    assert token.text and reference.get("URI") == f"#{body_id}"
    assert standin.app.last_verified is not None
    assert standin.app.last_verified.certificate_der == certificate.der
    assert standin.app.last_verified.signed_ids == (body_id,)


def test_the_stand_in_refuses_a_tampered_body(soap_registry, standin, http_session):
    soap_registry.consulta_rut(data.DEMO_RUT)
    tampered = standin.app.last_request.replace(f">{data.DEMO_RUT}<".encode(), f">{data.DGI_RUT}<".encode())
    assert tampered != standin.app.last_request
    response = http_session.post(
        standin.url, data=tampered, headers={"SOAPAction": f'"{SOAP_ACTION}"', "Content-Type": "text/xml"}
    )
    assert response.status_code == 500
    fault = etree.fromstring(response.content)
    assert "digest mismatch" in fault.findtext("soap:Body/soap:Fault/faultstring", namespaces=NS)
    assert standin.app.last_verified is None


def test_the_stand_in_refuses_an_unsigned_request(soap_registry, standin, http_session):
    soap_registry.consulta_rut(data.DEMO_RUT)
    envelope = etree.fromstring(standin.app.last_request)
    header = envelope.find("soap:Header", namespaces=NS)
    envelope.remove(header)
    response = http_session.post(
        standin.url,
        data=etree.tostring(envelope),
        headers={"SOAPAction": f'"{SOAP_ACTION}"', "Content-Type": "text/xml"},
    )
    assert response.status_code == 500 and b"wsse:Security" in response.content


def test_a_certificate_dgi_does_not_accept_is_a_fault(standin, other_certificate, certificate, http_session):
    standin.app.trusted = {other_certificate.der}
    registry = SoapRegistry(certificate.loader(), url=standin.url, timeout=5, session=http_session)
    with pytest.raises(DgiUnavailable) as caught:
        registry.consulta_rut(data.DEMO_RUT)
    assert (caught.value.status, caught.value.code) == (502, "dgi_fault")
    assert "certificate not registered" in caught.value.message


def test_an_unknown_rut_is_not_found(soap_registry):
    with pytest.raises(TaxpayerNotFound, match="no disponible"):
        soap_registry.consulta_datos_entidad(data.UNKNOWN_RUT)


def test_a_slow_dgi_times_out(standin, certificate, http_session):
    standin.app.delay = 5
    registry = SoapRegistry(certificate.loader(), url=standin.url, timeout=1, session=http_session)
    started = time.monotonic()
    with pytest.raises(DgiTimeout) as caught:
        registry.consulta_rut(data.DEMO_RUT)
    assert time.monotonic() - started < standin.app.delay  # cut short by the timeout, not DGI's late answer
    assert (caught.value.status, caught.value.code) == (504, "dgi_timeout")


def test_a_closed_port_is_unavailable(certificate, http_session):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    registry = SoapRegistry(certificate.loader(), url=f"http://127.0.0.1:{port}/ws", timeout=2, session=http_session)
    with pytest.raises(DgiUnavailable) as caught:
        registry.consulta_rut(data.DEMO_RUT)
    assert (caught.value.status, caught.value.code) == (502, "dgi_unavailable")


def test_an_http_error_page_is_unavailable(certificate, http_session):
    def gateway_down(environ, start_response):
        return Response("<html>502 Bad Gateway</html>", status=502, content_type="text/html")(environ, start_response)

    with serving(gateway_down) as server:
        registry = SoapRegistry(certificate.loader(), url=f"{server.url}/ws", timeout=2, session=http_session)
        with pytest.raises(DgiUnavailable) as caught:
            registry.consulta_rut(data.DEMO_RUT)
        assert caught.value.code == "dgi_http_error"


def test_lookups_dgi_does_not_offer(soap_registry, standin):
    with pytest.raises(DgiNotOffered) as caught:
        soap_registry.consulta_nombre_entidad(3, data.INDIVIDUAL_CI)
    assert (caught.value.status, caught.value.code) == (501, "dgi_not_offered")
    assert isinstance(caught.value, DgiUnavailable)
    with pytest.raises(DgiNotOffered):
        soap_registry.consulta_cva(data.DEMO_RUT)
    assert standin.app.last_request is None  # nothing was sent


def test_invalid_input_is_refused_before_the_certificate_or_the_network(standin):
    def no_certificate():
        raise AssertionError("the certificate must not be loaded for an invalid RUT")

    registry = SoapRegistry(no_certificate, url=standin.url)
    with pytest.raises(DgiInvalidInput):
        registry.consulta_rut("219999830018")
    assert standin.app.last_request is None


def test_make_registry_builds_a_cached_soap_registry_that_works(standin, certificate):
    registry = make_registry(
        {
            "DGI_BACKEND": "soap",
            "DGI_SOAP_URL": standin.url,
            "DGI_TIMEOUT_SECONDS": 5,
            "DGI_CERTIFICATE": certificate.loader(),
            "DGI_CACHE_SECONDS": 60,
            "DGI_CACHE": SimpleCache(),
        }
    )
    try:
        assert isinstance(registry, CachedRegistry)
        first = registry.consulta_rut(data.INDIVIDUAL_RUT)
        standin.app.last_request = None
        assert registry.consulta_rut(data.INDIVIDUAL_RUT) == first
        assert standin.app.last_request is None  # the second answer came from the cache
    finally:
        close_shared_session()
