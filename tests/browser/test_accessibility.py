"""A keyboard and screen-reader user of the issuing form and the receipt page: errors take the focus where the
person is looking and the title says "Error:", issuing shows that it is working, the cancel dialog after an
empty reason is a real modal, the sticky action bar never hides the focused field, focus rings are visible,
links that look like buttons answer Space, and the phone header folds into a menu button. (axe itself runs on
every page of every browser test: tests/browser/conftest.py.)"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager

from playwright.sync_api import Page, expect

from tests.browser.conftest import AXE_FAILURE, watched_page
from tests.browser.pages import ApiKeysPage, DgiPage, ReceiptsPage, Shell, axe_violations, screenshot, settled

_DOWN = b'{"error": {"code": "unavailable", "message": "Mantenimiento", "fields": [], "requestId": "down-1"}}'


def _service_down_app(environ, start_response):
    start_response("503 Service Unavailable", [("Content-Type", "application/json"), ("Retry-After", "0")])
    return [_DOWN]


@contextmanager
def service_down(live_service):
    """The live service answers 503 to everything (as a service being deployed does) until the block ends."""
    app, live_service.app = live_service.app, _service_down_app
    try:
        yield
    finally:
        live_service.app = app


def _new_receipt(page: Page) -> ReceiptsPage:
    Shell(page).sign_in("usuario@demo.uy")
    receipts = ReceiptsPage(page)
    receipts.open_new()
    return receipts


def _in_viewport(page: Page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


def test_issuing_while_the_service_is_down_shows_working_then_the_error_beside_the_button(
    page: Page, live_service, shots
):
    receipts = _new_receipt(page)
    receipts.fill_line(1, "Café", "2", "122")
    issue = page.get_by_role("button", name="Emitir comprobante")
    held = []
    page.route(
        "**/comprobantes/nuevo",
        lambda route: held.append(route) if route.request.method == "POST" else route.continue_(),
    )
    issue.click()
    while not held:
        page.wait_for_timeout(10)
    expect(issue).to_have_attribute("aria-busy", "true")  # working: Pico draws a spinner on it
    with service_down(live_service):
        held[0].continue_()
        banner = page.locator(".form-actions .error-banner")
        expect(banner).to_contain_text("El servicio CFE no está respondiendo")
    page.unroute("**/comprobantes/nuevo")
    expect(banner).to_be_focused()
    assert _in_viewport(page, banner)
    expect(issue).not_to_have_attribute("aria-busy", "true")
    expect(page).to_have_title(re.compile("^Error: "))
    expect(page.locator("#alerts .error-banner")).to_have_count(0)  # not at the top, off screen
    page.screenshot(path=str(shots / "issue-service-down.png"), caret="initial") if os.environ.get(
        "CFE_SHOTS_DIR"
    ) else None


def test_a_refused_form_focuses_its_error_summary_and_says_error_in_the_title(page: Page):
    _new_receipt(page)
    expect(page).not_to_have_title(re.compile("^Error"))
    page.get_by_role("button", name="Emitir comprobante").click()
    summary = page.locator("[data-error-summary]")
    expect(summary).to_contain_text("Revisá los campos marcados.")
    expect(summary).to_be_focused()
    expect(page).to_have_title(re.compile("^Error: Nuevo comprobante"))
    # The summary names each field marked and leads to it: the next Tab is its link, Enter puts the focus in the
    # field (it said only "Revisá los campos marcados.", and the field could be the last of a long form).
    page.keyboard.press("Tab")
    link = summary.get_by_role("link", name=re.compile(r"^Descripción, línea 1: Completá al menos una línea"))
    expect(link).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_label("Descripción, línea 1")).to_be_focused()


def test_without_javascript_a_refused_form_says_error_in_the_title(browser, live_portal):
    context = browser.new_context(java_script_enabled=False, base_url=live_portal.url)
    try:
        page = context.new_page()
        Shell(page).sign_in("usuario@demo.uy")
        page.goto("/comprobantes/nuevo")
        page.get_by_role("button", name="Emitir comprobante").click()
        expect(page.locator("[data-error-summary]")).to_be_visible()
        expect(page).to_have_title(re.compile("^Error: "))
    finally:
        context.close()


def test_the_cancel_dialog_after_an_empty_reason_is_a_real_modal(page: Page):
    receipts = _new_receipt(page)
    receipts.fill_line(1, "Café", "1", "100")
    receipts.issue()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Ticket A-0000001")
    settled(page)  # the button opens its dialog by script: a click before the page's scripts ran does nothing
    page.get_by_role("button", name="Anular con nota de crédito").click()
    dialog = page.locator("#cancel-dialog")
    dialog.get_by_role("button", name="Emitir la nota de crédito").click()  # no reason: the page comes back
    settled(page)
    expect(dialog).to_be_visible()
    expect(dialog.locator("[aria-invalid=true]")).to_be_focused()
    assert page.evaluate("document.querySelector('#cancel-dialog').matches(':modal')")
    for _ in range(4):  # the page behind is inert: Tab stays in the dialog
        page.keyboard.press("Tab")
        assert page.evaluate("document.querySelector('#cancel-dialog').contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


# The focus ring's colour (box-shadow or outline, blended over white) against white: WCAG's contrast ratio.
_RING_CONTRAST = """(el) => {
  const s = getComputedStyle(el);
  const shadow = s.boxShadow.match(/rgba?\\([^)]*\\)/g) || [];
  const colours = [...shadow, s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0 ? s.outlineColor : null]
    .filter(Boolean);
  const lum = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const ratio = (text) => {
    const [r, g, b, a = 1] = text.match(/[\\d.]+/g).map(Number);
    const over = (v) => v * a + 255 * (1 - a);
    const l = 0.2126 * lum(over(r)) + 0.7152 * lum(over(g)) + 0.0722 * lum(over(b));
    return 1.05 / (l + 0.05);
  };
  return Math.max(0, ...colours.map(ratio));
}"""


def test_focus_rings_are_at_least_3_to_1_against_white(page: Page):
    receipts = _new_receipt(page)
    receipts.fill_line(1, "Café", "1", "100")
    checked = {
        "a field": page.get_by_label("Descripción, línea 1"),
        "a button": page.get_by_role("button", name="Agregar línea"),
        "a secondary button": page.get_by_role("button", name="Previsualizar").last,
        "a link": page.get_by_role("link", name="Comprobantes").last,
    }
    for what, element in checked.items():
        element.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")  # reached by the keyboard: :focus-visible
        expect(element).to_be_focused()
        assert element.evaluate(_RING_CONTRAST) >= 3, what


_HIDDEN_BY_BAR = """() => {
  const bar = document.querySelector(".receipt-form .form-actions").getBoundingClientRect();
  const el = document.activeElement;
  if (!el || el.closest(".form-actions") || !el.closest(".receipt-form")) return null;
  const r = el.getBoundingClientRect();
  const name = el.name || el.id || el.textContent.trim();
  return r.bottom > bar.top + 1 ? `${name} (${Math.round(r.bottom)} > ${Math.round(bar.top)})` : "";
}"""


def test_the_sticky_action_bar_never_hides_the_focused_field(page: Page):
    for size in ({"width": 1366, "height": 900}, {"width": 683, "height": 450}):  # 200 % zoom of the first
        page.set_viewport_size(size)
        if "/comprobantes/nuevo" in page.url:
            page.reload()
            settled(page)
        else:
            _new_receipt(page)
        page.get_by_label("Tipo de comprobante").focus()
        hidden, stops = [], 0
        for _ in range(60):
            page.keyboard.press("Tab")
            found = page.evaluate(_HIDDEN_BY_BAR)
            if found is None:
                if stops:
                    break
                continue
            stops += 1
            if found:
                hidden.append(found)
        assert stops > 15
        assert hidden == [], f"at {size['width']} px: {hidden}"


def test_a_link_that_looks_like_a_button_answers_space(page: Page):
    Shell(page).sign_in("usuario@demo.uy")
    page.goto("/comprobantes/")
    page.get_by_role("button", name="Nuevo comprobante").focus()
    page.keyboard.press("Space")
    expect(page).to_have_url(re.compile(r"/comprobantes/nuevo(\?|$)"))


def test_a_dgi_lookup_result_takes_the_focus_and_is_announced(page: Page):
    Shell(page).open_home_and_sign_in("usuario@demo.uy")
    dgi = DgiPage(page)
    dgi.open_from_navigation()
    dgi.type_document("219999830019")
    dgi.look_up()
    expect(dgi.result).to_be_focused()
    expect(page.locator("#announcer")).to_have_text("Respuesta de DGI: DGI RUC PRUEBA NO CEDE")


def test_after_revoking_a_key_the_focus_is_on_its_row_not_lost(page: Page):
    Shell(page).sign_in("admin@demo.uy")
    keys = ApiKeysPage(page)
    keys.open()
    keys.create("Caja 1")
    expect(keys.secret_field).to_be_visible()
    keys.revoke("Caja 1")
    expect(keys.row("Caja 1").get_by_text("Revocada", exact=True)).to_be_visible()
    settled(page)
    assert page.evaluate("document.activeElement !== document.body")
    expect(keys.row("Caja 1")).to_be_focused()


def test_on_a_phone_the_header_folds_behind_a_menu_button(page: Page, shots):
    Shell(page).open_home_and_sign_in("admin@demo.uy")
    page.set_viewport_size({"width": 390, "height": 844})
    menu = page.get_by_role("button", name="Menú")
    areas = page.get_by_role("navigation", name="Principal").get_by_role("link", name="Comprobantes")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(areas).to_be_hidden()
    assert page.locator(".site-header").bounding_box()["height"] <= 90  # was 190 of 844 px
    screenshot(page, shots / "header-390-closed.png")
    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(areas).to_be_visible()
    expect(page.get_by_role("button", name="Salir")).to_be_visible()
    screenshot(page, shots / "header-390-open.png")
    page.keyboard.press("Escape")
    expect(areas).to_be_hidden()
    expect(menu).to_be_focused()
    page.set_viewport_size({"width": 1366, "height": 900})
    expect(menu).to_be_hidden()
    expect(areas).to_be_visible()
    screenshot(page, shots / "header-1366.png")


def test_the_receipt_list_at_200_percent_zoom_and_the_lines_table_on_a_desktop(page: Page, shots):
    receipts = _new_receipt(page)
    receipts.fill_line(1, "Servicio de mantenimiento mensual de equipos", "1", "1000")
    receipts.issue()
    expect(page.get_by_role("heading", level=1)).to_have_text("e-Ticket A-0000001")
    settled(page)
    iva = page.get_by_test_id("receipt-lines").locator("tbody td").last
    expect(iva).to_contain_text("IVA básica")
    line_height = iva.evaluate("(el) => parseFloat(getComputedStyle(el).lineHeight)")
    text_height = iva.evaluate(
        "(el) => { const r = document.createRange(); r.selectNodeContents(el);"
        " return r.getBoundingClientRect().height; }"
    )
    screenshot(page, shots / "receipt-1366.png")
    assert text_height < 2.5 * line_height, f"'IVA básica (22 %)' takes {text_height / line_height:.1f} lines"

    page.set_viewport_size({"width": 683, "height": 450})  # 1366 x 900 at 200 % zoom
    page.goto("/comprobantes/")
    settled(page)
    screenshot(page, shots / "receipt-list-683.png")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the list scrolls {overflow} px sideways at 683 px"


def test_axe_runs_in_every_portal_page_and_finds_a_violation_but_skips_a_blank_page(browser, live_portal):
    """The watcher the `page` fixture installs (tests/browser/conftest.py) is what makes every browser test an
    accessibility test: a page where axe did not load would pass every check unseen. Here a button without a name
    is found out when htmx swaps it in (the watcher checks what changed on its own), when a script adds one and
    the test checks the page, and when one hidden at this width shows at another (a new size is checked whole);
    the blank page every new tab starts as does not load axe at all."""
    context = browser.new_context(base_url=live_portal.url)
    try:
        page, console_errors = watched_page(context)
        assert page.evaluate("typeof window.axe") == "undefined"  # about:blank: skipped
        page.goto("/")
        assert page.evaluate("typeof window.axe.run + typeof window.__axeCheck") == "functionfunction"
        assert axe_violations(page) == []
        assert not console_errors

        # The phone's menu button, nameless: hidden at 1280 px, so the check of what changed finds nothing there.
        page.evaluate("document.querySelector('.menu-button').textContent = ''")
        assert axe_violations(page) == []
        page.set_viewport_size({"width": 390, "height": 844})
        assert any(found.startswith("critical button-name") for found in axe_violations(page)), console_errors
        page.evaluate("document.querySelector('.menu-button').textContent = 'Menú'")
        assert axe_violations(page) == []

        page.evaluate("htmx.swap('main', '<p id=\"swapped\"><button></button></p>', {swapStyle: 'beforeend'})")
        settled(page)
        found = [m for m in console_errors if m.startswith(AXE_FAILURE + "critical button-name")]
        assert any("#swapped" in m for m in found), console_errors

        page.evaluate("document.querySelector('main').append(document.createElement('button'))")
        assert any(found.startswith("critical button-name") for found in axe_violations(page)), console_errors
    finally:
        context.close()
