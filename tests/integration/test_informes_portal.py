"""The portal's "Informes": a period's figures from the service, each chart with its table, the period form
(months, quarters, years, a range) and the sales book downloaded as XLSX and CSV."""

from __future__ import annotations

import io
import json
import os
import subprocess
import uuid
from datetime import timedelta
from pathlib import Path

from bs4 import BeautifulSoup
from openpyxl import load_workbook

from portal.client import CfeClient
from portal.client.cfe import CfeRequest
from portal.client.recibidos import EnvelopeFile
from portal.domain.uruguay_time import today_montevideo
from tests.support import cfe_bodies as bodies
from tests.support import recibidos
from tests.support.html import csrf


def _soup(answer) -> BeautifulSoup:
    return BeautifulSoup(answer.get_data(as_text=True), "html.parser")


def _issue(live_service, live_token_for, body: dict):
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    return api.issue_receipt(CfeRequest.from_json(body), idempotency_key=uuid.uuid4().hex)


def _text(soup: BeautifulSoup, testid: str) -> str:
    return " ".join(soup.find(attrs={"data-testid": testid}).get_text(" ").split())


def test_this_months_sales_with_each_chart_beside_its_numbers(signed_in, live_service, live_token_for):
    _issue(live_service, live_token_for, bodies.body(bodies.EFACTURA))
    _issue(live_service, live_token_for, bodies.body(bodies.ETICKET))
    answer = signed_in("soporte@demo.uy").get("/informes/")
    assert answer.status_code == 200
    soup = _soup(answer)
    today = today_montevideo()
    assert soup.find("select", id="periodo").find("option", selected=True)["value"] == f"m{today:%Y-%m}"
    assert "2 comprobantes" in _text(soup, "figure-total")
    timeline = json.loads(soup.find("script", id="chart-timeline").string)
    assert timeline["kind"] == "bar" and len(timeline["labels"]) == len(timeline["values"])
    rows = soup.find(attrs={"data-testid": "timeline-table"}).select("tbody tr")
    assert len(rows) == 1 and today.strftime("%d/%m/%Y") in rows[0].get_text()
    types = json.loads(soup.find("script", id="chart-types").string)
    assert types["labels"] == ["e-Ticket", "e-Factura"]
    assert "DIRECCION GENERAL IMPOSITIVA" in _text(soup, "customers-table")
    assert "Ventas gravadas a tasa básica" in _text(soup, "iva-table")
    for canvas in soup.select("canvas[data-chart]"):
        assert soup.find("script", id=canvas["data-chart"])  # every chart reads its own data
    assert not soup.select("script:not([src]):not([type='application/json'])")  # no inline script (CSP)


def test_a_customer_without_a_name_is_its_document_once(signed_in, live_service, live_token_for):
    """DGI's sample e-Ticket names its buyer by cédula alone: "Principales clientes" read "13353214" over "13353214"."""
    _issue(live_service, live_token_for, bodies.body(bodies.DGI_SAMPLE_ETICKET))
    _issue(live_service, live_token_for, bodies.body(bodies.EFACTURA))
    rows = _soup(signed_in("usuario@demo.uy").get("/informes/")).select("[data-testid=customers-table] tbody tr")
    cells = [" ".join(row.select_one("td").get_text(" ").split()) for row in rows]
    assert cells == ["13353214", "DIRECCION GENERAL IMPOSITIVA 214844360018"]  # by total, largest first


def test_a_period_without_sales_says_so_instead_of_drawing_empty_charts(signed_in):
    """An empty doughnut was a blank box 18 rem high, an empty bar chart axes from 0 to 1 peso."""
    answer = signed_in("usuario@demo.uy").get("/informes/", query_string={"periodo": f"y{today_montevideo().year - 2}"})
    assert answer.status_code == 200
    soup = _soup(answer)
    assert not soup.select("canvas[data-chart]") and not soup.find("script", id="chart-types")
    for name in ("timeline", "types"):
        assert _text(soup, f"{name}-chart-empty") == "Sin ventas en el período: nada que graficar."
        assert "Sin ventas en el período." in _text(soup, f"{name}-table")  # the table beside it says so too


def test_a_range_is_checked_and_a_year_goes_month_by_month(signed_in, live_service, live_token_for):
    _issue(live_service, live_token_for, bodies.body(bodies.ETICKET))
    portal = signed_in("usuario@demo.uy")
    reversed_range = portal.get(
        "/informes/", query_string={"periodo": "rango", "desde": "10/11/2026", "hasta": "01/11/2026"}
    )
    assert reversed_range.status_code == 422
    assert "anterior al primero" in reversed_range.get_data(as_text=True)
    assert _soup(reversed_range).find("input", id="desde")["value"] == "10/11/2026"  # what was typed is kept
    unknown = portal.get("/informes/", query_string={"periodo": "m2026-13"})
    assert unknown.status_code == 422
    year = _soup(portal.get("/informes/", query_string={"periodo": f"y{today_montevideo().year}"}))
    assert len(json.loads(year.find("script", id="chart-timeline").string)["labels"]) == 12


def test_days_typed_beside_a_month_are_not_left_unread_under_the_months_report(signed_in):
    """The form sends the month still chosen with the days typed (without the page's script, or from an address):
    the page showed the month's report under the days as typed, as if it were theirs. Now it asks which was meant,
    beside the days, and keeps them."""
    portal = signed_in("usuario@demo.uy")
    month = f"m{today_montevideo():%Y-%m}"
    for typed in ({"desde": "01/01/2025", "hasta": "31/01/2025"}, {"hasta": "31/01/2025"}):
        answer = portal.get("/informes/", query_string={"periodo": month, **typed})
        assert answer.status_code == 422, typed
        soup = _soup(answer)
        assert not soup.find(attrs={"data-testid": "report"})
        first = next(iter(typed))
        assert "elegí «Rango de días» en Período" in soup.find(id=f"{first}-error").get_text()
        assert soup.find("input", id=first)["value"] == typed[first]
    assert portal.get("/informes/", query_string={"periodo": month, "desde": "", "hasta": " "}).status_code == 200
    ranged = portal.get("/informes/", query_string={"periodo": "rango", "desde": "01/01/2025", "hasta": "31/01/2025"})
    assert ranged.status_code == 200 and "01/01/2025 – 31/01/2025" in _text(_soup(ranged), "report")


def test_a_period_code_past_the_calendar_is_refused_not_an_error(signed_in):
    """y0000 or m9999-12 (a month whose end is past year 9999) name no period: the form says so (422), on the page
    and on every download, instead of a 500."""
    portal = signed_in("usuario@demo.uy")
    for code in ("y0000", "m0000-01", "q0000-1", "m9999-12", "q9999-4", "y9999"):
        for path in ("/informes/", "/informes/libro-ventas/csv", "/informes/resumen.pdf"):
            answer = portal.get(path, query_string={"periodo": code})
            assert answer.status_code == 422, (code, path, answer.status_code)


def test_the_sales_book_downloads_as_xlsx_and_csv_for_the_period(signed_in, live_service, live_token_for):
    receipt = _issue(live_service, live_token_for, bodies.body(bodies.EFACTURA))
    portal = signed_in("usuario@demo.uy")
    page = _soup(portal.get("/informes/"))
    xlsx = portal.get(page.find(attrs={"data-testid": "book-xlsx"})["href"])
    assert xlsx.status_code == 200 and "attachment" in xlsx.headers["Content-Disposition"]
    sheet = load_workbook(io.BytesIO(xlsx.data))["Libro de ventas"]
    assert sheet.max_row == 2 and sheet.cell(2, 4).value == receipt.nro
    start = today_montevideo() - timedelta(days=2)
    query = {"periodo": "rango", "desde": start.strftime("%d/%m/%Y"), "hasta": today_montevideo().strftime("%d/%m/%Y")}
    csv_answer = portal.get("/informes/libro-ventas/csv", query_string=query)
    assert csv_answer.status_code == 200
    assert csv_answer.get_data(as_text=True).count("\r\n") == 2  # the header and the e-Factura


def test_the_period_summary_downloads_as_a_pdf_with_the_reports_figures(
    signed_in, live_service, live_token_for, tmp_path
):

    receipt = _issue(live_service, live_token_for, bodies.body(bodies.EFACTURA))
    portal = signed_in("usuario@demo.uy")
    page = _soup(portal.get("/informes/"))
    answer = portal.get(page.find(attrs={"data-testid": "summary-pdf"})["href"])
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    assert "attachment" in answer.headers["Content-Disposition"]
    (tmp_path / "resumen.pdf").write_bytes(answer.data)
    if os.environ.get("CFE_SHOTS_DIR"):  # to look at it
        (Path(os.environ["CFE_SHOTS_DIR"]) / "period-summary.pdf").write_bytes(answer.data)
    text = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "resumen.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    report = (
        CfeClient(live_service.url)
        .as_user(live_token_for("usuario@demo.uy"), company_id=1)
        .period_report(today_montevideo().replace(day=1), today_montevideo())
    )
    assert "Resumen del período" in text and "IVA débito fiscal (total)" in text
    total = f"{report.total_uyu:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
    assert total in text and "e-Factura" in text and receipt.receiver.name in text


def test_the_purchases_book_is_linked_beside_the_sales_book(signed_in, live_service, live_token_for):
    """The received CFEs' book downloads from the same page, with the supplier's columns."""
    upload = {"archivos": [(io.BytesIO(recibidos.envelope([recibidos.cfe(1)])), "Sob_211003420017_1.xml")]}
    answer = live_service.app.test_client().post(
        "/api/v1/recibidos",
        data=upload,
        headers={"Authorization": f"Bearer {live_token_for('usuario@demo.uy')}"},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 201, answer.get_json()
    portal = signed_in("usuario@demo.uy")
    page = _soup(portal.get("/informes/"))
    assert "Libro de compras" in page.find(attrs={"data-testid": "purchases-xlsx"}).parent.get_text()
    xlsx = portal.get(page.find(attrs={"data-testid": "purchases-xlsx"})["href"])
    assert xlsx.status_code == 200 and "libro-compras-" in xlsx.headers["Content-Disposition"]
    sheet = load_workbook(io.BytesIO(xlsx.data))["Libro de compras"]
    assert sheet.max_row == 2 and sheet.cell(1, 6).value == "Proveedor" and sheet.cell(2, 4).value == 1
    csv_answer = portal.get(page.find(attrs={"data-testid": "purchases-csv"})["href"])
    assert csv_answer.status_code == 200 and csv_answer.get_data(as_text=True).count("\r\n") == 2


def _receive(live_service, live_token_for, numbers: tuple[int, ...], reject: tuple[int, ...] = ()) -> list[int]:
    """Received CFEs from Comercial del Norte to Demo S.A. (uploaded as its envelope), some rejected by Demo."""
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    envelope = recibidos.envelope([recibidos.cfe(n) for n in numbers])
    [result] = api.upload_envelopes((EnvelopeFile("Sob_211003420017_1.xml", envelope),))
    for index in reject:
        api.reject_received(result.received_ids[index], "E24")
    return list(result.received_ids)


def _amount(value, lang: str = "es") -> str:
    """An amount as the page writes it, without its sign: 1.830,25 (Spanish), 1,830.25 (English)."""
    text = f"{value:,.2f}"
    return text.replace(",", "X").replace(".", ",").replace("X", ".") if lang == "es" else text


def test_the_periods_purchases_by_iva_rate_with_their_suppliers(signed_in, live_service, live_token_for):
    """The purchases book on screen: the received CFEs that count (one rejected by the company counted apart),
    net, IVA and total by rate as the service adds them, the IVA credit, the suppliers, a chart with its table."""
    _receive(live_service, live_token_for, (1, 2, 3), reject=(2,))
    today = today_montevideo()
    report = (
        CfeClient(live_service.url)
        .as_user(live_token_for("usuario@demo.uy"), company_id=1)
        .purchases_report(today.replace(day=1), today)
    )
    assert report.count == 2 and report.rates_total.iva_uyu > 0
    answer = signed_in("soporte@demo.uy").get("/informes/")
    assert answer.status_code == 200
    soup = _soup(answer)
    section = soup.find(attrs={"data-testid": "purchases"})
    assert section.find("h2").get_text(strip=True) == "Compras"
    assert soup.find("a", attrs={"data-testid": "purchases-link"})["href"] == "#purchases-heading"
    total = _text(soup, "purchases-total")
    assert _amount(report.total_uyu) in total and "2 comprobantes de compra" in total
    assert _amount(report.rates_total.iva_uyu) in _text(soup, "purchases-iva")
    assert "por la empresa 1" in _text(soup, "purchases-rejected")
    rows = [
        [cell.get_text(" ", strip=True).replace("\xa0", " ") for cell in row.find_all(["th", "td"])]
        for row in section.find(attrs={"data-testid": "rates-table"}).select("tbody tr")
    ]
    assert [row[0] for row in rows] == [
        "Tasa básica (22 %)",
        "Tasa mínima (10 %)",
        "Otra tasa",
        "Exento y no gravado",
        "Total",
    ]
    for row, line in zip(rows, [*report.by_rate, report.rates_total], strict=True):
        for cell, value in zip(row[1:], (line.net_uyu, line.iva_uyu, line.total_uyu), strict=True):
            assert _amount(value) in cell, (row, line)
    chart = json.loads(section.find("script", id="chart-rates").string)
    assert chart["kind"] == "bar" and [label.replace("\xa0", " ") for label in chart["labels"]] == [
        row[0] for row in rows[:4]
    ]
    assert chart["values"] == [float(line.total_uyu) for line in report.by_rate]
    suppliers = _text(soup, "suppliers-table")
    assert "Comercial del Norte S.R.L." in suppliers and recibidos.SUPPLIER_RUT in suppliers
    assert "e-Factura" in _text(soup, "purchase-types-table")
    assert "IVA crédito fiscal" in _text(soup, "purchase-iva-table")
    assert not soup.select("script:not([src]):not([type='application/json'])")  # no inline script (CSP)
    assert "purchases-xlsx" in str(soup) and "purchases-csv" in str(soup)  # the downloads stay


def test_the_purchases_in_english(signed_in, live_service, live_token_for):
    _receive(live_service, live_token_for, (1,))
    today = today_montevideo()
    report = (
        CfeClient(live_service.url)
        .as_user(live_token_for("usuario@demo.uy"), company_id=1)
        .purchases_report(today.replace(day=1), today)
    )
    portal = signed_in("usuario@demo.uy")
    portal.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(portal)})
    soup = _soup(portal.get("/informes/"))
    section = soup.find(attrs={"data-testid": "purchases"})
    assert section.find("h2").get_text(strip=True) == "Purchases"
    assert "1 purchase receipt" in _text(soup, "purchases-total")
    assert _amount(report.total_uyu, "en") in _text(soup, "purchases-total")
    assert "Input VAT" in _text(soup, "purchases-iva")
    rates = _text(soup, "rates-table")
    assert "Basic rate (22%)" in rates and "Minimum rate (10%)" in rates and "Exempt and non-taxed" in rates
    assert _amount(report.by_rate[0].iva_uyu, "en") in rates
    assert "Top suppliers" in section.get_text() and "Compras" not in section.get_text()
    # How many receipts, not a quantity of goods (the issuing form's "Cantidad", whose English won the merge).
    suppliers = soup.find(attrs={"data-testid": "suppliers-table"})
    assert [th.get_text(strip=True) for th in suppliers.select("thead th")] == ["Supplier", "Count", "Total"]
    assert "VAT at the basic rate" in _text(soup, "purchase-iva-table")


def test_a_period_without_purchases_says_so(signed_in):
    answer = signed_in("usuario@demo.uy").get("/informes/", query_string={"periodo": f"y{today_montevideo().year - 2}"})
    soup = _soup(answer)
    assert _text(soup, "purchases-empty").startswith("Sin compras en el período")
    assert not soup.find("script", id="chart-rates") and not soup.find(attrs={"data-testid": "rates-table"})
    assert "0 comprobantes de compra" in _text(soup, "purchases-total")
