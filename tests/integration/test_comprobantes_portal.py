"""The portal's receipts area through the real sign-in and a live service: issue (form, lines, receiver
hint, preview, idempotent issue), the receipt page, PDF and XML, lookup, sign an XML, collection
references, the activity record, roles and the pre-fill contract."""

from __future__ import annotations

import io
import re
from urllib.parse import urlencode

import pytest
from bs4 import BeautifulSoup
from lxml import etree
from werkzeug.datastructures import FileStorage, MultiDict
from werkzeug.test import encode_multipart

from tests.support.html import csrf as csrf_on
from tests.support.html import soup, text

HTMX = {"HX-Request": "true"}
RECEIPT_URL = re.compile(r"^/comprobantes/([A-Za-z0-9_-]+)$")


def form_values(html_soup: BeautifulSoup, selector: str = "form.receipt-form") -> dict[str, str]:
    """What a browser would submit from the form, as a dict (one value per name)."""
    form = html_soup.select_one(selector)
    values: dict[str, str] = {}
    for element in form.find_all(["input", "select", "textarea"]):
        name = element.get("name")
        if not name:
            continue
        if element.name == "select":
            chosen = element.find("option", selected=True) or element.find("option")
            values[name] = chosen.get("value", "") if chosen else ""
        elif element.name == "textarea":
            values[name] = element.get_text()
        elif element.get("type") == "checkbox":
            if element.has_attr("checked"):
                values[name] = element.get("value", "y")
        elif element.get("type") not in ("submit", "button", "file"):
            values[name] = element.get("value", "")
    return values


def new_form(client, query: str = "") -> dict[str, str]:
    return form_values(soup(client.get(f"/comprobantes/nuevo{query}", follow_redirects=True)))


def eticket(client) -> dict[str, str]:
    """The issuing form filled with the test e-Ticket (2 x 122 at 22 %, 3 x 44 at 10 %, prices with IVA)."""
    data = new_form(client)
    lines = soup(client.post("/comprobantes/nuevo/lineas", data=data, headers=HTMX))
    data = {**data, **form_values(lines, "#lines")}
    data.update(
        {
            "lines-0-nom_item": "Café",
            "lines-0-cantidad": "2",
            "lines-0-precio_unitario": "122",
            "lines-1-ind_fact": "2",
            "lines-1-nom_item": "Medialuna",
            "lines-1-cantidad": "3",
            "lines-1-precio_unitario": "44",
        }
    )
    return data


def efactura(client) -> dict[str, str]:
    data = new_form(client, "?tipoCFE=111")
    data.update(
        {
            "fma_pago": "2",
            "tipo_doc_recep": "2",
            "doc_recep": "21-484436-001-8",
            "rzn_soc_recep": "DIRECCION GENERAL IMPOSITIVA",
            "dir_recep": "Fernandez Crespo 1534",
            "ciudad_recep": "Montevideo",
            "depto_recep": "Montevideo",
            "lines-0-nom_item": "Consultoría",
            "lines-0-cantidad": "10",
            "lines-0-uni_med": "h",
            "lines-0-precio_unitario": "1.500,00",
        }
    )
    data.pop("mnt_bruto", None)  # unchecked: net prices
    return data


def issue(client, data: dict) -> str:
    answer = client.post("/comprobantes/nuevo", data=data)
    assert answer.status_code == 303, answer.get_data(as_text=True)[:3000]
    match = RECEIPT_URL.match(answer.headers["Location"])
    assert match, answer.headers["Location"]
    return match[1]


def csrf(client) -> str:
    return csrf_on(client, "/comprobantes/")


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


def test_usuario_issues_an_eticket_and_lands_on_its_page_with_the_services_totals(usuario):
    receipt_id = issue(usuario, eticket(usuario))
    page = usuario.get(f"/comprobantes/{receipt_id}")
    assert page.status_code == 200
    html = soup(page)
    assert text(html.h1) == "e-Ticket A-0000001"
    totals = {
        row.th.get_text(strip=True): row.td.get_text(strip=True) for row in html.select("[data-testid=totals] tr")
    }
    # 244 with 22 % IVA included and 132 with 10 %: the service's arithmetic, shown as it says.
    assert totals["Neto gravado a tasa básica (22\u00a0%)"] == "$\u00a0200,00"
    assert totals["IVA tasa básica (22\u00a0%)"] == "$\u00a044,00"
    assert totals["Neto gravado a tasa mínima (10\u00a0%)"] == "$\u00a0120,00"
    assert totals["Total a pagar"] == "$\u00a0376,00"
    flash = html.select_one(".flash-success")
    assert text(flash) == "Emitiste e-Ticket A-0000001."
    assert flash.select_one(".receipt-number").get_text() == "A-0000001"  # kept on one line, as in the title
    assert re.fullmatch(r"[A-Za-z0-9+/=]{6}", html.select_one("[data-testid=security-code]").get_text(strip=True))
    qr = html.select_one(".qr svg")
    assert qr is not None and qr.find("path") is not None and not qr.find(attrs={"style": True})
    assert html.select_one("[data-testid=cae-id]").get_text(strip=True).startswith("90")
    assert html.select_one("iframe.pdf-frame")["src"] == f"/comprobantes/{receipt_id}/pdf"


def test_an_efactura_issued_with_htmx_redirects_with_hx_redirect(usuario):
    answer = usuario.post("/comprobantes/nuevo", data=efactura(usuario), headers=HTMX)
    assert answer.status_code == 200, answer.get_data(as_text=True)[:2000]
    receipt_id = RECEIPT_URL.match(answer.headers["HX-Redirect"])[1]
    html = soup(usuario.get(f"/comprobantes/{receipt_id}"))
    assert text(html.h1) == "e-Factura A-0000001"
    assert "21-484436-001-8" in html.get_text()  # the receiver, as DGI prints a RUT
    # kept on one line: a browser breaks after a dash ("21-" above "484436-001-8")
    assert [text(n) for n in html.select("[aria-labelledby=receiver-heading] .receipt-number")] == ["21-484436-001-8"]
    totals = {
        row.th.get_text(strip=True): row.td.get_text(strip=True) for row in html.select("[data-testid=totals] tr")
    }
    assert totals["Neto gravado a tasa básica (22\u00a0%)"] == "$\u00a015.000,00"
    assert totals["Total a pagar"] == "$\u00a018.300,00"


def test_invalid_receiver_is_422_with_the_error_next_to_the_field_and_the_input_kept(usuario):
    data = efactura(usuario)
    data["doc_recep"] = "214844360019"  # wrong check digit
    answer = usuario.post("/comprobantes/nuevo", data=data, headers=HTMX)
    assert answer.status_code == 422
    html = soup(answer)
    assert html.select_one("#receipt-editor") is not None and html.find("html") is None
    field = html.select_one("#doc_recep")
    assert field["value"] == "214844360019" and field["aria-invalid"] == "true"
    assert html.select_one("#doc_recep-hint").get_text(strip=True) == "Dígito verificador incorrecto."
    assert html.select_one("#rzn_soc_recep")["value"] == "DIRECCION GENERAL IMPOSITIVA"
    assert html.select_one("#lines-0-precio_unitario")["value"] == "1.500,00"
    assert html.select_one("[role=alert]") is not None
    assert soup(usuario.get("/comprobantes/")).select(".receipt-list tbody tr") == []


def test_service_errors_on_a_line_and_unparseable_numbers_land_on_that_line(usuario):
    data = eticket(usuario)
    data["lines-1-precio_unitario"] = ""
    answer = usuario.post("/comprobantes/nuevo", data=data)
    assert answer.status_code == 422
    assert soup(answer).select_one("#lines-1-precio_unitario-error").get_text(strip=True) == "Campo obligatorio."
    data["lines-1-precio_unitario"] = "doce"
    answer = usuario.post("/comprobantes/nuevo/previsualizar", data=data)
    html = soup(answer)
    assert answer.status_code == 422 and html.select_one("#lines-1-precio_unitario")["value"] == "doce"
    error = html.select_one("#lines-1-precio_unitario-error").get_text(strip=True)
    assert error == "Tiene que ser un número, como 1.500,50."


def test_lines_are_added_and_removed_as_fragments_keeping_what_was_typed(usuario):
    data = new_form(usuario)
    data["lines-0-nom_item"] = "Primera"
    added = usuario.post("/comprobantes/nuevo/lineas", data=data, headers=HTMX)
    html = soup(added)
    assert added.status_code == 200 and "HX-Request" in added.headers["Vary"]
    assert added.get_data(as_text=True).lstrip().startswith('<fieldset id="lines"')
    assert len(html.select("tbody tr")) == 2 and html.select_one("#lines-0-nom_item")["value"] == "Primera"
    assert html.select_one("#lines-1-nom_item").has_attr("autofocus")
    data = {**data, **form_values(html, "#lines"), "lines-1-nom_item": "Segunda"}
    data = {
        **data,
        **form_values(soup(usuario.post("/comprobantes/nuevo/lineas", data=data, headers=HTMX)), "#lines"),
        "lines-2-nom_item": "Tercera",
    }
    removed = soup(usuario.post("/comprobantes/nuevo/lineas/quitar", data={**data, "remove_line": "0"}, headers=HTMX))
    assert [i["value"] for i in removed.select("input[name$=nom_item]")] == ["Segunda", "Tercera"]
    assert [i["name"] for i in removed.select("input[name$=nom_item]")] == ["lines-0-nom_item", "lines-1-nom_item"]
    plain = usuario.post("/comprobantes/nuevo/lineas", data=data)
    assert "<html" in plain.get_data(as_text=True) and len(soup(plain).select("#lines tbody tr")) == 4


def test_changing_the_type_reshapes_the_form_and_keeps_the_input(usuario):
    data = {**new_form(usuario), "tipo_cfe": "181", "rzn_soc_recep": "Cliente"}
    html = soup(usuario.post("/comprobantes/nuevo/tipo", data=data, headers=HTMX))
    assert html.select_one("#tipo_traslado") is not None and html.select_one("#fma_pago") is None
    assert html.select_one("#lines-0-precio_unitario") is None
    assert html.select_one("#rzn_soc_recep")["value"] == "Cliente"
    note = soup(usuario.post("/comprobantes/nuevo/tipo", data={**data, "tipo_cfe": "112"}, headers=HTMX))
    assert note.select_one("#ref_nro") is not None
    assert note.select_one("#tipo_doc_recep option[selected]")["value"] == "2"  # an e-Factura's receiver has a RUT
    assert note.select_one("#ref_tipo option[selected]")["value"] == "111"


def test_the_receiver_hint_checks_the_check_digit_as_the_user_types(usuario):
    def hint(doc_type, number):
        answer = usuario.get(
            "/comprobantes/nuevo/documento?" + urlencode({"tipo_doc_recep": doc_type, "doc_recep": number}),
            headers=HTMX,
        )
        assert answer.status_code == 200
        element = soup(answer).select_one("#doc_recep-hint")
        return element["class"], element.get_text(strip=True)

    assert hint("2", "214844360018") == (["doc-hint", "doc-hint-ok"], "RUT válido: 21-484436-001-8")
    assert hint("2", "214844360019") == (["doc-hint", "doc-hint-error"], "Dígito verificador incorrecto.")
    assert hint("2", "2148") == (["doc-hint", "doc-hint-error"], "Un RUT tiene 12 dígitos.")
    assert hint("3", "1.335.321-4") == (["doc-hint", "doc-hint-ok"], "Dígito verificador correcto.")
    assert hint("", "1234") == (["doc-hint"], "Elegí el tipo de documento.")
    assert hint("²", "1234") == (["doc-hint"], "Elegí el tipo de documento.")  # isdigit() took it, int() did not
    assert hint("5", "AB123456") == (["doc-hint"], "")


def test_preview_shows_the_services_pdf_inline_without_exposing_the_token(usuario, signed_in):
    answer = usuario.post("/comprobantes/nuevo/previsualizar", data=eticket(usuario), headers=HTMX)
    assert answer.status_code == 200
    frame = soup(answer).select_one("#receipt-preview iframe")
    src = frame["src"]
    assert re.fullmatch(r"/comprobantes/previsualizacion/[A-Za-z0-9_-]+/pdf", src)
    with usuario.session_transaction() as session:
        token = next(iter(session["cfe_previews"].values()))
    assert token not in answer.get_data(as_text=True)
    pdf = usuario.get(src)
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
    assert pdf.headers["Content-Disposition"].startswith("inline")
    assert "frame-ancestors 'self'" in pdf.headers["Content-Security-Policy"]
    assert signed_in("admin@demo.uy").get(src).status_code == 404  # another session knows no such handle
    assert soup(usuario.get("/comprobantes/")).select(".receipt-list tbody tr") == []  # nothing issued


def test_double_submit_with_the_same_key_issues_one_receipt_and_records_it_once(usuario):
    data = eticket(usuario)
    first, second = issue(usuario, data), issue(usuario, data)
    assert first == second
    rows = soup(usuario.get("/comprobantes/")).select(".receipt-list tbody tr")
    assert len(rows) == 1
    assert issue(usuario, eticket(usuario)) != first  # a new form, a new key, a new receipt


def test_the_same_form_sent_again_with_other_data_shows_the_first_receipt(usuario):
    data = eticket(usuario)
    first = issue(usuario, data)
    changed = {**data, "lines-0-cantidad": "5"}  # Back, edit, Emitir again
    assert issue(usuario, changed) == first
    page = soup(usuario.get(f"/comprobantes/{first}"))
    assert "ya emitió este comprobante; no se emitió otro" in page.get_text()
    assert len(soup(usuario.get("/comprobantes/")).select(".receipt-list tbody tr")) == 1


def test_soporte_sees_receipts_but_is_refused_issuing_signing_and_references(signed_in, usuario):
    receipt_id = issue(usuario, eticket(usuario))
    soporte = signed_in("soporte@demo.uy")
    landing = soup(soporte.get("/comprobantes/"))
    assert landing.find("a", string="Nuevo comprobante") is None and landing.find("a", string="Firmar un XML") is None
    assert len(landing.select(".receipt-list tbody tr")) == 1
    page = soporte.get(f"/comprobantes/{receipt_id}")
    assert page.status_code == 200 and soup(page).select_one("#collection-reference form") is None
    token = csrf(soporte)
    assert soporte.get("/comprobantes/nuevo").status_code == 403
    assert soporte.get("/comprobantes/firmar").status_code == 403
    assert soporte.get("/comprobantes/nuevo/documento?tipo_doc_recep=2&doc_recep=1").status_code == 403
    for path in (
        "/comprobantes/nuevo",
        "/comprobantes/nuevo/previsualizar",
        "/comprobantes/nuevo/lineas",
        f"/comprobantes/{receipt_id}/referencia",
        "/comprobantes/firmar",
    ):
        assert soporte.post(path, data={"csrf_token": token}).status_code == 403, path


def test_pdf_and_xml_of_a_receipt(usuario):
    receipt_id = issue(usuario, eticket(usuario))
    pdf = usuario.get(f"/comprobantes/{receipt_id}/pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")
    # Named by the receipt's type and number, not its id: an ASCII name and the name as people write it.
    assert pdf.headers["Content-Disposition"] == (
        "inline; filename=\"e-Ticket_A-0000001.pdf\"; filename*=UTF-8''e-Ticket%20A-0000001.pdf"
    )
    assert "frame-ancestors 'self'" in pdf.headers["Content-Security-Policy"]
    xml = usuario.get(f"/comprobantes/{receipt_id}/xml")
    assert xml.status_code == 200 and xml.mimetype == "application/xml"
    assert xml.headers["Content-Disposition"].startswith('attachment; filename="e-Ticket_A-0000001.xml"')
    root = etree.fromstring(xml.data)
    assert root.tag == "{http://cfe.dgi.gub.uy}CFE"
    assert root.find("{http://www.w3.org/2000/09/xmldsig#}Signature") is not None
    assert usuario.get("/comprobantes/nope/pdf").status_code == 404


def test_the_one_box_takes_an_id_too_and_says_when_none_matches(usuario):
    receipt_id = issue(usuario, eticket(usuario))
    old_link = usuario.get(f"/comprobantes/buscar?id=+{receipt_id}+")
    assert old_link.status_code == 303 and old_link.headers["Location"] == f"/comprobantes/?numero={receipt_id}"
    found = usuario.get(f"/comprobantes/?numero={receipt_id}")
    assert found.status_code == 303 and found.headers["Location"] == f"/comprobantes/{receipt_id}"
    missing = usuario.get("/comprobantes/?numero=0123456789abcdef0123456789abcdef")
    assert missing.status_code == 404
    field = soup(missing).select_one("#numero")
    assert field["value"] == "0123456789abcdef0123456789abcdef" and field["aria-invalid"] == "true"
    assert (
        soup(missing).select_one("#numero-error").get_text(strip=True)
        == "Demo S.A. no tiene un comprobante con ese identificador."
    )
    nonsense = usuario.get("/comprobantes/?numero=a%20b%3Cc")
    assert (
        nonsense.status_code == 422
        and "Escribí la serie y el número" in soup(nonsense).select_one("#numero-error").get_text()
    )


def test_another_companys_receipt_is_not_found(usuario, signed_in):
    receipt_id = issue(usuario, eticket(usuario))
    admin = signed_in("admin@demo.uy")
    admin.post("/empresa", data={"company_id": "2", "csrf_token": csrf(admin)})
    assert admin.get(f"/comprobantes/{receipt_id}").status_code == 404
    assert admin.get(f"/comprobantes/?numero={receipt_id}").status_code == 404
    assert soup(admin.get("/comprobantes/")).select(".receipt-list tbody tr") == []


def _unsigned(signed: bytes) -> bytes:
    root = etree.fromstring(signed)
    root.remove(root.find("{http://www.w3.org/2000/09/xmldsig#}Signature"))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def test_sign_an_xml_downloads_the_signed_file(usuario, portal_app):
    receipt_id = issue(usuario, eticket(usuario))
    unsigned = _unsigned(usuario.get(f"/comprobantes/{receipt_id}/xml").data)
    answer = usuario.post(
        "/comprobantes/firmar",
        content_type="multipart/form-data",
        data={"csrf_token": csrf(usuario), "archivo": (io.BytesIO(unsigned), "mi factura.xml")},
    )
    assert answer.status_code == 200 and answer.mimetype == "application/xml"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="mi_factura-firmado.xml"'
    assert etree.fromstring(answer.data).find("{http://www.w3.org/2000/09/xmldsig#}Signature") is not None
    with portal_app.app_context():
        from portal.web.activity import recent

        signed = recent(1, action="xml_firmado")
    assert [(a.user_email, a.summary) for a in signed] == [("usuario@demo.uy", "mi_factura-firmado.xml")]
    assert signed[0].request_id


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        (b"<CFE xmlns='http://cfe.dgi.gub.uy'>\n<eTck>\n</CFE>", "línea"),
        (
            b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><CFE xmlns="http://cfe.dgi.gub.uy">&e;</CFE>',
            "DOCTYPE",
        ),
    ],
)
def test_sign_an_xml_shows_the_services_errors_plainly(usuario, payload, needle):
    answer = usuario.post(
        "/comprobantes/firmar",
        content_type="multipart/form-data",
        data={"csrf_token": csrf(usuario), "archivo": (io.BytesIO(payload), "roto.xml")},
    )
    assert answer.status_code == 422
    error = soup(answer).select_one("#archivo-error")
    assert error is not None and needle in error.get_text()
    assert soup(answer).select_one("#archivo")["aria-invalid"] == "true"


def test_sign_an_xml_without_a_file_or_too_big_is_422(usuario):
    token = csrf(usuario)
    empty = usuario.post("/comprobantes/firmar", content_type="multipart/form-data", data={"csrf_token": token})
    assert empty.status_code == 422 and "Elegí un archivo XML." in empty.get_data(as_text=True)
    # Encoded in memory: the test client would spool a body this big to a temporary file it never closes.
    boundary, body = encode_multipart(
        MultiDict(
            {
                "csrf_token": token,
                "archivo": FileStorage(
                    io.BytesIO(b" " * (2 * 1024 * 1024 + 1)), "grande.xml", content_type="application/xml"
                ),
            }
        )
    )
    big = usuario.post("/comprobantes/firmar", data=body, content_type=f"multipart/form-data; boundary={boundary}")
    assert big.status_code == 422 and "supera los 2 MB" in big.get_data(as_text=True)


def test_reapplying_a_collection_reference_swaps_the_block_with_its_history(usuario, portal_app):
    receipt_id = issue(usuario, eticket(usuario))
    path = f"/comprobantes/{receipt_id}/referencia"
    token = csrf(usuario)
    first = usuario.post(path, data={"csrf_token": token, "referencia": "COB-1"}, headers=HTMX)
    assert first.status_code == 200
    block = soup(first)
    assert first.get_data(as_text=True).lstrip().startswith('<article id="collection-reference"')
    assert block.select_one("[data-testid=current-reference]").get_text(strip=True) == "COB-1"
    history = [[td.get_text(strip=True) for td in tr("td")] for tr in block.select(".history-table tbody tr")]
    assert history[0][1:4] == ["usuario@demo.uy", "COB-1", "—"]
    again = soup(usuario.post(path, data={"csrf_token": token, "referencia": "COB-1"}, headers=HTMX))
    assert "ya estaba aplicada" in again.get_text()
    second = usuario.post(path, data={"csrf_token": token, "referencia": "COB-2", "observacion": "Reimputado"})
    assert second.status_code == 303 and second.headers["Location"] == f"/comprobantes/{receipt_id}"
    page = soup(usuario.get(f"/comprobantes/{receipt_id}"))
    assert page.select_one("[data-testid=current-reference]").get_text(strip=True) == "COB-2"
    on_load = [[td.get_text(strip=True) for td in tr("td")] for tr in page.select(".history-table tbody tr")]
    assert [row[2:4] for row in on_load] == [["COB-2", "COB-1"], ["COB-1", "—"]]  # the history, on a plain visit
    empty = usuario.post(path, data={"csrf_token": token, "referencia": " "}, headers=HTMX)
    assert empty.status_code == 422 and soup(empty).select_one("#referencia")["aria-invalid"] == "true"
    with portal_app.app_context():
        from portal.web.activity import recent

        changes = recent(1, action="referencia_reaplicada")
    assert [(a.summary, a.cfe_id) for a in changes] == [("COB-2", receipt_id), ("COB-1", receipt_id)]


def test_the_activity_record_says_who_what_when_request_and_receipt(usuario, portal_app):
    receipt_id = issue(usuario, eticket(usuario))
    with portal_app.app_context():
        from portal.web.activity import recent

        entry = recent(1, action="cfe_emitido")[0]
    assert (entry.user_email, entry.cfe_id, entry.summary) == (
        "usuario@demo.uy",
        receipt_id,
        "e-Ticket A-0000001 · UYU 376,00",
    )
    assert re.fullmatch(r"[0-9a-f]{32}", entry.request_id)
    row = soup(usuario.get("/comprobantes/")).select_one(".receipt-list tbody tr")
    cells = [text(td) for td in row("td")]
    assert cells[1:4] == ["e-Ticket A-0000001", "Consumo final", "$\u00a0376,00"]
    assert row.a["href"] == f"/comprobantes/{receipt_id}"


def test_the_form_is_prefilled_from_query_parameters(usuario):
    query = urlencode(
        {
            "tipoCFE": "111",
            "tipoDocRecep": "2",
            "docRecep": "214844360018",
            "rznSocRecep": "DIRECCION GENERAL IMPOSITIVA",
            "dirRecep": "Fernandez Crespo 1534",
            "ciudadRecep": "Montevideo",
            "deptoRecep": "Montevideo",
        }
    )
    html = soup(usuario.get(f"/comprobantes/nuevo?{query}", follow_redirects=True))
    assert html.select_one("#tipo_cfe option[selected]")["value"] == "111"
    assert html.select_one("#tipo_doc_recep option[selected]")["value"] == "2"
    values = {
        name: html.select_one(f"#{name}")["value"]
        for name in ("doc_recep", "rzn_soc_recep", "dir_recep", "ciudad_recep", "depto_recep")
    }
    assert values == {
        "doc_recep": "214844360018",
        "rzn_soc_recep": "DIRECCION GENERAL IMPOSITIVA",
        "dir_recep": "Fernandez Crespo 1534",
        "ciudad_recep": "Montevideo",
        "depto_recep": "Montevideo",
    }
    assert html.select_one("#doc_recep-hint").get_text(strip=True) == "RUT válido: 21-484436-001-8"
    odd = soup(usuario.get("/comprobantes/nuevo?tipoCFE=999&tipoDocRecep=x", follow_redirects=True))
    assert odd.select_one("#tipo_cfe option[selected]")["value"] == "101"


def test_a_partial_credit_note_from_the_receipt_page_refers_to_the_receipt(usuario):
    receipt_id = issue(usuario, efactura(usuario))
    link = soup(usuario.get(f"/comprobantes/{receipt_id}")).find("a", string="Nota de crédito parcial")["href"]
    page = soup(usuario.get(link, follow_redirects=True))
    assert text(page.h1) == "Nueva nota de crédito de e-Factura A-0000001"
    data = form_values(page)
    assert (data["tipo_cfe"], data["ref_tipo"], data["ref_serie"], data["ref_nro"]) == ("112", "111", "A", "1")
    assert data["doc_recep"] == "214844360018" and data["lines-0-nom_item"] == "Consultoría"
    data.update({"ref_razon": "Devolución", "lines-0-cantidad": "1"})
    note = soup(usuario.get(f"/comprobantes/{issue(usuario, data)}"))
    # Both numbers, each with its own type: the note's own, then its original's.
    assert text(note.h1) == "Nota de crédito e-Factura A-0000001, de e-Factura A-0000001"
    assert note.select_one("[data-testid=related] a")["href"] == f"/comprobantes/{receipt_id}"


def test_an_eremito_has_no_prices(usuario):
    data = form_values(soup(usuario.post("/comprobantes/nuevo/tipo", data={**new_form(usuario), "tipo_cfe": "181"})))
    data.update(
        {
            "tipo_doc_recep": "2",
            "doc_recep": "214844360018",
            "rzn_soc_recep": "DGI",
            "dir_recep": "Fernandez Crespo 1534",
            "ciudad_recep": "Montevideo",
            "lines-0-nom_item": "Manzanas",
            "lines-0-cantidad": "10",
            "lines-0-uni_med": "kg",
        }
    )
    page = soup(usuario.get(f"/comprobantes/{issue(usuario, data)}"))
    assert text(page.h1) == "e-Remito A-0000001"


def test_area_pages_have_no_inline_scripts_styles_or_handlers(usuario):
    receipt_id = issue(usuario, eticket(usuario))
    for path in ("/comprobantes/", "/comprobantes/nuevo", "/comprobantes/firmar", f"/comprobantes/{receipt_id}"):
        html = usuario.get(path).get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), path
        assert not re.search(r"\sstyle=|\son[a-z]+=|hx-on", html), path


def test_english_pages_are_translated(usuario):
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(usuario)})
    html = soup(usuario.get("/comprobantes/nuevo", follow_redirects=True))
    assert text(html.h1) == "New receipt"
    assert html.find("label", attrs={"for": "doc_recep"}).get_text(strip=True) == "Document number"
    # The examples in the number errors are written the English way; to an English reader "1,500" is the
    # ambiguous one ("1.500" is one and a half).
    listing = usuario.get("/comprobantes/?monto_desde=abc&monto_hasta=1%2C500").get_data(as_text=True)
    assert "like 1,500.50" in listing and "Type 1500 or 1.5" in listing


def test_each_form_has_its_key_in_its_url_and_back_brings_the_same_key(usuario):
    fresh = usuario.get("/comprobantes/nuevo?tipoCFE=111")
    assert fresh.status_code == 303
    location = fresh.headers["Location"]
    assert re.search(r"tipoCFE=111", location) and re.search(r"clave=[0-9a-f]{32}", location)
    key = re.search(r"clave=([0-9a-f]{32})", location)[1]
    data = form_values(soup(usuario.get(location)))
    assert data["idempotency_key"] == key and data["tipo_cfe"] == "111"
    assert usuario.get("/comprobantes/nuevo").headers["Location"] != location  # another form, another key
    data = eticket(usuario)
    first = issue(usuario, data)
    back = soup(usuario.get(f"/comprobantes/nuevo?clave={data['idempotency_key']}"))
    assert back.select_one("[data-testid=form-already-issued] a")["href"] == f"/comprobantes/{first}"
    assert issue(usuario, form_values(back) | {k: v for k, v in data.items() if k.startswith("lines")}) == first


def test_spanish_and_english_pages_one_after_another_each_come_out_in_their_own_language(usuario, signed_in):
    """The catalogs, Babel locales and wtforms' messages are kept per process and language: a page in one
    language right after one in the other must not take anything of it."""
    english = signed_in("usuario@demo.uy")
    english.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(english)})
    receipt = f"/comprobantes/{issue(usuario, efactura(usuario))}"
    bad_filter = "/comprobantes/?tipo=mal"
    for _ in range(2):
        es = soup(usuario.get(receipt))
        assert es.html["lang"] == "es-UY"
        assert es.find("h2", id="data-heading").get_text(strip=True) == "Datos"
        assert es.select_one("[data-testid=amount-to-pay]").get_text(strip=True) == "$\u00a018.300,00"
        assert es.find("label", attrs={"for": "referencia"}).get_text(strip=True) == "Referencia de cobro"
        en = soup(english.get(receipt))
        assert en.html["lang"] == "en"
        assert en.find("h2", id="data-heading").get_text(strip=True) == "Details"
        assert en.select_one("[data-testid=amount-to-pay]").get_text(strip=True) == "$\u00a018,300.00"
        assert en.find("label", attrs={"for": "referencia"}).get_text(strip=True) == "Collection reference"
        # wtforms' own message, from its catalog in each language
        assert "Opción inválida." in usuario.get(bad_filter).get_data(as_text=True)
        assert "Not a valid choice." in english.get(bad_filter).get_data(as_text=True)


def test_service_down_advice_matches_what_is_left_on_the_screen(usuario, live_service):
    data = eticket(usuario)
    live_service.stop()
    banner = usuario.post("/comprobantes/nuevo/previsualizar", data=data, headers=HTMX)
    assert banner.status_code == 503 and banner.headers["HX-Retarget"] == "#alerts"
    text = soup(banner).get_text(" ", strip=True)
    # The form stays under the banner: sending it again is the way forward, not a link that reloads it empty.
    assert "tus datos siguen en el formulario" in text and soup(banner).find("a", string="Reintentar") is None
    plain = usuario.post("/comprobantes/nuevo/previsualizar", data=data)
    assert plain.status_code == 503
    assert "tus datos siguen" not in soup(plain).get_text() and soup(plain).find("a", string="Reintentar") is None
    page = usuario.get("/comprobantes/?receptor=Acme")
    assert page.status_code == 503 and "tus datos siguen" not in soup(page).get_text()
    assert soup(page).find("a", string="Reintentar")["href"].endswith("/comprobantes/?receptor=Acme")


def test_issuing_another_like_a_receipt_without_units_leaves_the_unit_empty_not_n_a(usuario):
    receipt_id = issue(usuario, eticket(usuario))  # its lines have no unit: the service writes N/A (B-C10)
    page = soup(usuario.get(f"/comprobantes/{receipt_id}/copiar", follow_redirects=True))
    units = [field.get("value", "") for field in page.select("input[name$=-uni_med]")]
    assert units and units == [""] * len(units)


def test_a_partial_credit_note_says_what_is_left_to_credit_as_money(usuario):
    receipt_id = issue(usuario, eticket(usuario))
    text = soup(usuario.get(f"/comprobantes/{receipt_id}/nota/credito", follow_redirects=True)).get_text()
    assert "queda por acreditar $\u00a0376,00." in text


def test_a_receipt_without_lines_says_what_the_first_line_needs(usuario):
    data = new_form(usuario)
    for path in ("/comprobantes/nuevo/previsualizar", "/comprobantes/nuevo"):
        answer = usuario.post(path, data=data, headers=HTMX)
        assert answer.status_code == 422
        error = soup(answer).find(id="lines-0-nom_item-error")
        # Next to the line, saying what it needs; not the service's "at least one element" in the banner alone.
        assert error is not None and "qué se vende, la cantidad y el precio" in error.get_text()
    resguardo = usuario.post("/comprobantes/nuevo", data=new_form(usuario, "?tipoCFE=182"), headers=HTMX)
    assert "al menos una retención" in soup(resguardo).find(id="lines-0-cod_ret-error").get_text()


def test_a_company_with_two_branches_chooses_the_one_it_issues_from(usuario, live_service, live_token_for):
    page = soup(usuario.get("/comprobantes/nuevo", follow_redirects=True))
    assert page.select_one("#sucursal") is None  # one branch: nothing to choose
    service = live_service.app.test_client()
    admin = {"Authorization": f"Bearer {live_token_for('admin@demo.uy')}", "X-Empresa-Id": "1"}
    branch = {"codigo": 7, "nombre": "Pocitos", "domicilio": "Av. Brasil 2890", "ciudad": "Montevideo"}
    created = service.post("/api/v1/empresa/sucursales", json={**branch, "departamento": "Montevideo"}, headers=admin)
    assert created.status_code == 201, created.json

    data = eticket(usuario)
    options = {
        o["value"]: o.get_text(strip=True)
        for o in soup(usuario.get("/comprobantes/nuevo", follow_redirects=True)).select("#sucursal option")
    }
    assert "7" in options and options["7"].startswith("Pocitos")
    receipt_id = issue(usuario, {**data, "sucursal": "7"})
    xml = etree.fromstring(usuario.get(f"/comprobantes/{receipt_id}/xml").data)
    assert xml.findtext(".//{http://cfe.dgi.gub.uy}CdgDGISucur") == "7"


def _company_one(live_service, statement) -> None:
    from portal.service.platform import db

    with live_service.app.app_context():
        db.session().execute(statement)
        db.session().commit()


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_receipt_refused_for_the_companys_setup_leads_to_the_page_that_fixes_it(signed_in, live_service, lang):
    """No CAE for the type, no valid certificate: the refusal on the form links an admin to the Empresa page that
    sets it up (it was a dead end), and tells anyone else who can; the form keeps what was typed."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import delete, update

    from portal.service.comprobante.models import CaeRangeRecord
    from portal.service.platform.models import Certificate

    admin, usuario = signed_in("admin@demo.uy"), signed_in("usuario@demo.uy")
    for client in (admin, usuario):
        client.post("/idioma", data={"lang": lang, "csrf_token": csrf_on(client, "/")})
    _company_one(
        live_service, delete(CaeRangeRecord).where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 111)
    )
    refused = admin.post("/comprobantes/nuevo", data=efactura(admin), headers=HTMX)
    assert refused.status_code == 409
    banner = soup(refused).select_one("[data-error-summary]")
    assert banner.select_one("[data-testid=setup-fix]")["href"] == "/empresa/cae"
    assert text(banner.select_one("[data-testid=setup-fix]")) == {"es": "Cargar un CAE", "en": "Upload a CAE"}[lang]
    assert soup(refused).select_one("[name=rzn_soc_recep]")["value"] == "DIRECCION GENERAL IMPOSITIVA"
    told = soup(usuario.post("/comprobantes/nuevo", data=efactura(usuario))).select_one("[data-error-summary]")
    assert told.select_one("a") is None  # Empresa is an admin's page
    assert {"es": "Un administrador de la empresa", "en": "A company administrator"}[lang] in text(told)

    expired = datetime.now(UTC) - timedelta(days=1)
    _company_one(live_service, update(Certificate).where(Certificate.company_id == 1).values(not_after=expired))
    refused = soup(admin.post("/comprobantes/nuevo", data=eticket(admin)))
    assert refused.select_one("[data-error-summary] [data-testid=setup-fix]")["href"] == "/empresa/certificados"
