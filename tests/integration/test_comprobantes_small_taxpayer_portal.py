"""An IVA mínimo or Monotributo company issues through the receipts form: its sales carry no IVA, so the
form sends DGI's MntBruto 3 with indicator 16 on the lines (and no "prices include IVA" switch), and the
service's rules and totals apply; a company in the general regime keeps MntBruto 1."""

from __future__ import annotations

import pytest
from lxml import etree
from sqlalchemy import select

from portal.service.comprobante.models import CaeRangeRecord
from portal.service.empresa.models import CompanySettings
from portal.service.platform import db
from tests.integration.test_comprobantes_portal import form_values, issue, new_form, soup

NS = {"c": "http://cfe.dgi.gub.uy"}


def _make_small_taxpayer(live_service, regimen: str) -> None:
    """Company 1 becomes `regimen`, with the CAE especial DGI gives such issuers (2 IVA mínimo, 3 Monotributo;
    an ordinary CAE for the general regime)."""
    with live_service.app.app_context():
        session = db.session()
        row = session.get(CompanySettings, 1) or CompanySettings(company_id=1, formato_papel="a4", iva_al_dia=True)
        row.regimen = regimen
        session.add(row)
        for cae in session.scalars(select(CaeRangeRecord).where(CaeRangeRecord.company_id == 1)):
            cae.cae_especial = {"iva_minimo": 2, "monotributo": 3}.get(regimen)
        session.commit()


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


def _xml(client, receipt_id: str):
    answer = client.get(f"/comprobantes/{receipt_id}/xml")
    assert answer.status_code == 200
    return etree.fromstring(answer.data)


@pytest.mark.parametrize("regimen", ["iva_minimo", "monotributo"])
def test_a_small_taxpayer_issues_without_iva_and_the_xml_says_mnt_bruto_3(usuario, live_service, regimen):
    _make_small_taxpayer(live_service, regimen)
    page = soup(usuario.get("/comprobantes/nuevo", follow_redirects=True))
    assert "vendés sin IVA" in page.select_one("[data-testid=sells-without-iva]").get_text()
    assert page.select_one("input[name=mnt_bruto]") is None  # no switch to get wrong
    offered = [option["value"] for option in page.select("select[name=lines-0-ind_fact] option")]
    assert offered[0] == "16" and not {"1", "2", "3"} & set(offered)

    data = form_values(page)
    assert data["ventas_sin_iva"] == "1" and data["lines-0-ind_fact"] == "16"
    lines = soup(usuario.post("/comprobantes/nuevo/lineas", data=data, headers={"HX-Request": "true"}))
    data = {**data, **form_values(lines, "#lines")}
    assert data["lines-1-ind_fact"] == "16"  # a line added later is a sale without IVA too
    data.update(
        {
            "lines-0-nom_item": "Empanadas",
            "lines-0-cantidad": "6",
            "lines-0-precio_unitario": "90",
            "lines-1-nom_item": "Refresco",
            "lines-1-cantidad": "2",
            "lines-1-precio_unitario": "1.000,50",
        }
    )
    root = _xml(usuario, issue(usuario, data))
    assert root.findtext(".//c:IdDoc/c:MntBruto", namespaces=NS) == "3"
    assert [e.text for e in root.iterfind(".//c:Item/c:IndFact", NS)] == ["16", "16"]
    assert root.findtext(".//c:Totales/c:MntTotal", namespaces=NS) == "2541.00"  # 540 + 2001, no IVA added
    assert root.findtext(".//c:Totales/c:MntPagar", namespaces=NS) == "2541.00"
    assert root.find(".//c:Totales/c:MntIVATasaBasica", NS) is None
    assert root.find(".//c:Totales/c:MntNetoIVATasaBasica", NS) is None


def test_a_form_opened_before_the_company_left_iva_minimo_gets_the_services_refusal(usuario, live_service):
    """The form remembers what the company was when it was opened; the service checks what it is now."""
    _make_small_taxpayer(live_service, "iva_minimo")
    data = new_form(usuario)
    _make_small_taxpayer(live_service, "general")  # an admin changed it meanwhile
    data.update({"lines-0-nom_item": "Empanadas", "lines-0-cantidad": "6", "lines-0-precio_unitario": "90"})
    answer = usuario.post("/comprobantes/nuevo", data=data)
    assert answer.status_code == 422
    page = soup(answer)
    error = page.select_one("#mnt_bruto-error").get_text(" ", strip=True)
    assert "solo de contribuyentes IVA mínimo, Monotributo" in error
    assert page.select_one("input[name=lines-0-nom_item]")["value"] == "Empanadas"  # what was typed is kept
    # The form the company needs now: the switch back (next to its error), no sale without IVA to send again.
    assert page.select_one("input[name=mnt_bruto]") is not None and not page.select("[data-testid=sells-without-iva]")
    data = form_values(page)
    assert data["ventas_sin_iva"] == "" and data["mnt_bruto"] == "y"  # the prices typed were final
    assert data["lines-0-ind_fact"] == "3"  # indicator 16 is not this company's: the basic rate instead
    root = _xml(usuario, issue(usuario, data))
    assert root.findtext(".//c:IdDoc/c:MntBruto", namespaces=NS) == "1"
    assert root.findtext(".//c:Totales/c:MntTotal", namespaces=NS) == "540.00"  # 6 x 90, IVA included


def test_a_general_company_still_sends_prices_with_iva_as_mnt_bruto_1(usuario):
    page = soup(usuario.get("/comprobantes/nuevo", follow_redirects=True))
    assert page.select_one("[data-testid=sells-without-iva]") is None
    assert "16" not in [option["value"] for option in page.select("select[name=lines-0-ind_fact] option")]
    data = form_values(page)
    assert data["ventas_sin_iva"] == "" and data["mnt_bruto"] == "y"
    data.update({"lines-0-nom_item": "Café", "lines-0-cantidad": "2", "lines-0-precio_unitario": "122"})
    root = _xml(usuario, issue(usuario, data))
    assert root.findtext(".//c:IdDoc/c:MntBruto", namespaces=NS) == "1"
    assert root.findtext(".//c:Totales/c:MntIVATasaBasica", namespaces=NS) == "44.00"
