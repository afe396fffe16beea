"""With CFE_ACCREDITED_CAS set, what other companies send is believed only when an accredited certification
authority issued its signer's certificate (portal/service/platform/accredited_cas.py): a self-signed certificate
that names a supplier's RUT, or one from another CA that copies an accredited one's name, no longer puts invented
purchases in a company's books, marks its received CFEs rejected by DGI, or answers for a customer."""

from __future__ import annotations

import base64

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree
from lxml.builder import ElementMaker
from sqlalchemy import select

from portal.service import create_app
from portal.service.cfe import CfeSigner
from portal.service.cfe.signing import shared_signer
from portal.service.dgi.wsse import BodySignature
from portal.service.intercambio import answers
from portal.service.intercambio.models import ExchangeEnvelope
from portal.service.intercambio.transport import NAMESPACE
from portal.service.platform import db
from portal.service.platform.i18n import say
from portal.service.platform.models import Company
from portal.service.recibidos import annulments, intake
from portal.service.recibidos.models import ReceivedEnvelope
from portal.service.recibidos.ws import URL_PATH
from tests.support import recibidos as sup
from tests.support.certificates import Certificate, make_authority, make_certificate
from tests.support.cfe_bodies import issue
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import RecordingTransport, receiver_ack_sobre, to_norte

NS = {"d": "http://cfe.dgi.gub.uy"}
ACCREDITED = make_authority("Autoridad Certificadora Acreditada")
# Another CA that calls itself by the accredited one's name: only the accredited one's key makes a certificate.
IMPOSTOR = make_authority("Autoridad Certificadora Acreditada")


@pytest.fixture
def bundle(tmp_path):
    path = tmp_path / "acreditadas.pem"
    path.write_bytes(ACCREDITED.cert_pem)
    return path


@pytest.fixture
def service_config(service_config, bundle):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0, "ACCREDITED_CAS_PATH": str(bundle)}


def _envelope_from(certificate: Certificate) -> bytes:
    signer = CfeSigner(certificate.key_pem, certificate.cert_pem)
    der = x509.load_pem_x509_certificate(certificate.cert_pem).public_bytes(Encoding.DER)
    return sup.envelope([sup.cfe(1, sign_with=signer)], certificate=base64.b64encode(der).decode())


def _received(app, data: bytes) -> tuple[str, list[str], int]:
    """The envelope's state, its motives' details and how many CFEs were kept."""
    with app.app_context(), db.write_transaction() as session:
        result = intake.receive(session, session.get(Company, 1), data, "api", source_name="sobre.xml")
        return result.estado, [m.get("detalle", "") for m in result.motives], len(result.cfe_ids)


def test_an_envelope_is_received_only_from_a_certificate_an_accredited_authority_issued(service_app):
    self_signed = make_certificate(sup.SUPPLIER_RUT, "Proveedor falso")
    estado, motives, kept = _received(service_app, _envelope_from(self_signed))
    assert (estado, kept) == ("BS", 0) and "autoridad certificadora acreditada" in motives[0]
    impostor = make_certificate(sup.SUPPLIER_RUT, "Proveedor", issued_by=IMPOSTOR)
    estado, motives, kept = _received(service_app, _envelope_from(impostor))
    assert (estado, kept) == ("BS", 0) and "autoridad certificadora acreditada" in motives[0]
    genuine = make_certificate(sup.SUPPLIER_RUT, "Proveedor", issued_by=ACCREDITED)
    assert _received(service_app, _envelope_from(genuine))[::2] == ("AS", 1)


def test_a_dgi_rejection_notice_is_believed_only_from_an_accredited_certificate(service_app):
    genuine = make_certificate(sup.SUPPLIER_RUT, "Proveedor", issued_by=ACCREDITED)
    assert _received(service_app, _envelope_from(genuine))[::2] == ("AS", 1)
    maker = ElementMaker(namespace=NS["d"], nsmap={None: NS["d"]})
    notice = maker.CFEs_Anulados_x_RechazoDGI(
        maker.Caratula(
            maker.RUCEmisor(sup.SUPPLIER_RUT),
            maker.RUCReceptor(sup.RECEIVER_RUT),
            maker.IDComunicacion("1"),
            maker.CantCFEAnulados("1"),
            maker.Tmst("2026-11-27T10:00:00-03:00"),
        ),
        maker.CFEAnulado(
            maker.TipoCFE("111"),
            maker.Serie("A"),
            maker.NroCFE("1"),
            maker.FechaCFE("2026-11-27"),
            maker.Motivo_Cod("RD"),
            maker.Motivo_Glosa("Comprobante anulado por rechazo de DGI"),
        ),
        version="1.0",
    )
    forged = make_certificate(sup.SUPPLIER_RUT, "Proveedor falso")
    with service_app.app_context():
        signed_by_anyone = CfeSigner(forged.key_pem, forged.cert_pem).sign(etree.fromstring(etree.tostring(notice)))
        with pytest.raises(annulments.NoticeRefused, match="acreditada") as refused:
            annulments.record_notice(1, signed_by_anyone.xml)
        assert say(refused.value.message, "en") == (
            "The signature's certificate was not issued by an accredited certification authority."
        )
        signed = CfeSigner(genuine.key_pem, genuine.cert_pem).sign(etree.fromstring(etree.tostring(notice)))
        assert annulments.record_notice(1, signed.xml) == 1


def test_a_customers_answer_is_believed_only_from_an_accredited_certificate(
    api_client, auth_headers, service_app, monkeypatch
):
    from portal.service.intercambio import transport

    monkeypatch.setattr(transport, "deliver", RecordingTransport())
    user = auth_headers("usuario@demo.uy")
    issue(api_client, user, to_norte())
    drain(service_app)
    outside = "215550020013"  # a customer that is not a company of this service
    with service_app.app_context(), db.write_transaction() as session:
        session.get(ExchangeEnvelope, 1).receiver_rut = outside
    for certificate, believed in (
        (make_certificate(outside, "Receptor externo"), False),
        (make_certificate(outside, "Receptor externo", issued_by=ACCREDITED), True),
    ):
        answer = receiver_ack_sobre(
            service_app, signer=shared_signer(certificate.key_pem, certificate.cert_pem, "sha256"), rut=outside
        )
        with service_app.app_context(), db.write_transaction() as session:
            if believed:
                answers.record_answer(session, 1, answer, "ws")
                continue
            with pytest.raises(answers.AnswerRejected) as refused:
                answers.record_answer(session, 1, answer, "ws")
            assert refused.value.code == "certificado_invalido" and "acreditada" in str(refused.value)


def test_a_bundle_that_cannot_be_read_or_holds_no_authority_stops_the_service_at_start(service_config, tmp_path):
    with pytest.raises(ValueError, match="CFE_ACCREDITED_CAS"):
        create_app({**service_config, "ACCREDITED_CAS_PATH": str(tmp_path / "missing.pem")})
    leaf_only = tmp_path / "leaf.pem"
    leaf_only.write_bytes(make_certificate(sup.SUPPLIER_RUT).cert_pem)
    with pytest.raises(ValueError, match="ningún certificado de autoridad"):
        create_app({**service_config, "ACCREDITED_CAS_PATH": str(leaf_only)})


def test_a_cae_file_is_taken_only_when_an_accredited_authority_issued_its_signers_certificate(api_client, auth_headers):
    """A CAE file whose signature holds but whose certificate is self-signed (anyone can make one saying
    "DGI") would let numbers DGI never authorised be issued."""
    from tests.support.empresa_files import cae_xml

    admin = auth_headers("admin@demo.uy", company_id=1)

    def upload(signer_certificate: Certificate, cae_id: int):
        signer = CfeSigner(signer_certificate.key_pem, signer_certificate.cert_pem)
        return api_client.post(
            "/api/v1/empresa/cae",
            data=cae_xml(tipo=111, serie="C", cae_id=cae_id, signer=signer),
            content_type="application/xml",
            headers=admin,
        )

    forged = upload(make_certificate("219999830019", "DGI"), 90260000051)
    assert forged.status_code == 422, forged.json
    assert [f["code"] for f in forged.json["error"]["fields"]] == ["firmante_no_acreditado"]
    assert "autoridad certificadora acreditada" in forged.json["error"]["message"]
    assert upload(make_certificate("219999830019", "DGI", issued_by=IMPOSTOR), 90260000052).status_code == 422
    genuine = upload(make_certificate("219999830019", "DGI", issued_by=ACCREDITED), 90260000053)
    assert genuine.status_code == 201, genuine.json


SOAP = "http://schemas.xmlsoap.org/soap/envelope/"


def _sobre_call(document: bytes, signed_by: Certificate) -> bytes:
    """A call of the exchange web service's SOBRE carrying `document`, its Body signed (WS-Security) by `signed_by`."""
    envelope = etree.Element(f"{{{SOAP}}}Envelope", nsmap={"soap": SOAP})
    body = etree.SubElement(envelope, f"{{{SOAP}}}Body")
    call = etree.SubElement(body, f"{{{NAMESPACE}}}WS_eFactura_Intercambio.SOBRE", nsmap={None: NAMESPACE})
    etree.SubElement(
        etree.SubElement(call, f"{{{NAMESPACE}}}Datain"), f"{{{NAMESPACE}}}xmlData"
    ).text = document.decode()
    BodySignature(signed_by.key_pem, signed_by.cert_pem).apply(envelope, {})
    return etree.tostring(envelope, xml_declaration=True, encoding="utf-8")


def test_the_exchange_web_service_believes_only_a_ws_security_signer_an_accredited_authority_issued(
    api_client, service_app
):
    supplier = make_certificate(sup.SUPPLIER_RUT, "Proveedor", issued_by=ACCREDITED)
    document = _envelope_from(supplier)  # an envelope its own check accepts: only the caller's signature differs
    for caller in (
        make_certificate(sup.SUPPLIER_RUT, "Proveedor", issued_by=IMPOSTOR),
        make_certificate(sup.SUPPLIER_RUT, "Proveedor falso"),
    ):
        refused = api_client.post(URL_PATH, data=_sobre_call(document, caller), content_type="text/xml")
        # SOAP 1.1: a Fault travels with HTTP 500, as the endpoint's other refusals (a signature that does not verify)
        assert refused.status_code == 500 and refused.content_type.startswith("text/xml")
        fault = etree.fromstring(refused.data).find(f".//{{{SOAP}}}Fault")
        assert fault.findtext("faultcode") == "SOAP-ENV:Client"
        assert "WS-Security" in fault.findtext("faultstring") and "acreditada" in fault.findtext("faultstring")
    with service_app.app_context():
        assert db.session().scalar(select(ReceivedEnvelope.id)) is None  # nothing of the refused calls was kept

    accepted = api_client.post(URL_PATH, data=_sobre_call(document, supplier), content_type="text/xml")
    assert accepted.status_code == 200, accepted.data
    answer = etree.fromstring(etree.fromstring(accepted.data).findtext(f".//{{{NAMESPACE}}}xmlData").encode())
    assert answer.findtext("Respuesta/Codigo") == "0", etree.tostring(answer)
    with service_app.app_context():
        assert db.session().scalar(select(ReceivedEnvelope.estado)) == "AS"


def test_the_exchange_web_service_refuses_a_ws_security_signer_out_of_its_validity(api_client, service_app):
    import datetime as dt

    supplier = make_certificate(sup.SUPPLIER_RUT, "Proveedor", issued_by=ACCREDITED)
    now = dt.datetime.now(dt.UTC)
    expired = make_certificate(
        sup.SUPPLIER_RUT,
        "Proveedor",
        not_before=now - dt.timedelta(days=400),
        not_after=now - dt.timedelta(days=1),
        issued_by=ACCREDITED,
    )
    refused = api_client.post(URL_PATH, data=_sobre_call(_envelope_from(supplier), expired), content_type="text/xml")
    assert refused.status_code == 500
    fault = etree.fromstring(refused.data).find(f".//{{{SOAP}}}Fault")
    assert fault.findtext("faultcode") == "SOAP-ENV:Client" and "no está vigente" in fault.findtext("faultstring")
    with service_app.app_context():
        assert db.session().scalar(select(ReceivedEnvelope.id)) is None
