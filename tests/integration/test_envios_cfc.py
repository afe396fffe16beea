"""A contingency receipt (CFC) on its road to DGI: a paper receipt of a registered book, keyed in as its 1xx
element with TipoCFE 2xx, the paper's serie and number and the book's CAE data, signed with the company's
certificate; its envelope valid against EnvioCFE.xsd; DGI (the simulator) observes it (CE with C03-C15, never BE),
the observed one comes back corrected with the same number and is accepted; the daily report counts it on its
own line, valid against ReporteDiarioCFE.xsd."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from lxml import etree

from portal.domain.uruguay_time import MONTEVIDEO, today_montevideo
from portal.service.cfe import contingency
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import CfeSigner
from portal.service.comprobante.models import IssuedCfe
from portal.service.envios import acks, cfc, envelope, report_xml
from portal.service.envios.adapter import Credentials
from portal.service.envios.simulator import SimulatedDgi
from portal.service.platform import db
from portal.service.platform.certificates import generate_self_signed
from portal.service.platform.keystore import signer_for
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.envios import ENVIOS_CONFIG

RUT = "219999830019"
BOOK = {"tipoCFE": 211, "serie": "B", "desde": 1, "hasta": 500, "caeId": "90261234567"}


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG}


@pytest.fixture
def book(api_client, auth_headers):
    today = today_montevideo()
    body = {
        **BOOK,
        "fechaAutorizacion": (today - timedelta(days=30)).isoformat(),
        "vencimiento": (today + timedelta(days=700)).isoformat(),
    }
    answer = api_client.post("/api/v1/empresa/contingencia", json=body, headers=auth_headers("admin@demo.uy", 1))
    assert answer.status_code == 201, answer.json
    return answer.json


@pytest.fixture
def keyed_in(api_client, auth_headers, service_app, book):
    """key(nro, cae_id=...) -> the signed CFC 211 of paper number `nro` (built from the e-Factura the form would
    build for the same data), and the company certificate's PEM."""
    issued = bodies.issue(api_client, auth_headers("usuario@demo.uy"), bodies.body(bodies.EFACTURA))

    def key(nro: int, cae_id: str = BOOK["caeId"]) -> tuple[bytes, bytes]:
        with service_app.app_context():
            session = db.new_session()
            record = session.get(IssuedCfe, issued["idCfeEmitido"])
            cert = session.get(Certificate, record.certificate_id)
            xml = contingency.as_cfc(
                record.xml,
                tipo_cfe=211,
                serie="B",
                nro=nro,
                cae_id=cae_id,
                dnro=book["desde"],
                hnro=book["hasta"],
                fec_venc=date.fromisoformat(book["vencimiento"]),
                signer=signer_for(cert),
            )
            return xml, cert.cert_pem.encode()

    return key


def send(app, xml: bytes, cert_pem: bytes, idemisor: int) -> acks.CfeVerdict:
    sobre = envelope.build_envelope(
        [xml],
        rut_receptor="214844360018",
        rut_emisor=RUT,
        idemisor=idemisor,
        moment=datetime.now(MONTEVIDEO).replace(microsecond=0),
        cert_pem=cert_pem,
    )
    assert validate_xml(sobre, "EnvioCFE.xsd") == []
    with app.app_context():
        dgi = SimulatedDgi(app.config)
        credentials = Credentials(RUT, b"", cert_pem)
        ack = acks.read_ack_sobre(dgi.send_envelope(sobre, file_name="Sob.xml", credentials=credentials))
        assert ack.estado == "AS", ack.motives
        [verdict] = acks.read_ack_cfe(dgi.query_envelope(ack.id_receptor, ack.token, credentials=credentials))
        return verdict


def test_a_keyed_in_cfc_is_the_1xx_element_with_tipocfe_2xx_signed_and_valid(keyed_in):
    xml, _cert = keyed_in(7)
    root = etree.fromstring(xml)
    ns = {"d": "http://cfe.dgi.gub.uy"}
    assert root.find("d:eFact", ns) is not None  # the e-Factura's element
    assert root.findtext("d:eFact/d:Encabezado/d:IdDoc/d:TipoCFE", namespaces=ns) == "211"
    assert root.findtext("d:eFact/d:Encabezado/d:IdDoc/d:Serie", namespaces=ns) == "B"
    assert root.findtext("d:eFact/d:Encabezado/d:IdDoc/d:Nro", namespaces=ns) == "7"
    assert root.findtext("d:eFact/d:CAEData/d:CAE_ID", namespaces=ns) == BOOK["caeId"]
    assert len(root.findall("{http://www.w3.org/2000/09/xmldsig#}Signature")) == 1


def test_dgi_observes_a_cfc_never_rejects_it_and_accepts_it_corrected(keyed_in, service_app):
    wrong_book, cert = keyed_in(7, cae_id="90269999999")
    observed = send(service_app, wrong_book, cert, 901)
    assert observed.estado == "CE" and [m["codigo"] for m in observed.motives] == ["C09"]
    assert observed.motives[0]["glosa"] == "Tipo de CFC recibido no figura en la base de CFE certificados"
    outside, _ = keyed_in(600)
    assert send(service_app, outside, cert, 902).estado == "CE"  # C03, out of the book's range: still not BE
    corrected, _ = keyed_in(7)  # the same paper number, corrected
    accepted = send(service_app, corrected, cert, 903)
    assert (accepted.estado, accepted.motives) == ("AE", [])
    assert send(service_app, corrected, cert, 904).estado == "AE"  # DGI already holds it: no E02, no BE


def test_observation_codes_map_to_dgis_c_codes():
    motives = [{"codigo": "E03", "glosa": "x", "detalle": "fuera"}, {"codigo": "E07", "glosa": "y"}, {"codigo": "E02"}]
    assert cfc.observations(motives) == [
        {"codigo": "C03", "glosa": "Constancia no autorizada según registros", "detalle": "fuera"}
    ]
    assert contingency.base_type(281) == 181 and contingency.base_type(111) == 111


def test_the_daily_report_counts_cfc_on_their_own_line():
    cfe, cfc_summary = report_xml.TypeSummary(), report_xml.TypeSummary()
    totals = {"mntNetoIVATasaBasica": "100", "mntIVATasaBasica": "22", "mntTotal": "122"}
    today = today_montevideo()
    cfe.add_receipt(today, 1, "A", 1, totals, Decimal(1), above_threshold=False)
    cfc_summary.add_receipt(today, 1, "B", 7, totals, Decimal(1), above_threshold=False)
    cfc_summary.add_receipt(today, 1, "B", 8, totals, Decimal(1), above_threshold=False)
    document = report_xml.report_document(
        rut=RUT,
        fecha=today,
        sec_envio=1,
        signed_at=datetime.now(MONTEVIDEO).replace(microsecond=0),
        summaries={211: cfc_summary, 111: cfe, 201: cfc_summary},
    )
    names = [etree.QName(child).localname for child in document][1:]
    assert names == ["Rsmn_Tck_Cont", "Rsmn_Fac", "Rsmn_Fac_Cont"]  # the schema's order
    ns = {"d": "http://cfe.dgi.gub.uy"}
    assert document.findtext("d:Rsmn_Fac_Cont/d:RsmnData/d:CantCFCEmi", namespaces=ns) == "2"
    assert document.findtext("d:Rsmn_Fac/d:RsmnData/d:CantDocsEmi", namespaces=ns) == "1"
    signed = CfeSigner(*generate_self_signed(RUT, "test")).sign(document).xml
    assert validate_xml(signed, "ReporteDiarioCFE.xsd") == []


def test_the_times_dgi_observed_a_receipt_are_kept_and_shown(api_client, auth_headers, service_app):
    from portal.service.envios.models import DgiSubmission
    from portal.service.envios.sending import _record_verdict

    user = auth_headers("usuario@demo.uy")
    issued = bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))["idCfeEmitido"]
    observed = acks.CfeVerdict(
        ordinal=1,
        tipo_cfe=211,
        serie="B",
        nro=7,
        estado="CE",
        motives=cfc.observations([{"codigo": "E03"}]),
        fecha="",
        tmst="",
    )
    with service_app.app_context():
        for _ in range(2):
            with db.write_transaction() as session:
                sub = session.get(DgiSubmission, issued)
                _record_verdict(session, sub, session.get(IssuedCfe, issued), observed, datetime.now(MONTEVIDEO))
    dgi = api_client.get("/api/v1/comprobante/getByIdCfeEmitido", query_string={"idCfeEmitido": issued}, headers=user)
    state = dgi.json["dgi"]
    assert (state["estado"], state["observaciones"]) == ("observado", 2)
    observed = "Constancia no autorizada según registros"  # DGI's text of a C code: no other text of ours
    assert state["motivos"] == [{"codigo": "C03", "glosa": observed, "texto": observed}]
