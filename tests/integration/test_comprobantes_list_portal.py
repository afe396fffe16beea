"""The portal's receipt list (every receipt, live filters in the URL, totals, pages, CSV) and what the
receipt page does with a receipt (cancel with a full credit note, notes prefilled, issue another like it)."""

from __future__ import annotations

import csv
import io
import uuid
import zipfile
from dataclasses import replace
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from portal.client import CfeClient
from portal.client.cfe import Adjustment, CfeRequest, Line, Payment, Principal, Receiver
from portal.client.informes import FILE_MEDIA
from tests.integration.test_comprobantes_portal import HTMX, csrf, efactura, form_values, issue, soup, text
from tests.support import cfe_bodies as bodies


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


@pytest.fixture
def service_api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"))


def test_a_receipt_issued_through_the_api_is_found_by_its_number(usuario, service_api):
    receipts = [
        service_api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex) for _ in range(3)
    ]
    page = soup(usuario.get("/comprobantes/"))
    assert len(page.select(".receipt-list tbody tr")) == 3
    assert page.select_one("[data-testid=result-count]").get_text(" ", strip=True).startswith("3 comprobantes")
    wanted = receipts[1]
    found = usuario.get(f"/comprobantes/?numero=A+{wanted.nro:07d}&tipo=101", headers=HTMX)
    assert found.status_code == 200 and "HX-Request" in found.headers["Vary"]
    results = soup(found)
    assert results.select_one("#receipt-results") and not results.select_one("form.receipt-filters")
    [row] = results.select(".receipt-list tbody tr")
    assert row.a["href"] == f"/comprobantes/{wanted.id}" and wanted.number in row.a.get_text()


def test_filters_live_in_the_url_and_the_csv_is_the_same_query(usuario, service_api):
    buyer = bodies.request(bodies.EFACTURA)
    buyer = replace(buyer, receiver=replace(buyer.receiver, document="211003420017", name="Comercial del Norte"))
    service_api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    norte = service_api.issue_receipt(buyer, idempotency_key=uuid.uuid4().hex)
    today = norte.issue_date.isoformat()
    page = soup(usuario.get(f"/comprobantes/?receptor=comercial&desde={today}&hasta={today}"))
    assert page.select_one("#receptor")["value"] == "comercial" and page.select_one("#desde")["value"] == today
    [row] = page.select(".receipt-list tbody tr")
    assert "Comercial del Norte" in row.get_text()
    csv_link = page.select_one("[data-testid=csv-download]")["href"]
    assert "receptor=comercial" in csv_link
    download = usuario.get(csv_link)
    assert download.status_code == 200 and download.mimetype == "text/csv"
    # Named by the days filtered, as the IVA books: a month's file and the next one's were both comprobantes.csv.
    days = f"{norte.issue_date:%Y%m%d}-{norte.issue_date:%Y%m%d}"
    assert download.headers["Content-Disposition"] == f'attachment; filename="comprobantes-{days}.csv"'
    rows = list(csv.reader(io.StringIO(download.data.decode("utf-8-sig")), delimiter=";"))
    assert len(rows) == 2 and rows[1][5] == "Comercial del Norte"
    xlsx_link = page.select_one("[data-testid=xlsx-download]")["href"]
    assert xlsx_link == csv_link.replace("exportar.csv", "exportar.xlsx")
    workbook = usuario.get(xlsx_link)
    assert workbook.status_code == 200 and workbook.mimetype == FILE_MEDIA["xlsx"]
    assert workbook.headers["Content-Disposition"] == f'attachment; filename="comprobantes-{days}.xlsx"'
    [_header, line] = load_workbook(io.BytesIO(workbook.data)).active.iter_rows(values_only=True)
    assert line[5] == "Comercial del Norte" and line[7] == float(norte.totals.total)
    # The same receipts as they were signed, in a ZIP passed through the portal as the service writes it.
    xml_link = page.select_one("[data-testid=xml-download]")["href"]
    assert xml_link == csv_link.replace("exportar.csv", "exportar-xml.zip")
    with usuario.get(xml_link) as signed:
        assert signed.status_code == 200 and signed.mimetype == "application/zip" and signed.is_streamed
        assert signed.headers["Content-Disposition"] == f'attachment; filename="comprobantes-xml-{days}.zip"'
        archive = zipfile.ZipFile(io.BytesIO(signed.data))
    assert archive.namelist() == [f"111_{norte.serie}-{norte.nro:07d}.xml"]
    assert archive.read(archive.namelist()[0]) == service_api.get_receipt_xml(norte.id)


def test_bad_filters_are_shown_next_to_the_field_and_kept(usuario):
    bad_date = usuario.get("/comprobantes/?numero=A-15&desde=2026-02-31")
    assert bad_date.status_code == 422 and soup(bad_date).select_one("#desde-error")
    assert soup(bad_date).select_one("#numero")["value"] == "A-15"
    bad_number = usuario.get("/comprobantes/?numero=A-B-C")  # refused by the service, shown on the field
    assert bad_number.status_code == 422 and soup(bad_number).select_one("#numero")["value"] == "A-B-C"
    assert "Escribí la serie y el número" in soup(bad_number).select_one("#numero-error").get_text()


def test_pages_follow_a_cursor(usuario, service_api):
    for _ in range(3):
        service_api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    from portal.web.comprobantes import listing

    listing.PAGE_SIZE, original = 2, listing.PAGE_SIZE
    try:
        first = soup(usuario.get("/comprobantes/"))
        following = first.select_one("a[rel=next]")["href"]
        second = soup(usuario.get(following))
    finally:
        listing.PAGE_SIZE = original
    numbers = [a.get_text() for page in (first, second) for a in page.select(".receipt-list tbody a")]
    assert numbers == ["e-Ticket A-0000003", "e-Ticket A-0000002", "e-Ticket A-0000001"]
    assert second.select_one("a[rel=next]") is None and second.find("a", string="Primera página")


def test_cancel_with_a_full_credit_note_links_both_and_never_twice(usuario, signed_in):
    original = issue(usuario, efactura(usuario))
    page = soup(usuario.get(f"/comprobantes/{original}"))
    form = form_values(page, "#cancel-dialog form")
    missing = usuario.post(f"/comprobantes/{original}/anular", data=form)
    assert missing.status_code == 422
    assert soup(missing).select_one("#cancel-dialog").has_attr("open")
    assert soup(missing).select_one("#razon-error")
    # A key changed by hand (the service refuses one not printable with a 400) is said in the dialog, not a 502.
    tampered = usuario.post(f"/comprobantes/{original}/anular", data={**form, "razon": "x", "idempotency_key": "²"})
    assert tampered.status_code == 422
    assert "Volvé a abrir la página" in soup(tampered).select_one("#cancel-dialog").get_text()
    answer = usuario.post(f"/comprobantes/{original}/anular", data={**form, "razon": "Precio equivocado"})
    assert answer.status_code == 303
    note_id = answer.headers["Location"].rsplit("/", 1)[1]
    note = soup(usuario.get(f"/comprobantes/{note_id}"))
    assert text(note.h1) == "Nota de crédito e-Factura A-0000001, de e-Factura A-0000001"
    assert note.select_one("[data-testid=related] a")["href"] == f"/comprobantes/{original}"
    assert "Precio equivocado" in note.select_one("[data-testid=related]").get_text()
    again = usuario.post(f"/comprobantes/{original}/anular", data={**form, "razon": "Precio equivocado"})
    assert again.headers["Location"] == f"/comprobantes/{note_id}"  # the same key: the same note
    cancelled = soup(usuario.get(f"/comprobantes/{original}"))
    assert cancelled.select_one("[data-testid=related] a")["href"] == f"/comprobantes/{note_id}"
    assert "Anulado" in cancelled.select_one("[data-testid=creditable-balance]").get_text()
    assert cancelled.find("button", string="Anular con nota de crédito") is None
    soporte = signed_in("soporte@demo.uy")
    assert (
        soporte.post(f"/comprobantes/{original}/anular", data={"csrf_token": csrf(soporte), "razon": "x"}).status_code
        == 403
    )


def test_receipt_page_shows_payments_and_discounts_of_a_receipt_issued_through_the_api(usuario, service_api):
    body = bodies.request(
        bodies.ETICKET,
        payments=(Payment("Efectivo", Decimal("300.00")),),
        adjustments=(Adjustment("D", "Descuento contado", Decimal("10.00"), ind_fact=3),),
    )
    receipt = service_api.issue_receipt(body, idempotency_key=uuid.uuid4().hex)
    page = soup(usuario.get(f"/comprobantes/{receipt.id}"))
    assert "Efectivo" in page.select_one("[data-testid=payments]").get_text()
    assert "Descuento contado" in page.select_one("[data-testid=adjustments]").get_text()


def test_receipt_page_shows_lines_terms_and_adenda(usuario):
    data = efactura(usuario)
    data.update({"fch_venc": "2050-01-31", "adenda": "Orden de compra 4512"})
    page = soup(usuario.get(f"/comprobantes/{issue(usuario, data)}"))
    assert "Consultoría" in page.select_one("[data-testid=receipt-lines]").get_text()
    assert page.select_one("[data-testid=payment-form]").get_text() == "Crédito"
    assert page.select_one("[data-testid=adenda]").get_text() == "Orden de compra 4512"
    assert page.select_one("[data-testid=due-date]").get_text(strip=True)


def test_issue_another_like_it(usuario):
    original = issue(usuario, efactura(usuario))
    link = soup(usuario.get(f"/comprobantes/{original}")).find("a", string="Emitir otro igual")["href"]
    data = form_values(soup(usuario.get(link, follow_redirects=True)))
    assert (data["tipo_cfe"], data["doc_recep"], data["lines-0-nom_item"]) == ("111", "214844360018", "Consultoría")
    copy = soup(usuario.get(f"/comprobantes/{issue(usuario, data)}"))
    assert text(copy.h1) == "e-Factura A-0000002"


def test_another_like_an_export_of_goods_keeps_its_terms_of_sale(usuario, service_api):
    """The copy opened with the form's defaults for an export (N/A, export of services, not applicable): issued
    as it came, an export of wool by sea became an export of services."""
    goods = CfeRequest(
        tipo_cfe=121,
        payment_form=1,
        receiver=Receiver(
            doc_type=4,
            country="US",
            document="98-7654321",
            name="Acme Inc.",
            address="500 Market St",
            country_name="EE.UU.",
        ),
        lines=(Line(ind_fact=10, name="Lana sucia", quantity=Decimal(1000), unit="kg", unit_price=Decimal("3.5")),),
        currency="USD",
        exchange_rate=Decimal("39.250"),
        sale_clause="FOB",
        sale_mode=1,
        transport=1,
    )
    original = service_api.issue_receipt(goods, idempotency_key=uuid.uuid4().hex)
    page = soup(usuario.get(f"/comprobantes/{original.id}"))  # the receipt's page says them too
    assert [text(dd) for dd in page.select("[data-testid=term]")] == ["FOB", "Régimen general", "Marítimo"]
    assert "500 Market St, EE.UU." in page.select_one("[aria-labelledby=receiver-heading]").get_text()
    data = form_values(soup(usuario.get(f"/comprobantes/{original.id}/copiar", follow_redirects=True)))
    assert (data["tipo_cfe"], data["clau_venta"], data["mod_venta"], data["via_transp"]) == ("121", "FOB", "1", "1")


def test_a_sale_on_behalf_of_others_shows_and_copies_its_principal(usuario, service_api):
    principal = Principal(2, "211003420017", "Comercial del Norte S.R.L.")
    taxed = Line(ind_fact=3, name="Masas", quantity=Decimal(1), unit_price=Decimal(230))
    request = CfeRequest(tipo_cfe=131, lines=(taxed,), payment_form=1, principal=principal)
    original = service_api.issue_receipt(request, idempotency_key=uuid.uuid4().hex)
    page = soup(usuario.get(f"/comprobantes/{original.id}"))
    assert [text(dd) for dd in page.select("[data-testid=term]")] == ["Comercial del Norte S.R.L. · RUT 211003420017"]
    data = form_values(soup(usuario.get(f"/comprobantes/{original.id}/copiar", follow_redirects=True)))
    assert (data["doc_mdte"], data["nombre_mdte"]) == ("211003420017", "Comercial del Norte S.R.L.")


def test_an_eresguardo_is_issued_with_its_retention_lines(usuario):
    data = form_values(soup(usuario.get("/comprobantes/nuevo?tipoCFE=182", follow_redirects=True)))
    assert "lines-0-cod_ret" in data and "lines-0-precio_unitario" not in data and "fma_pago" not in data
    data.update(
        {
            "tipo_doc_recep": "2",
            "doc_recep": "214844360018",
            "rzn_soc_recep": "DGI",
            "dir_recep": "Fernandez Crespo 1534",
            "ciudad_recep": "Montevideo",
            "lines-0-cod_ret": "2183165",
            "lines-0-tasa": "50",
            "lines-0-base": "22.000,00",
            "lines-0-valor": "11.000,00",
        }
    )
    page = soup(usuario.get(f"/comprobantes/{issue(usuario, data)}"))
    assert text(page.h1) == "e-Resguardo A-0000001"
    lines = page.select_one("[data-testid=receipt-lines]").get_text(" ", strip=True)
    assert "2183165" in lines and "11.000,00" in lines


def test_an_eresguardo_line_without_amount_is_refused_on_that_line(usuario):
    data = form_values(soup(usuario.get("/comprobantes/nuevo?tipoCFE=182", follow_redirects=True)))
    data.update(
        {
            "tipo_doc_recep": "2",
            "doc_recep": "214844360018",
            "rzn_soc_recep": "DGI",
            "lines-0-cod_ret": "2183165",
            "lines-0-tasa": "50",
        }
    )
    answer = usuario.post("/comprobantes/nuevo", data=data)
    assert answer.status_code == 422
    assert soup(answer).select_one("#lines-0-cod_ret")["value"] == "2183165"


def test_the_portal_in_english_shows_the_services_words_in_english(usuario, service_api):
    """#25 item 16: the portal asks the service in the user's language (Accept-Language)."""
    service_api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(usuario)})
    bad_number = usuario.get("/comprobantes/?numero=A-B-C")
    assert bad_number.status_code == 422
    assert (
        soup(bad_number)
        .select_one("#numero-error")
        .get_text(" ", strip=True)
        .endswith("Type the series and the number, such as A-15 or A 0000015, or only the number.")
    )
    download = usuario.get("/comprobantes/exportar.csv")
    header = next(csv.reader(io.StringIO(download.data.decode("utf-8-sig")), delimiter=";"))
    assert header[:4] == ["Date", "Type", "Series", "Number"]


def test_a_rest_that_cannot_be_said_line_by_line_opens_the_partial_note_with_the_reason_typed(usuario):
    """A line with an amount discount: "Anular el saldo" cannot compute the rest, so it opens the partial note's
    form; the reason the person wrote in the dialog is there, not lost on the way."""
    original = issue(usuario, {**efactura(usuario), "lines-0-descuento": "100"})
    partial = form_values(soup(usuario.get(f"/comprobantes/{original}/nota/credito", follow_redirects=True)))
    issue(usuario, {**partial, "ref_razon": "Devolución", "lines-0-cantidad": "3", "lines-0-descuento": ""})
    form = form_values(soup(usuario.get(f"/comprobantes/{original}")), "#cancel-dialog form")
    answer = usuario.post(f"/comprobantes/{original}/anular-saldo", data={**form, "razon": "Fin del contrato"})
    assert answer.status_code == 303
    note_form = soup(usuario.get(answer.headers["Location"], follow_redirects=True))
    assert "No se puede calcular el saldo línea por línea" in note_form.get_text()
    assert form_values(note_form)["ref_razon"] == "Fin del contrato"


def test_a_lines_quantity_is_written_as_the_reader_writes_numbers(usuario):
    """A quantity of one and a half read "1.5" beside Spanish prices (33,33): fifteen hundred to a Uruguayan."""
    receipt = issue(usuario, {**efactura(usuario), "lines-0-cantidad": "1,5", "lines-0-precio_unitario": "1500"})
    quantity = soup(usuario.get(f"/comprobantes/{receipt}")).select_one("[data-label=Cantidad]")
    assert text(quantity) == "1,5 h"
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(usuario)})
    quantity = soup(usuario.get(f"/comprobantes/{receipt}")).select_one("[data-label=Quantity]")
    assert text(quantity) == "1.5 h"


def test_after_a_partial_credit_note_the_rest_is_cancelled_in_one_step(usuario):
    original = issue(usuario, efactura(usuario))  # 10 h of Consultoría at 1.500,00
    page = soup(usuario.get(f"/comprobantes/{original}"))
    assert page.find("button", string="Anular el saldo") is None  # nothing credited yet: the whole-receipt cancel
    link = page.find("a", string="Nota de crédito parcial")["href"]
    partial = form_values(soup(usuario.get(link, follow_redirects=True)))
    issue(usuario, {**partial, "ref_razon": "Devolución", "lines-0-cantidad": "3"})

    page = soup(usuario.get(f"/comprobantes/{original}"))
    assert page.find("button", string="Anular el saldo") is not None
    assert page.find("button", string="Anular con nota de crédito") is None
    form = form_values(page, "#cancel-dialog form")
    assert page.select_one("#cancel-dialog form")["action"] == f"/comprobantes/{original}/anular-saldo"
    answer = usuario.post(f"/comprobantes/{original}/anular-saldo", data={**form, "razon": "Fin del contrato"})
    assert answer.status_code == 303
    note = soup(usuario.get(answer.headers["Location"]))
    assert text(note.h1) == "Nota de crédito e-Factura A-0000002, de e-Factura A-0000001"
    lines = [td.get_text(" ", strip=True) for td in note.select("[data-testid=receipt-lines] tbody td")]
    assert lines[:2] == ["Consultoría", "7 h"]  # the 10 hours less the 3 already credited
    after = soup(usuario.get(f"/comprobantes/{original}"))
    assert after.find("button", string="Anular el saldo") is None  # nothing left to credit
    assert "Fin del contrato" in note.select_one("[data-testid=related]").get_text()


def test_the_list_shows_a_credit_note_negative_and_the_receipt_it_cancelled_marked_and_linked(usuario, service_api):
    original = service_api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    note = service_api.cancel_with_credit_note(original.id, "Error de precio", idempotency_key=uuid.uuid4().hex)
    page = soup(usuario.get("/comprobantes/"))
    rows = {row.select_one("td a")["href"].rsplit("/", 1)[1]: row for row in page.select(".receipt-list tbody tr")}

    note_total = rows[note.id].select_one("[data-testid=row-total]").get_text(strip=True)
    original_total = rows[original.id].select_one("[data-testid=row-total]").get_text(strip=True)
    assert note_total == original_total.replace("$\u00a0", "$\u00a0-") and "-" in note_total
    assert rows[original.id].select_one("[data-testid=cancelled]").get_text(strip=True) == "Anulado"
    link = rows[original.id].select("td a")[1]
    assert link["href"] == f"/comprobantes/{note.id}" and note.number in link.get_text()
    assert not rows[note.id].select("[data-testid=cancelled]")
    assert page.select_one("[data-testid=currency-total]").get_text(strip=True) == "$\u00a00,00"


def test_without_javascript_cancelling_opens_its_question_on_the_page(usuario, signed_in):
    """The button "Anular con nota de crédito" only opened its dialog by script: without it, it did nothing. It
    is now a GET form's button to the receipt's page with the question open (with script, the dialog opens)."""
    original = issue(usuario, efactura(usuario))
    page = soup(usuario.get(f"/comprobantes/{original}"))
    assert not page.select_one("#cancel-dialog").has_attr("open")
    opener = page.find("button", string="Anular con nota de crédito")
    assert opener["type"] == "submit" and opener["data-open-dialog"] == "cancel-dialog"
    form = opener.find_parent("form")
    assert form["method"].lower() == "get"
    asked = usuario.get(form["action"])
    assert asked.status_code == 200
    dialog = soup(asked).select_one("#cancel-dialog")
    assert dialog.has_attr("open") and not dialog.select_one("[aria-invalid=true]")  # asked, not yet refused
    values = form_values(soup(asked), "#cancel-dialog form")
    answer = usuario.post(dialog.find("form")["action"], data={**values, "razon": "Precio equivocado"})
    assert answer.status_code == 303 and answer.headers["Location"] != f"/comprobantes/{original}"
    assert signed_in("soporte@demo.uy").get(form["action"]).status_code == 403
