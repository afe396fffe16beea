"""The portal issues an e-Factura de Exportación: the type shows the terms of sale and the country of the buyer
(and only it does), the lines offer the export indicators, the receipt is issued through the live service, and
its credit note is drafted from the receipt page with the same terms."""

from __future__ import annotations

import pytest

from tests.integration.test_comprobantes_portal import HTMX, form_values, issue, new_form, soup, text


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


def export_form(client) -> dict[str, str]:
    data = new_form(client)
    reshaped = soup(client.post("/comprobantes/nuevo/tipo", data={**data, "tipo_cfe": "121"}, headers=HTMX))
    data = form_values(reshaped)
    data.update(
        {
            "fma_pago": "2",
            "tpo_moneda": "USD",
            "tpo_cambio": "39,250",
            "tipo_doc_recep": "4",
            "cod_pais_recep": "US",
            "doc_recep": "98-7654321",
            "rzn_soc_recep": "Acme Software Inc.",
            "dir_recep": "500 Market Street",
            "ciudad_recep": "San Francisco",
            "pais_recep": "Estados Unidos",
            "lines-0-nom_item": "Desarrollo de software",
            "lines-0-cantidad": "120",
            "lines-0-uni_med": "h",
            "lines-0-precio_unitario": "45",
        }
    )
    return data


def test_the_export_fields_show_only_for_an_export(usuario):
    data = new_form(usuario)
    plain = soup(usuario.post("/comprobantes/nuevo/tipo", data={**data, "tipo_cfe": "111"}, headers=HTMX))
    assert plain.select_one("#clau_venta") is None and plain.select_one("#pais_recep") is None
    export = soup(usuario.post("/comprobantes/nuevo/tipo", data={**data, "tipo_cfe": "121"}, headers=HTMX))
    assert export.select_one("#clau_venta")["value"] == "N/A"
    assert export.select_one("#mod_venta option[selected]")["value"] == "90"
    assert export.select_one("#via_transp option[selected]")["value"] == "8"
    assert export.select_one("#pais_recep") is not None and export.select_one("#mnt_bruto") is None
    offered = [option["value"] for option in export.select("#lines-0-ind_fact option")]
    assert offered == ["10", "5", "6", "7"]
    assert export.select_one("#lines-0-ind_fact option[selected]")["value"] == "10"


def test_usuario_issues_an_export_invoice_and_credits_it_from_its_page(usuario):
    receipt_id = issue(usuario, export_form(usuario))
    page = usuario.get(f"/comprobantes/{receipt_id}")
    assert page.status_code == 200
    assert text(soup(page).h1) == "e-Factura de exportación A-0000001"
    pdf = usuario.get(f"/comprobantes/{receipt_id}/pdf")
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    credit_links = [a["href"] for a in soup(page).select("a[href]") if "nota" in a["href"]]
    assert credit_links, "the receipt page offers its notes"
    draft = soup(usuario.get(credit_links[0], follow_redirects=True))
    values = form_values(draft)
    assert values["tipo_cfe"] in ("122", "123")
    assert (values["clau_venta"], values["mod_venta"], values["via_transp"]) == ("N/A", "90", "8")
    assert values["pais_recep"] == "Estados Unidos"


def _typed(client, tipo: str) -> dict[str, str]:
    data = new_form(client)
    return form_values(soup(client.post("/comprobantes/nuevo/tipo", data={**data, "tipo_cfe": tipo}, headers=HTMX)))


def test_a_boleta_offers_the_sellers_indicators_and_imeba_and_issues(usuario):
    data = _typed(usuario, "151")
    form = soup(usuario.post("/comprobantes/nuevo/tipo", data=data, headers=HTMX))
    assert form.select_one("#incluye_imeba") is not None and form.select_one("#mnt_bruto") is None
    assert [o["value"] for o in form.select("#lines-0-ind_fact option")][:4] == ["13", "14", "15", "17"]
    assert form.select_one("#doc_mdte") is None and form.select_one("#clau_venta") is None
    data.update(
        {
            "incluye_imeba": "y",
            "tipo_doc_recep": "3",
            "doc_recep": "1.335.321-4",
            "rzn_soc_recep": "Juan Pérez",
            "dir_recep": "Ruta 5 km 120",
            "lines-0-ind_fact": "15",
            "lines-0-nom_item": "Novillos",
            "lines-0-cantidad": "12",
            "lines-0-precio_unitario": "1850",
        }
    )
    data.pop("mnt_bruto", None)
    receipt_id = issue(usuario, data)
    assert text(soup(usuario.get(f"/comprobantes/{receipt_id}")).h1) == "e-Boleta de entrada A-0000001"


def test_a_sale_on_behalf_of_others_asks_for_its_principal_and_issues(usuario):
    data = _typed(usuario, "141")
    form = soup(usuario.post("/comprobantes/nuevo/tipo", data=data, headers=HTMX))
    assert form.select_one("#doc_mdte") is not None and form.select_one("#incluye_imeba") is None
    data.update(
        {
            "tipo_doc_recep": "2",
            "doc_recep": "214844360018",
            "rzn_soc_recep": "DGI",
            "dir_recep": "Fernandez Crespo 1534",
            "ciudad_recep": "Montevideo",
            "lines-0-nom_item": "Masas",
            "lines-0-cantidad": "20",
            "lines-0-precio_unitario": "230",
        }
    )
    missing = usuario.post("/comprobantes/nuevo", data=data)
    assert missing.status_code == 422
    assert soup(missing).select_one("#doc_mdte")["aria-invalid"] == "true"  # the service's error, on its field
    data.update({"tipo_doc_mdte": "2", "doc_mdte": "21-900009-001-1", "nombre_mdte": "DGI PRUEBA"})
    receipt_id = issue(usuario, data)
    page = soup(usuario.get(f"/comprobantes/{receipt_id}"))
    assert text(page.h1) == "e-Factura venta por cuenta ajena A-0000001"


def test_an_export_remito_moves_priced_goods_with_its_terms_and_issues(usuario):
    data = _typed(usuario, "124")
    form = soup(usuario.post("/comprobantes/nuevo/tipo", data=data, headers=HTMX))
    assert form.select_one("#tipo_traslado") is not None and form.select_one("#fma_pago") is None
    assert form.select_one("#lines-0-precio_unitario") is not None and form.select_one("#lines-0-descuento") is None
    assert [o["value"] for o in form.select("#lines-0-ind_fact option")] == ["0", "5", "8"]
    assert form.select_one("#mod_venta option[selected]")["value"] == "1"  # a remito moves goods
    data.update(
        {
            "tpo_moneda": "USD",
            "tpo_cambio": "39,250",
            "clau_venta": "FOB",
            "via_transp": "1",
            "tipo_doc_recep": "7",
            "cod_pais_recep": "BR",
            "doc_recep": "12.345.678/0001-90",
            "rzn_soc_recep": "Importadora Sul Ltda.",
            "dir_recep": "Rua das Flores 100",
            "pais_recep": "Brasil",
            "lines-0-nom_item": "Lana lavada",
            "lines-0-cantidad": "2000",
            "lines-0-uni_med": "kg",
            "lines-0-precio_unitario": "6,10",
        }
    )
    receipt_id = issue(usuario, data)
    assert text(soup(usuario.get(f"/comprobantes/{receipt_id}")).h1) == "e-Remito de exportación A-0000001"


def test_the_receipt_page_shows_the_exchange_rate_with_its_three_decimals(usuario):
    """TpoCambio carries 3 decimals: the receipt typed at 39,255 says so, not the 39,26 of an amount (the PDF
    already printed 39,255, so the page and the PDF disagreed)."""
    receipt_id = issue(usuario, {**export_form(usuario), "tpo_cambio": "39,255"})
    details = soup(usuario.get(f"/comprobantes/{receipt_id}")).get_text(" ", strip=True)
    assert "USD (tipo de cambio 39,255)" in details
