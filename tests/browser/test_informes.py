"""The Informes page draws its charts with Chart.js (npm's chart.js, static/vendor/chartjs) under the portal's
strict CSP: the period's sales by day as bars and by type as a doughnut, each beside the table with the same
numbers, on a desktop and on a phone. The integration tests read the charts' data; only a browser draws them."""

from __future__ import annotations

import uuid

from playwright.sync_api import Page

from portal.client import CfeClient
from tests.browser.pages import Shell, screenshot, settled
from tests.support import cfe_bodies as bodies

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
