"""The Informes page draws its charts with Chart.js (npm's chart.js, static/vendor/chartjs) under the portal's
strict CSP: the period's sales by day as bars and by type as a doughnut, each beside the table with the same
numbers, on a desktop and on a phone. The integration tests read the charts' data; only a browser draws them."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page, expect

from portal.client import CfeClient
from portal.client.recibidos import EnvelopeFile
from tests.browser.pages import Shell, row_cells, screenshot, settled
from tests.support import cfe_bodies as bodies
from tests.support import recibidos

# Each chart as Chart.js holds it: its kind, how many of its values are not zero, the canvas' drawn size.
_CHARTS = """() => [...document.querySelectorAll("canvas[data-chart]")].map((canvas) => {
  const chart = Chart.getChart(canvas);
  return {
    id: canvas.dataset.chart,
    kind: chart ? chart.config.type : null,
    values: chart ? chart.data.datasets[0].data.filter((value) => value !== 0).length : 0,
    width: canvas.width,
    height: canvas.height,
  };
})"""

# Chart.js follows a narrower window a frame or two later (a ResizeObserver): wait for it, up to 5 s.
_CHARTS_INSIDE_THE_WINDOW = """() => new Promise((resolve) => {
  const inside = () => [...document.querySelectorAll("canvas[data-chart]")]
    .every((canvas) => canvas.getBoundingClientRect().right <= window.innerWidth + 1);
  const started = performance.now();
  (function check() {
    if (inside() || performance.now() - started > 5000) { resolve(inside()); } else { requestAnimationFrame(check); }
  })();
})"""


def test_the_periods_sales_are_drawn_by_day_and_by_type_on_a_desktop_and_a_phone(
    page: Page, live_service, live_token_for, shots
):
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    for body in (bodies.EFACTURA, bodies.ETICKET):
        api.issue_receipt(bodies.request(body), idempotency_key=uuid.uuid4().hex)
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto("/informes/")
    settled(page)
    charts = page.evaluate(_CHARTS)
    kinds = [(chart["id"], chart["kind"]) for chart in charts]
    assert kinds == [("chart-timeline", "bar"), ("chart-types", "doughnut")]
    assert [chart["values"] for chart in charts] == [1, 2]  # today's bar; the e-Factura's and the e-Ticket's slices
    assert all(chart["width"] > 200 and chart["height"] > 150 for chart in charts), charts
    screenshot(page, shots / "informes-1366.png")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate(_CHARTS_INSIDE_THE_WINDOW), page.evaluate(_CHARTS)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, shots / "informes-390.png")
    shell.assert_no_csp_violations()


def test_the_periods_purchases_are_drawn_by_iva_rate_beside_their_table(
    page: Page, live_service, live_token_for, shots
):
    """Received e-Facturas at the basic and the minimum rate: the purchases' bar chart draws both rates, and the
    section fits a phone's width."""
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    envelope = recibidos.envelope([recibidos.cfe(n) for n in (1, 2)])
    api.upload_envelopes((EnvelopeFile("Sob_211003420017_1.xml", envelope),))
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto("/informes/")
    settled(page)
    charts = {chart["id"]: chart for chart in page.evaluate(_CHARTS)}
    assert charts["chart-rates"]["kind"] == "bar" and charts["chart-rates"]["values"] == 2  # basic and minimum
    assert charts["chart-rates"]["width"] > 200 and charts["chart-rates"]["height"] > 150
    purchases = page.get_by_role("region", name="Compras por tasa de IVA")
    assert purchases.get_by_role("rowheader", name="Tasa básica (22\xa0%)").is_visible()
    page.get_by_role("link", name="Compras", exact=True).click()
    screenshot(page, shots / "informes-compras-1366.png")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate(_CHARTS_INSIDE_THE_WINDOW), page.evaluate(_CHARTS)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_role("heading", name="Compras", exact=True).scroll_into_view_if_needed()
    screenshot(page, shots / "informes-compras-390.png")
    shell.assert_no_csp_violations()


def test_typing_the_days_of_a_range_chooses_the_range_and_a_month_empties_them(page: Page):
    """Days typed under "Noviembre 2026" were sent with the month, and the page showed the month's report under the
    days as typed. Typing a day now chooses "Rango de días"; choosing a month again empties the days."""
    Shell(page).sign_in("usuario@demo.uy")
    page.goto("/informes/")
    settled(page)
    period, since, until = page.get_by_label("Período"), page.get_by_label("Desde"), page.get_by_label("Hasta")
    since.fill("01/11/2026")
    expect(period).to_have_value("rango")
    until.fill("15/11/2026")
    page.get_by_role("button", name="Ver el período").click()
    expect(page.get_by_role("heading", name="01/11/2026 – 15/11/2026")).to_be_visible()
    settled(page)
    month = period.locator("option").first.get_attribute("value")
    period.select_option(month)
    expect(since).to_have_value("")
    expect(until).to_have_value("")
    page.get_by_role("button", name="Ver el período").click()
    expect(page.get_by_label("Período")).to_have_value(month)
    settled(page)


# The report's tables whose box scrolls sideways (a column out of sight, cut mid-amount at the box's edge).
_TABLES_SCROLLED = """() => [...document.querySelectorAll(".report [role=region]")]
  .filter((box) => box.scrollWidth > box.clientWidth + 1)
  .map((box) => `${box.querySelector("table").dataset.testid}: ${box.scrollWidth - box.clientWidth}px`)"""
# The tables of cards whose box scrolls down (its last cards out of sight).
_CARDS_HIDDEN = """() => [...document.querySelectorAll(".report [role=region]:has(> .stacked-table)")]
  .filter((box) => box.scrollHeight > box.clientHeight + 1)
  .map((box) => `${box.querySelector("table").dataset.testid}: ${box.scrollHeight - box.clientHeight}px`)"""


def test_a_months_tables_read_whole_on_a_phone(page: Page, live_service, live_token_for, shots):
    """At 390 px the currency table cut "En pesos" at "$ 76" and the purchases by rate cut their Total at
    "$ 77.088,7": four columns of a month's amounts do not fit a phone, and a box scrolled sideways hid the
    column that matters. Each row is a card there now, every amount under its column's name, and every card in
    sight (the rates' box, held to 22rem, hid its total row)."""
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    dollars = {**bodies.body(bodies.EFACTURA), "tpoMoneda": "USD", "tpoCambio": "40.125"}
    api.issue_receipt(bodies.request(dollars), idempotency_key=uuid.uuid4().hex)
    api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    supplier_dollars = {**recibidos.EFACTURA, "tpoMoneda": "USD", "tpoCambio": "40.125"}
    envelope = recibidos.envelope([recibidos.cfe(1), recibidos.cfe(2, body=supplier_dollars)])
    api.upload_envelopes((EnvelopeFile("Sob_211003420017_1.xml", envelope),))
    shell = Shell(page)
    shell.sign_in("usuario@demo.uy")
    for language in ("es", "en"):
        if language == "en":
            page.set_viewport_size({"width": 1366, "height": 900})
            page.get_by_role("button", name="English").click()
            expect(page.locator("html")).to_have_attribute("lang", "en")
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto("/informes/")
        settled(page)
        assert page.evaluate(_TABLES_SCROLLED) == [], language
        assert page.evaluate(_CARDS_HIDDEN) == [], language
        currency = page.get_by_test_id("currency-table").locator("tbody tr").first
        assert all(inside for _, inside in row_cells(currency)), row_cells(currency)
        screenshot(page, shots / f"informes-tables-{language}-390.png")
        page.set_viewport_size({"width": 1366, "height": 900})
        assert page.evaluate(_TABLES_SCROLLED) == [], language
        screenshot(page, shots / f"informes-tables-{language}-1366.png")
