"""The printed receipt through the API: paper per request (`formato`) or company default, the company's logo,
and reprints read from the signed XML as stored."""

from __future__ import annotations

import io
import re
import subprocess
from decimal import Decimal

import pytest
from PIL import Image
from sqlalchemy import select

from portal.service.cfe.pdf_text import money
from portal.service.comprobante.models import IssuedCfe
from portal.service.empresa.models import CompanySettings
from portal.service.platform import db
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

GET = "/api/v1/comprobante/getByIdCfeEmitido"
PREVIEW = "/api/v1/comprobante/previsualizar"
PDF = {"Accept": "application/pdf"}


@pytest.fixture
def user(auth_headers):
    return {**auth_headers("usuario@demo.uy"), **PDF}


def _width_mm(pdf: bytes, tmp_path) -> float:
    (tmp_path / "doc.pdf").write_bytes(pdf)
    info = subprocess.run(["pdfinfo", str(tmp_path / "doc.pdf")], capture_output=True, text=True, check=True).stdout
    return float(re.search(r"Page size:\s+([\d.]+) x", info).group(1)) * 25.4 / 72


def _text(pdf: bytes, tmp_path) -> str:
    (tmp_path / "doc.pdf").write_bytes(pdf)
    return subprocess.run(
        ["pdftotext", str(tmp_path / "doc.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout


def _settings(service_app, **values) -> None:
    with service_app.app_context():
        session = db.session()
        row = session.get(CompanySettings, 1) or CompanySettings(company_id=1)
        for name, value in values.items():
            setattr(row, name, value)
        session.add(row)
        session.commit()


@pytest.mark.parametrize(("formato", "width"), [("80mm", 80), ("57mm", 57), ("a4", 210)])
def test_an_eticket_prints_on_the_paper_asked_for(formato, width, api_client, user, tmp_path):
    receipt = issue(api_client, user, bodies.body(bodies.ETICKET))
    answer = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"], "formato": formato}, headers=user
    )
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    assert _width_mm(answer.data, tmp_path) == pytest.approx(width, abs=0.2)


def test_a_roll_for_an_efactura_is_a_clear_422(api_client, user):
    receipt = issue(api_client, user, bodies.body(bodies.EFACTURA))
    answer = api_client.get(
        GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"], "formato": "80mm"}, headers=user
    )
    assert answer.status_code == 422
    error = answer.json["error"]
    assert error["fields"][0]["field"] == "formato" and "e-Ticket" in error["fields"][0]["message"]
    unknown = api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"], "formato": "a5"}, headers=user)
    assert unknown.status_code == 422 and unknown.json["error"]["fields"][0]["field"] == "formato"


def test_a_roll_refused_is_said_in_the_language_asked(api_client, user):
    """The refusal of a roll for an e-Factura in English for a client that asks for English, as every other
    message of the service."""
    receipt = issue(api_client, user, bodies.body(bodies.EFACTURA))
    answer = api_client.get(
        GET,
        query_string={"idCfeEmitido": receipt["idCfeEmitido"], "formato": "80mm"},
        headers={**user, "Accept-Language": "en"},
    )
    error = answer.json["error"]
    assert error["message"] == "That paper format does not suit this type of receipt."
    assert error["fields"][0]["message"] == (
        "The thermal roll is only for e-Tickets and their notes (101-103, 131-133, 201-203, 231-233)."
    )


def test_preview_prints_on_a_roll_and_refuses_one_for_other_types(api_client, user, tmp_path):
    roll = api_client.post(PREVIEW, query_string={"formato": "57mm"}, json=bodies.body(bodies.ETICKET), headers=user)
    assert roll.status_code == 200 and _width_mm(roll.data, tmp_path) == pytest.approx(57, abs=0.2)
    assert "SIN VALOR FISCAL" in _text(roll.data, tmp_path)
    refused = api_client.post(
        PREVIEW, query_string={"formato": "57mm"}, json=bodies.body(bodies.EFACTURA), headers=user
    )
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["field"] == "formato"


def test_the_company_default_paper_and_logo_apply_when_none_is_asked(api_client, user, service_app, tmp_path):
    buffer = io.BytesIO()
    Image.new("RGB", (200, 80), (20, 60, 160)).save(buffer, format="PNG")
    _settings(service_app, formato_papel="80mm", logo=buffer.getvalue(), logo_tipo="image/png")
    ticket = issue(api_client, user, bodies.body(bodies.ETICKET))
    pdf = api_client.get(GET, query_string={"idCfeEmitido": ticket["idCfeEmitido"]}, headers=user).data
    assert _width_mm(pdf, tmp_path) == pytest.approx(80, abs=0.2)
    assert pdf.count(b"/Subtype /Image") == 2  # the logo and the QR
    # A roll default does not apply to an e-Factura: it prints on A4 rather than failing.
    invoice = issue(api_client, user, bodies.body(bodies.EFACTURA))
    pdf = api_client.get(GET, query_string={"idCfeEmitido": invoice["idCfeEmitido"]}, headers=user).data
    assert _width_mm(pdf, tmp_path) == pytest.approx(210, abs=0.2)


def test_a_reprint_reads_the_signed_xml_not_the_stored_request(api_client, user, service_app, tmp_path):
    body = bodies.body(bodies.EFACTURA)
    body["adenda"] = "Entregar en depósito 2."
    receipt = issue(api_client, user, body)
    with service_app.app_context():  # as if the request snapshot said something else (or today's rules did)
        session = db.session()
        record = session.scalar(select(IssuedCfe).where(IssuedCfe.id == receipt["idCfeEmitido"]))
        tampered = dict(record.input_json)
        tampered["items"] = [{**tampered["items"][0], "precioUnitario": "99999"}]
        record.input_json = tampered
        session.commit()
    pdf = api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=user).data
    text = _text(pdf, tmp_path)
    assert money(Decimal(receipt["totales"]["mntPagar"])) in text and "99.999" not in text
    assert "Libros" in text  # the second line is still printed: it is in the signed XML
    assert "Entregar en depósito 2." in text  # the adenda, which is not signed, comes from the snapshot
