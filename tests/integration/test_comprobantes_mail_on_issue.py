"""The issuing form's "Enviar por correo a" field: the receipt is issued, its e-mail queued once (the form
sent again neither issues nor mails twice), and it reaches the local SMTP server with both attachments."""

from __future__ import annotations

from portal.client.comprobante_list import ReceiptFilters
from portal.service.platform import jobs
from tests.integration.test_comprobantes_portal import eticket, issue, soup
from tests.integration.test_correo_portal import service_api, service_config  # noqa: F401 - fixtures


def test_issuing_with_an_address_mails_the_receipt_once(signed_in, service_api, smtp):  # noqa: F811
    usuario = signed_in("usuario@demo.uy")
    data = {**eticket(usuario), "enviar_a": "compras@cliente.com.uy"}
    receipt_id = issue(usuario, data)
    page = soup(usuario.get(f"/comprobantes/{receipt_id}"))
    assert "Lo enviamos por correo a compras@cliente.com.uy." in page.get_text()
    assert issue(usuario, data) == receipt_id  # the same form again
    assert [s.state for s in service_api.receipt_mail_sends(receipt_id).sends] == ["en_cola"]
    jobs.run_pending()
    [arrived] = smtp.recorder.received
    assert arrived.envelope_to == ["compras@cliente.com.uy"]
    attachments = [part.get_filename() for part in arrived.message.iter_attachments()]
    assert any(name.endswith(".pdf") for name in attachments) and any(name.endswith(".xml") for name in attachments)


def test_an_invalid_address_is_refused_on_preview_and_before_issuing_keeping_what_was_typed(
    signed_in,
    service_api,  # noqa: F811
):
    usuario = signed_in("usuario@demo.uy")
    typed = "no-es-correo, otro@@x, bien@cliente.com.uy"
    data = {**eticket(usuario), "enviar_a": typed}
    issued_before = service_api.search_receipts(ReceiptFilters()).total
    for path in ("/comprobantes/nuevo/previsualizar", "/comprobantes/nuevo"):
        answer = usuario.post(path, data=data)
        assert answer.status_code == 422, path
        page = soup(answer)
        assert page.find("input", {"name": "enviar_a"})["value"] == typed
        error = page.select_one("#enviar_a-error").get_text()
        assert "«no-es-correo»" in error and "«otro@@x»" in error and "bien@cliente" not in error
    assert service_api.search_receipts(ReceiptFilters()).total == issued_before
