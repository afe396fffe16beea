"""A receipt of a new type goes by e-mail like the others: its name in the subject and the body, its PDF
(bilingual for a buyer abroad) and its signed XML attached."""

from __future__ import annotations

import io

import pytest
from pdfminer.high_level import extract_text

from portal.service.platform import jobs
from tests.integration.test_correo_api import _send, service_config, user, worker_runs_in_the_test_app  # noqa: F401
from tests.integration.test_export_api import today
from tests.support.cfe_bodies import issue
from tests.unit.cfe.types_bodies import BOLETA, EXPORT


@pytest.mark.parametrize(
    ("body", "name"),
    [(EXPORT["121-services"], "e-Factura de Exportación"), (BOLETA["151-imeba"], "e-Boleta de entrada")],
)
def test_a_new_type_arrives_by_mail_with_its_pdf_and_xml(body, name, api_client, user, smtp):  # noqa: F811
    receipt = issue(api_client, user, today(body))
    assert _send(api_client, user, receipt["idCfeEmitido"], ["compras@cliente.com"]).status_code == 202
    jobs.run_pending()
    [received] = smtp.recorder.received
    number = f"{receipt['serie']}-{receipt['nro']:07d}"
    assert received.message["Subject"] == f"{name} {number} de Demo S.A."
    pdf, xml = list(received.message.iter_attachments())
    assert pdf.get_content_type() == "application/pdf" and xml.get_filename().endswith(".xml")
    printed = extract_text(io.BytesIO(pdf.get_payload(decode=True)))
    assert name in printed
    assert ("Fecha / Date" in printed) is (body["tipoCFE"] == 121)  # a buyer abroad reads it in English too
