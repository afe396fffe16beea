"""The one intake of received envelopes: each S motive of the envelope and each E motive of a CFE, what is
stored (byte for byte, all or nothing), and the signed answers (valid against DGI's XSDs, verified by xmlsec1)."""

from __future__ import annotations

import re
import subprocess
from datetime import datetime, timedelta

import pytest
from lxml import etree
from sqlalchemy import func, select

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe import CfeSigner, Issuer
from portal.service.cfe.schema import validate_xml
from portal.service.envios import acks as dgi_acks
from portal.service.intercambio import envelope as exchange_envelope
from portal.service.platform import db
from portal.service.platform.certificates import generate_self_signed
from portal.service.platform.models import Certificate, Company
from portal.service.recibidos import intake
from portal.service.recibidos.models import ExchangeAnswer, ReceivedCfe, ReceivedEnvelope
from tests.support import recibidos as sup

NS = {"d": "http://cfe.dgi.gub.uy"}
DEMO = 1


def _receive(app, data: bytes, channel: str = "api") -> intake.IntakeResult:
    with app.app_context():
        with db.write_transaction() as session:
            company = session.get(Company, DEMO)
            return intake.receive(session, company, data, channel, source_name="sobre.xml")


def _answers(app, result: intake.IntakeResult) -> list[ExchangeAnswer]:
    with app.app_context():
        session = db.session()
        return [session.get(ExchangeAnswer, answer_id) for answer_id in result.answer_ids]


def _sobre_motive(app, result) -> str:
    answer = _answers(app, result)[0]
    assert validate_xml(answer.document, "ACKSobre.xsd") == []  # DGI's Glosa for the motive, its lengths
    root = etree.fromstring(answer.document)
    assert root.findtext("d:Detalle/d:Estado", namespaces=NS) == "BS"
    return root.findtext("d:Detalle/d:MotivosRechazo/d:Motivo", namespaces=NS)


def _cfe_lines(app, result) -> list[tuple[int, str, list[str]]]:
    return [
        (v.ordinal, v.estado, [m["codigo"] for m in v.motives])
        for v in dgi_acks.read_ack_cfe(_valid_ack_cfe(_answers(app, result)[1].document))
    ]


def _valid_ack_cfe(document: bytes) -> bytes:
    assert validate_xml(document, "ACKCFE_Partes.xsd") == []
    return document


@pytest.fixture
def app(service_app):
    return service_app


def _demo_cert(app) -> bytes:
    with app.app_context():
        return db.session().scalar(select(Certificate.cert_pem).where(Certificate.company_id == DEMO)).encode()


def _xmlsec1(xml: bytes, cert_pem: bytes, tmp_path, name: str) -> subprocess.CompletedProcess:
    (tmp_path / name).write_bytes(xml)
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    return subprocess.run(
        ["xmlsec1", "--verify", "--pubkey-cert-pem", str(tmp_path / "cert.pem"), str(tmp_path / name)],
        capture_output=True,
        text=True,
    )


def test_a_good_envelope_is_stored_byte_for_byte_and_answered_with_signed_valid_acks(app, tmp_path):
    first, second = sup.cfe(1), sup.cfe(2)
    data = sup.envelope([first, second], adendas=["Orden de compra 77", None], idemisor=42)
    result = _receive(app, data)
    assert (result.estado, result.accepted, result.rejected) == ("AS", 2, 0)
    with app.app_context():
        session = db.session()
        sobre = session.get(ReceivedEnvelope, result.sobre_id)
        assert sobre.xml == data and sobre.rut_emisor == sup.SUPPLIER_RUT and sobre.idemisor == 42
        rows = [session.get(ReceivedCfe, i) for i in result.cfe_ids]
    # The signed CFE as its issuer signed it (the envelope spliced it in unchanged), minus the declaration.
    assert [r.xml for r in rows] == [first.split(b"?>", 1)[1].lstrip(), second.split(b"?>", 1)[1].lstrip()]
    assert [r.adenda for r in rows] == ["Orden de compra 77", None]
    assert [(r.tipo_cfe, r.serie, r.nro, r.estado) for r in rows] == [(111, "A", 1, "AE"), (111, "A", 2, "AE")]
    assert rows[0].nombre_emisor == "Comercial del Norte S.R.L." and rows[0].mnt_total > 0

    ack_sobre, ack_cfe = _answers(app, result)
    assert validate_xml(ack_sobre.document, "ACKSobre.xsd") == []
    assert validate_xml(ack_cfe.document, "ACKCFE_Partes.xsd") == []
    cert = _demo_cert(app)
    for answer in (ack_sobre, ack_cfe):
        checked = _xmlsec1(answer.document, cert, tmp_path, answer.filename)
        assert checked.returncode == 0, checked.stderr
    sobre_root = etree.fromstring(ack_sobre.document)
    assert sobre_root.findtext("d:Detalle/d:Estado", namespaces=NS) == "AS"
    assert sobre_root.findtext("d:Caratula/d:RUCReceptor", namespaces=NS) == sup.RECEIVER_RUT
    assert sobre_root.findtext("d:Caratula/d:IDEmisor", namespaces=NS) == "42"
    assert sobre_root.findtext("d:Caratula/d:IDRespuesta", namespaces=NS) == str(ack_sobre.id)
    cfe_root = etree.fromstring(ack_cfe.document)
    assert cfe_root.findtext("d:Caratula/d:CantCFEAceptados", namespaces=NS) == "2"
    assert cfe_root.findtext("d:Caratula/d:CantCFERechazados", namespaces=NS) == "0"
    assert _cfe_lines(app, result) == [(1, "AE", []), (2, "AE", [])]


# --- each envelope motive -------------------------------------------------------------------------------


def test_s01_not_xml_or_with_a_doctype(app):
    assert _sobre_motive(app, _receive(app, b"esto no es un sobre")) == "S01"
    hostile = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>'
    assert _sobre_motive(app, _receive(app, hostile)) == "S01"


def test_s01_a_document_that_is_not_an_exchange_envelope(app):
    assert _sobre_motive(app, _receive(app, sup.cfe(1))) == "S01"


def test_s04_the_caratula_breaks_the_schema(app):
    data = sup.envelope([sup.cfe(1)]).replace(b"<DGICFE:Idemisor>1</DGICFE:Idemisor>", b"")
    assert _sobre_motive(app, _receive(app, data)) == "S04"


def _one_line(cfes: list[bytes], idemisor: int = 1) -> bytes:
    """An envelope as this product's own exchange writes it: the Caratula and the CFEs on one line."""
    return exchange_envelope.build(
        [(signed, None) for signed in cfes],
        rut_receptor=sup.RECEIVER_RUT,
        rut_emisor=sup.SUPPLIER_RUT,
        idemisor=idemisor,
        moment=datetime.now(MONTEVIDEO),
        cert_pem=sup.supplier_keys(sup.SUPPLIER_RUT)[1],
    )


def test_s04_a_broken_caratula_on_the_first_cfes_line_is_the_envelopes_not_that_cfes(app):
    data = re.sub(rb"<DGICFE:Fecha>[^<]*</DGICFE:Fecha>", b"<DGICFE:Fecha>ayer</DGICFE:Fecha>", _one_line([sup.cfe(1)]))
    assert _sobre_motive(app, _receive(app, data)) == "S04"


def test_a_broken_cfe_of_a_one_line_envelope_is_that_cfe_alone(app):
    def bad_payment(root):
        root.find(".//d:IdDoc/d:FmaPago", namespaces=NS).text = "7"

    result = _receive(app, _one_line([sup.cfe(1), sup.cfe(2, tamper=bad_payment), sup.cfe(3)]))
    assert _cfe_lines(app, result) == [(1, "AE", []), (2, "BE", ["E05"]), (3, "AE", [])]


def test_s02_the_envelope_is_for_another_rut(app):
    assert _sobre_motive(app, _receive(app, sup.envelope([sup.cfe(1)], rut_receptor="214844360018"))) == "S02"


def test_s03_an_unreadable_or_expired_certificate(app):
    assert _sobre_motive(app, _receive(app, sup.envelope([sup.cfe(1)], certificate="QUJDRA=="))) == "S03"
    import base64

    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    _key, cert_pem = generate_self_signed(sup.SUPPLIER_RUT, "Vencido", days=0)
    expired = base64.b64encode(x509.load_pem_x509_certificate(cert_pem).public_bytes(Encoding.DER)).decode()
    result = _receive(app, sup.envelope([sup.cfe(1)], certificate=expired))
    # A certificate valid for zero days has ended by now (its validity started five minutes ago).
    assert _sobre_motive(app, result) == "S03"


def test_s05_cantcfe_does_not_match(app):
    assert _sobre_motive(app, _receive(app, sup.envelope([sup.cfe(1), sup.cfe(2)], cant_cfe=3))) == "S05"


def test_s06_a_cfe_signed_with_another_certificate(app):
    key_pem, cert_pem = generate_self_signed(sup.SUPPLIER_RUT, "Otro certificado")
    other = sup.cfe(2, sign_with=CfeSigner(key_pem, cert_pem))
    assert _sobre_motive(app, _receive(app, sup.envelope([sup.cfe(1), other]))) == "S06"


def test_s07_too_big_is_refused_before_parsing_and_not_kept(app):
    data = sup.envelope([sup.cfe(1)]).replace(b"</DGICFE:EnvioCFE_entreEmpresas>", b" " * (2 * 1024 * 1024))
    result = _receive(app, data)
    assert _sobre_motive(app, result) == "S07"
    with app.app_context():
        assert db.session().get(ReceivedEnvelope, result.sobre_id).xml is None


def test_s20_the_same_envelope_number_again(app):
    assert _receive(app, sup.envelope([sup.cfe(1)], idemisor=7)).estado == "AS"
    again = _receive(app, sup.envelope([sup.cfe(2)], idemisor=7))
    assert _sobre_motive(app, again) == "S20"
    assert again.cfe_ids == []  # nothing of a rejected envelope is booked


# --- each CFE motive --------------------------------------------------------------------------------------


def _lines_for(app, cfes: list[bytes], **kwargs) -> list[tuple[int, str, list[str]]]:
    result = _receive(app, sup.envelope(cfes, **kwargs))
    assert result.estado == "AS"
    return _cfe_lines(app, result)


def test_e04_a_cfe_changed_after_it_was_signed(app):
    tampered = sup.cfe(2).replace(b"Cajas de cart", b"Cajas de CART")
    assert _lines_for(app, [sup.cfe(1), tampered]) == [(1, "AE", []), (2, "BE", ["E04"])]


def test_e04_a_signed_cfe_hidden_in_a_comment_does_not_vouch_for_a_forged_one_beside_it(app):
    # The supplier's genuine CFE 1 sits in a comment; the CFE the envelope really carries is a copy changed to
    # number 7, under a prefix that a byte pattern for "<CFE" does not see. The signature covers only the first.
    genuine = sup.cfe(1).split(b"?>", 1)[1].lstrip()
    forged = (
        genuine.replace(b"<Nro>1</Nro>", b"<Nro>7</Nro>")
        .replace(b"<CFE ", '<ñ:CFE xmlns:ñ="http://cfe.dgi.gub.uy" '.encode(), 1)
        .replace(b"</CFE>", "</ñ:CFE>".encode())
    )
    data = sup.envelope([b"<!--" + genuine + b"-->\n" + forged])
    result = _receive(app, data)
    assert _cfe_lines(app, result) == [(1, "BE", ["E04"])]
    with app.app_context():
        row = db.session().get(ReceivedCfe, result.cfe_ids[0])
        assert (row.nro, row.estado) == (7, "BE") and b"<Nro>7</Nro>" in row.xml


def test_e03_a_number_outside_the_declared_cae_range(app):
    assert _lines_for(app, [sup.cfe(500, dnro=1, hnro=100)]) == [(1, "BE", ["E03"])]


def test_e07_signed_after_the_cae_expired(app):
    yesterday = datetime.now(MONTEVIDEO).date() - timedelta(days=1)
    assert _lines_for(app, [sup.cfe(1, fec_venc=yesterday)]) == [(1, "BE", ["E07"])]


def test_e09_a_cfe_of_another_issuer_in_the_envelope(app):
    other = Issuer(**{**sup.SUPPLIER.__dict__, "rut": "214844360018"})
    assert _lines_for(app, [sup.cfe(1, issuer=other, sign_with=sup.signer())]) == [(1, "BE", ["E09"])]


def test_e02_duplicates_within_an_envelope_and_across_envelopes(app):
    first = sup.cfe(1)
    assert _lines_for(app, [first, sup.cfe(2), first], idemisor=1) == [(1, "AE", []), (2, "AE", []), (3, "BE", ["E02"])]
    assert _lines_for(app, [sup.cfe(2), sup.cfe(3)], idemisor=2) == [(1, "BE", ["E02"]), (2, "AE", [])]


def test_e05_wrong_totals_a_broken_cfe_or_addressed_to_someone_else(app):
    def wrong_total(root):
        root.find(".//d:Totales/d:MntTotal", namespaces=NS).text = "99999.00"

    def no_items(root):
        doc = root[0]
        doc.remove(doc.find("d:Detalle", namespaces=NS))

    def another_buyer(root):
        root.find(".//d:Receptor/d:DocRecep", namespaces=NS).text = "214844360018"

    lines = _lines_for(
        app,
        [sup.cfe(1, tamper=wrong_total), sup.cfe(2), sup.cfe(3, tamper=no_items), sup.cfe(4, tamper=another_buyer)],
    )
    assert lines == [(1, "BE", ["E05"]), (2, "AE", []), (3, "BE", ["E05"]), (4, "BE", ["E05"])]


def test_a_rejected_cfe_does_not_claim_its_number(app):
    tampered = sup.cfe(1).replace(b"Cajas de cart", b"Cajas de CART")
    assert _lines_for(app, [tampered], idemisor=1) == [(1, "BE", ["E04"])]
    assert _lines_for(app, [sup.cfe(1)], idemisor=2) == [(1, "AE", [])]


# --- all or nothing -----------------------------------------------------------------------------------------


def test_a_failure_while_storing_leaves_nothing_half_stored(app, monkeypatch):
    from portal.service.recibidos import acks

    def broken(*args, **kwargs):
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr(acks, "ack_cfe", broken)
    with pytest.raises(RuntimeError):
        _receive(app, sup.envelope([sup.cfe(1), sup.cfe(2)]))
    with app.app_context():
        session = db.session()
        counts = [
            session.scalar(select(func.count()).select_from(t)) for t in (ReceivedEnvelope, ReceivedCfe, ExchangeAnswer)
        ]
    assert counts == [0, 0, 0]


def test_an_envelope_of_250_cfes_of_every_kind_gets_exactly_the_right_ackcfe_lines(app, tmp_path):
    """DGI's envelope shape at its maximum: 250 CFEs, a mix of good ones and one of each rejection."""
    yesterday = datetime.now(MONTEVIDEO).date() - timedelta(days=1)
    other_issuer = Issuer(**{**sup.SUPPLIER.__dict__, "rut": "214844360018"})

    def wrong_total(root):
        root.find(".//d:Totales/d:MntTotal", namespaces=NS).text = "1.00"

    eticket = {
        "tipoCFE": 101,
        "fmaPago": 1,
        "mntBruto": True,
        "items": [{"indFact": 3, "nomItem": "Café", "cantidad": "2", "precioUnitario": "122"}],
    }
    cfes: list[bytes] = []
    expected: list[tuple[int, str, list[str]]] = []
    by_ordinal: dict[int, bytes] = {}
    for ordinal in range(1, 251):
        kind = ordinal % 10
        if kind == 0:
            signed, codes = sup.cfe(ordinal, checked=False).replace(b"Fletes", b"FLETES"), ["E04"]
        elif kind == 1:
            signed, codes = sup.cfe(5000 + ordinal, hnro=999, checked=False), ["E03"]
        elif kind == 2:
            signed, codes = sup.cfe(ordinal, fec_venc=yesterday, checked=False), ["E07"]
        elif kind == 3:
            signed, codes = sup.cfe(ordinal, issuer=other_issuer, sign_with=sup.signer(), checked=False), ["E09"]
        elif kind == 4:
            signed, codes = sup.cfe(ordinal, tamper=wrong_total), ["E05"]
        elif kind == 5 and ordinal > 10:
            signed, codes = by_ordinal[ordinal - 6], ["E02"]  # the same as an accepted one earlier in the envelope
        else:
            body = eticket if kind == 7 else None  # e-Tickets beside e-Facturas, as in DGI's sample envelope
            signed, codes = sup.cfe(ordinal, body=body, checked=False), []
        by_ordinal[ordinal] = signed
        cfes.append(signed)
        expected.append((ordinal, "BE" if codes else "AE", codes))
    data = sup.envelope(cfes, adendas=[f"Adenda {n}" if n % 3 == 0 else None for n in range(1, 251)])
    assert len(data) < 2 * 1024 * 1024
    result = _receive(app, data)
    assert result.estado == "AS"
    assert _cfe_lines(app, result) == expected
    accepted = sum(1 for line in expected if line[1] == "AE")
    assert (result.accepted, result.rejected) == (accepted, 250 - accepted)
    ack = _answers(app, result)[1].document
    assert validate_xml(ack, "ACKCFE_Partes.xsd") == []
    root = etree.fromstring(ack)
    assert root.findtext("d:Caratula/d:CantCFEAceptados", namespaces=NS) == str(accepted)
    assert root.findtext("d:Caratula/d:CantenSobre", namespaces=NS) == "250"
    checked = _xmlsec1(ack, _demo_cert(app), tmp_path, "ackcfe.xml")
    assert checked.returncode == 0, checked.stderr
    with app.app_context():
        rows = db.session().scalars(select(ReceivedCfe).order_by(ReceivedCfe.ordinal)).all()
    assert len(rows) == 250 and rows[2].adenda == "Adenda 3" and rows[0].adenda is None
    assert all(row.xml == by_ordinal[row.ordinal].split(b"?>", 1)[1].lstrip() for row in rows)
