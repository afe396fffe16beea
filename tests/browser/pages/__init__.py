"""Page objects for the browser tests: what a person sees and does, by role and label, so that a test says what
a user does rather than which selectors it uses. The shared helpers (settled, both_widths, nav_link...) and the
pages of sign-in, the shell, API keys, DGI lookups, smart issuance, the receipts area and Empresa are here; the
other pages have a module each: `issuing` (the issuing form from the catalogues), `receipt` (a receipt's page:
correction, credit note, e-mail), `recibidos`, `envios`, `webhooks`."""

from __future__ import annotations

import os
import re
from contextlib import contextmanager, suppress
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.oidc import DEMO_PASSWORD, filled_sign_in_form


def screenshot(page: Page, path) -> None:
    """A full-page screenshot that leaves the page alone: Playwright's default caret hiding writes a style
    attribute into every input, and htmx copies it onto swapped-in content, a CSP violation of the test's own
    making. Taken only when CFE_SHOTS_DIR asks for screenshots to look at: each cost chromium about 0.3 s of
    CPU, and a failing test gets pytest-playwright's own screenshot anyway."""
    if os.environ.get("CFE_SHOTS_DIR"):
        page.screenshot(path=str(path), full_page=True, caret="initial")


def settled(page: Page) -> None:
    """Wait until the page has loaded and htmx has no request, swap or settle under way (what it fetches on
    load included). Not Playwright's "networkidle", which waits for half a second of silence on every page."""
    # One evaluate of the page's own promise (tests/browser/conftest.py), not wait_for_function (a string
    # predicate is eval'd in the page, which its CSP refuses) nor expect() (its polling waits up to a second).
    for _ in range(5):
        page.wait_for_load_state("load")
        try:
            at_rest = page.evaluate("(limit) => window.__settled ? window.__settled(limit) : true", 20_000)
        except PlaywrightError as error:  # the page navigated meanwhile: wait for the new one
            if "context was destroyed" in str(error) or "navigat" in str(error):
                continue
            raise
        assert at_rest, f"{page.url} is still busy after 20 s (htmx requests or an axe run under way)"
        return
    raise AssertionError(f"{page.url} kept navigating")


def axe_violations(page: Page) -> list[str]:
    """Serious and critical axe violations of the page as it is now, at its current width (also logged as console
    errors, which fail the test; tests/browser/conftest.py). What has not changed since the watcher's last run at
    this width and scroll position is not checked again: what that run found is among the console errors. A page
    still loading is checked once it has loaded: before its stylesheets apply, axe would judge the unstyled page
    (a test may end just after a navigation)."""
    page.wait_for_load_state("load")
    return page.evaluate(_AXE_CHECK)


# A web page without the watcher is a failure, not a pass: a broken watcher script once turned every check off
# unseen (tests/browser/test_accessibility.py checks the watcher itself).
_AXE_CHECK = """() => window.__axeCheck ? window.__axeCheck()
  : /^https?:$/.test(location.protocol) && document.contentType === "text/html" && window.top === window
    ? ["axe is not running in " + location.pathname + ": its watcher did not start (tests/browser/conftest.py)"] : []"""


DESKTOP, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}

# A select whose chosen option does not fit shows it cut ("UYU · peso uruguay"): the option's text, in the
# select's own font, against the room the select leaves for it (its padding holds the arrow).
CUT_SELECTS = """() => {
  const canvas = document.createElement("canvas").getContext("2d");
  const out = [];
  for (const el of document.querySelectorAll("select:not([multiple])")) {
    const option = el.options[el.selectedIndex];
    const style = getComputedStyle(el);
    if (!option || el.offsetParent === null) continue;
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const needed = canvas.measureText(option.text.trim()).width;
    const sizes = `${Math.round(needed)} > ${Math.round(room)}px`;
    if (needed > room + 1) out.push(`select ${el.name || el.id}: "${option.text.trim()}" (${sizes})`);
  }
  return out;
}"""
# The outermost elements that stick out to the right of the viewport (for the failure message).
_WIDE = """[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right >
  document.documentElement.clientWidth + 1 && !e.parentElement.closest('.table-scroll'))
  .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""


# Each cell of a table row: its column's name as a phone's card shows it (data-label; None for a row's own header),
# and whether the cell lies whole inside the window.
_ROW_CELLS = """(row) => [...row.cells].map((cell) => {
  const box = cell.getBoundingClientRect();
  return [cell.dataset.label || null, box.left >= 0 && box.right <= window.innerWidth];
})"""


def row_cells(row: Locator) -> list[list]:
    """[label, in the window] for each cell of a table row (stacked-table: one card per row on a phone)."""
    return row.evaluate(_ROW_CELLS)


def both_widths(page: Page, shots: Path, name: str, *, phone_fits: bool = True) -> None:
    """The page at desktop and phone width (a screenshot of each when CFE_SHOTS_DIR asks for them); axe finds
    nothing serious at either, and on the phone nothing may scroll sideways. Measured once the page has loaded its
    stylesheets: a page just reached by a link is in the DOM before they apply, and its phone layout with them."""
    settled(page)
    for label, size in (("1366", DESKTOP), ("390", PHONE)):
        page.set_viewport_size(size)
        screenshot(page, shots / f"{name}-{label}.png")
        found = axe_violations(page)  # a box that scrolls sideways only on a phone, for one
        assert found == [], f"{name} at {label} px: " + "\n".join(found)
        if size is PHONE and phone_fits:
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"{name}: {overflow}px of horizontal scroll at 390 px: {page.evaluate(_WIDE)}"
    page.set_viewport_size(DESKTOP)


@contextmanager
def answer_held(page: Page, url: str, swapped: str):
    """Hold the answer to the htmx request the block's first action sends until the block is done, then let
    it through and wait until it is swapped in: the window in which a person types into the old content,
    there on every run instead of for ~100 ms."""
    held = []
    page.route(url, lambda route: held.append(route))
    page.evaluate("(selector) => { document.querySelector(selector).dataset.old = 'yes'; }", swapped)
    yield
    while not held:  # the route's handler runs when Playwright next hears from the browser
        page.wait_for_timeout(10)
    held[0].continue_()
    page.unroute(url)
    expect(page.locator("[data-old]")).to_have_count(0)  # the old content is gone: the answer was swapped in
    settled(page)


@contextmanager
def answers_held_in_order(page: Page, url: str, *, until: str):
    """Hold every answer to requests for `url` until one whose URL contains `until` has been asked for, then let
    them through in the order they were asked (each one's answer may already be refused: htmx aborts a request a
    later one replaces)."""
    held = []
    page.route(url, lambda route: held.append(route))
    yield
    while not any(until in route.request.url for route in held):
        page.wait_for_timeout(10)
    page.unroute(url)
    for route in held:
        with suppress(PlaywrightError):
            route.continue_()
    settled(page)


def nav_link(page: Page, name: str, *, exact: bool = False):
    """A link of the main navigation as a person reaches it: on a phone, behind the header's Menú button."""
    settled(page)  # styled, and nothing of htmx's (nor axe) under way while "Más" is open over the page
    menu = page.locator("[data-menu-toggle]")
    if menu.is_visible() and menu.get_attribute("aria-expanded") != "true":
        menu.click()
    main = page.get_by_role("navigation", name=re.compile(r"^(Principal|Main)$"))  # in Spanish or English
    link = main.get_by_role("link", name=name, exact=exact)
    more = page.locator(".nav-more details")
    # The settings and support pages are under "Más". Ask whether the link is in there rather than whether it is
    # visible: inside a closed <details> on a phone, Chromium still reports a box for it (under the summary).
    if more.count() and more.get_attribute("open") is None:
        if more.get_by_role("link", name=name, exact=exact, include_hidden=True).count():
            more.locator("summary").click()
    return link


def _is_pdf(response) -> bool:
    return response.url.endswith("/pdf")


class SignInPage:
    def __init__(self, page: Page):
        self.page = page

    def sign_in(self, email: str, password: str = DEMO_PASSWORD) -> None:
        self.page.get_by_label("Correo electrónico").or_(self.page.get_by_label("E-mail")).fill(email)
        self.page.get_by_label("Contraseña").or_(self.page.get_by_label("Password")).fill(password)
        self.page.get_by_role("button", name="Ingresar").or_(self.page.get_by_role("button", name="Sign in")).click()


class Shell:
    """The layout every portal page shares."""

    def __init__(self, page: Page):
        self.page = page

    def sign_in_through_the_pages(self, email: str) -> None:
        """Sign in as a person does: the home page's Ingresar, the provider's form, back to the home page."""
        self.page.goto("/")
        self.page.get_by_role("button", name="Ingresar").first.click()
        SignInPage(self.page).sign_in(email)
        self._at_home_as(email)

    def sign_in(self, email: str) -> None:
        """Signed in through the same OIDC flow, its requests sent by the browser context's own HTTP client
        (which shares the context's cookies) instead of rendered: the tests about the sign-in pages use
        sign_in_through_the_pages. The tab stays where it is, so a test's first page is the one it opens next:
        the home page drawn and checked by axe first cost chromium about 0.35 s of CPU per test
        (docs/PERFORMANCE.md, "The test suite")."""
        request = self.page.context.request
        form_page = request.get("/auth/login")  # redirected to the provider's sign-in form
        assert form_page.ok, form_page.status
        action, fields = filled_sign_in_form(form_page.url, form_page.text(), email)
        home = request.post(action, form=fields)  # ... and back to the home page, signed in
        assert home.ok, home.status
        assert f'data-testid="who-email">{email}<' in home.text(), "the home page does not greet " + email

    def open_home_and_sign_in(self, email: str) -> None:
        """sign_in, then the home page: for the tests that start where a person lands."""
        self.sign_in(email)
        self.page.goto("/")
        self._at_home_as(email)

    def _at_home_as(self, email: str) -> None:
        expect(self.page.get_by_test_id("who-email")).to_have_text(email)
        # The page's scripts are deferred: a person (or a test) acting before they ran would change the company
        # select with nothing listening yet (the no-script "Cambiar" button is still there then).
        self.page.wait_for_load_state("domcontentloaded")

    def nav_labels(self) -> list[str]:
        # text_contents, not inner_texts: the links under a closed "Más" are not rendered, yet they are there.
        return [text.strip() for text in self.page.locator("ul.areas a").all_text_contents()]

    def sign_out(self) -> None:
        self.page.get_by_role("button", name="Salir").or_(self.page.get_by_role("button", name="Sign out")).click()

    def assert_no_csp_violations(self) -> None:
        violations = self.page.evaluate("window.__cspViolations || []")
        assert violations == [], violations


class ApiKeysPage:
    """The company's API keys: create one in a dialog, see its secret once, change its limit, revoke it."""

    def __init__(self, page: Page):
        self.page = page
        self.dialog = page.locator("#create-key-dialog")
        self.listing = page.locator("#apikeys-list")

    def open(self):
        return self.page.goto("/apikeys/")

    def create(self, name: str, limit: int | None = None, window: int | None = None) -> None:
        self.page.get_by_role("button", name="Crear clave").click()
        expect(self.dialog).to_be_visible()
        self.dialog.get_by_label("Nombre").fill(name)
        if limit is not None:
            self.dialog.get_by_label("Solicitudes").fill(str(limit))
        if window is not None:
            self.dialog.get_by_label("Segundos").fill(str(window))
        self.dialog.get_by_role("button", name="Crear la clave").click()

    @property
    def secret_field(self):
        return self.page.get_by_label("Clave de API", exact=True)

    def row(self, name: str):
        return self.page.get_by_test_id("apikey-row").filter(has=self.page.get_by_role("rowheader", name=name))

    def set_limit(self, name: str, limit: int, window: int) -> None:
        row = self.row(name)
        row.get_by_label("Solicitudes").fill(str(limit))
        row.get_by_label("Segundos").fill(str(window))
        row.get_by_role("button", name="Guardar").click()

    def revoke(self, name: str) -> None:
        self.row(name).get_by_role("button", name="Revocar").click()
        confirm = self.page.get_by_role("dialog", name=f"¿Revocar la clave «{name}»?")
        confirm.get_by_role("button", name="Revocar la clave").click()


class DgiPage:
    """The DGI lookups: choose the certificate, pick a lookup, type a document (checked as you type), read
    the answer or the problem, and start a receipt to a looked-up receiver."""

    TABS = ("RUT", "Nombre por documento", "CVA", "Datos de la entidad")

    def __init__(self, page: Page):
        self.page = page
        self.result = page.get_by_test_id("dgi-result")
        self.problem = page.get_by_test_id("dgi-problem")

    def open(self, path: str = "/dgi/"):
        return self.page.goto(path)

    def open_lookups(self) -> None:
        self.open()
        self._at_the_lookups()

    def open_from_navigation(self) -> None:
        nav_link(self.page, "DGI", exact=True).click()
        self._at_the_lookups()

    def _at_the_lookups(self) -> None:
        expect(self.page.get_by_role("heading", name="Consultas a DGI")).to_be_visible()
        settled(self.page)  # the deferred scripts ran: the picker submits on change

    def tab(self, name: str) -> None:
        self.page.get_by_role("navigation", name="Tipo de consulta").get_by_role("link", name=name).click()
        expect(self.page.get_by_role("heading", level=2, name=name, exact=True)).to_be_visible()

    def certificate_picker(self):
        return self.page.get_by_label("Empresa y certificado")

    def choose_certificate(self, company: str, certificate: str) -> None:
        """Pick `certificate` (start of its label) in `company`'s group: two companies' may be named alike."""
        picker = self.certificate_picker()
        option = picker.locator(f'optgroup[label^="{company}"] option').filter(has_text=certificate).first
        picker.select_option(value=option.get_attribute("value"))

    def document_field(self):
        return self.page.get_by_role("textbox", name="RUT", exact=True).or_(
            self.page.get_by_role("textbox", name="Número de documento")
        )

    def type_document(self, value: str) -> None:
        """Type the document as a person does, key by key; typed again when an update of the page that landed
        meanwhile (the previous result's, the hint's) left the field with something else."""
        field = self.document_field()
        for _attempt in range(3):
            field.fill("")
            field.press_sequentially(value, delay=20)
            if field.input_value() == value:
                return
        expect(field).to_have_value(value)

    def hint(self):
        return self.page.locator(".dgi-doc-hint")

    def choose_document_type(self, label: str) -> None:
        self.page.get_by_label("Tipo de documento").select_option(label=label)

    def look_up(self) -> None:
        self.page.get_by_role("button", name="Consultar").click()

    def use_as_receiver(self) -> None:
        self.result.get_by_role("button", name="Usar como receptor").click()


class SmartIssuancePage:
    """Smart issuance, step by step: the input (lines added and removed in place), the preview with its
    warnings to acknowledge, the confirmation and the result."""

    def __init__(self, page: Page):
        self.page = page
        self.lines = page.locator("#lineas tbody tr")
        self.document_hint = page.locator("#documento-hint")
        self.confirm_error = page.get_by_test_id("confirm-error")

    def open(self):
        return self.page.goto("/inteligente/nueva")

    def open_from_navigation(self) -> None:
        nav_link(self.page, "Emisión inteligente").click()
        expect(self.page.get_by_role("heading", name="Nueva emisión inteligente")).to_be_visible()
        settled(self.page)

    def set_receiver(self, document: str) -> None:
        self.page.get_by_label("Documento del receptor").fill(document)

    def line_field(self, number: int, field: str):
        return self.page.get_by_label(f"{field}, línea {number}", exact=True)

    def fill_line(
        self,
        number: int,
        description: str,
        quantity: str,
        price: str,
        *,
        category: str | None = None,
        rate: str | None = None,
    ) -> None:
        self.line_field(number, "Descripción").fill(description)
        self.line_field(number, "Cantidad").fill(quantity)
        self.line_field(number, "Precio unitario").fill(price)
        if category:
            self.line_field(number, "Categoría").select_option(label=category)
        if rate:
            self.line_field(number, "Tasa de IVA").select_option(label=rate)

    def add_line(self) -> None:
        count = self.lines.count()
        self.page.get_by_role("button", name="Agregar línea").click()
        expect(self.lines).to_have_count(count + 1)
        # htmx moves the focus to the new line once it has settled: typing before that may land in two fields
        # (Playwright's fill focuses a field, then inserts the text wherever the focus is by then).
        settled(self.page)
        expect(self.line_field(count + 1, "Descripción")).to_be_focused()

    def remove_line(self, number: int) -> None:
        count = self.lines.count()
        self.page.get_by_role("button", name=f"Quitar la línea {number}").click()
        expect(self.lines).to_have_count(count - 1)
        settled(self.page)

    def preview(self) -> None:
        self.page.get_by_role("button", name="Previsualizar", exact=True).click()
        expect(self.page.get_by_role("heading", name="Revisá antes de emitir")).to_be_visible()

    @property
    def cfe_type(self):
        return self.page.get_by_test_id("cfe-type")

    @property
    def receiver(self):
        return self.page.get_by_test_id("receiver")

    def total(self, field: str):
        return self.page.locator(f'[data-testid=totals] tr[data-total="{field}"] td')

    def go_back_and_edit(self) -> None:
        self.page.get_by_role("button", name="Volver y editar").click()  # a link styled as a button
        expect(self.page.get_by_role("heading", name="Nueva emisión inteligente")).to_be_visible()

    def acknowledge_warnings(self) -> None:
        for box in self.page.get_by_label("Leí y acepto").all():
            box.check()

    @property
    def confirm_button(self):
        return self.page.get_by_role("button", name="Confirmar y emitir")

    def confirm(self) -> None:
        self.confirm_button.click()

    @property
    def issued_receipt(self):
        return self.page.get_by_test_id("result-receipt")


class RequestStatusPage:
    """The company's requests and, by its request_id, one request's status: state, timeline, receipt, DGI state,
    support details."""

    def __init__(self, page: Page):
        self.page = page
        self.state = page.get_by_test_id("request-state")
        self.timeline = page.locator("[data-testid=timeline] tbody tr")
        self.section = page.locator("#solicitud")
        self.support_details = page.locator("#support-details")

    def open(self, request_id: str | None = None):
        return self.page.goto("/inteligente/solicitudes" + (f"?request_id={request_id}" if request_id else ""))

    @property
    def search_box(self):
        return self.page.get_by_role("searchbox", name="Buscar")

    def search(self, text: str) -> None:
        """Type a request id or a receipt number and press Buscar (a full page)."""
        self.search_box.fill(text)
        self.page.get_by_role("button", name="Buscar").click()

    @property
    def rows(self):
        """The requests listed, one row each (data-request-id holds the id)."""
        return self.page.locator("[data-testid=requests] tbody tr")

    def timeline_states(self) -> list[str]:
        return [row.get_attribute("data-state") for row in self.timeline.all()]

    def copy_support_details(self) -> str:
        """Press the copy button and return what landed on the clipboard."""
        self.page.get_by_role("button", name="Copiar datos para soporte").click()
        expect(self.page.get_by_role("button", name="Copiado")).to_be_visible()
        return self.page.evaluate("navigator.clipboard.readText()")


class ReceiptsPage:
    """The receipts area: the issuing form, a receipt's page and the lookup by id (Spanish labels)."""

    def __init__(self, page: Page):
        self.page = page

    def open_new(self) -> None:
        """The issuing form, opened by its address (open_new_from_navigation walks there as a person does)."""
        self.page.goto("/comprobantes/nuevo")
        self._at_the_new_form()

    def open_new_from_navigation(self) -> None:
        self.page.get_by_role("link", name="Comprobantes", exact=True).first.click()
        self.page.get_by_role("button", name="Nuevo comprobante").click()
        self._at_the_new_form()

    def _at_the_new_form(self) -> None:
        expect(self.page.get_by_role("heading", name="Nuevo comprobante")).to_be_visible()
        # The heading shows before htmx has wired the form (deferred script): a type chosen that early sent
        # no request, and choose_type waited 30 s for one on a loaded machine.
        settled(self.page)

    def choose_type(self, label: str) -> None:
        with self.page.expect_response(lambda r: r.url.endswith("/comprobantes/nuevo/tipo")):
            chosen = self.page.get_by_label("Tipo de comprobante").select_option(label=label)
        # The answer replaces the form: wait until htmx has swapped and settled it, or what is typed next would
        # go into the old form and be lost.
        settled(self.page)
        expect(self.page.get_by_label("Tipo de comprobante")).to_have_value(chosen[0])

    def fill_receiver(self, *, doc_type: str, number: str, name: str = "", address: str = "", city: str = "") -> None:
        self.page.get_by_label("Tipo de documento").select_option(label=doc_type)
        self.page.get_by_label("Número de documento").fill(number)
        for label, value in (("Nombre o razón social", name), ("Dirección", address), ("Ciudad", city)):
            if value:
                self.page.get_by_label(label, exact=True).fill(value)

    def receiver_hint(self):
        return self.page.locator("#doc_recep-hint")

    def receiver_warnings(self):
        """DGI's warnings about the typed receiver, next to the document field."""
        return self.page.locator("#doc_recep-dgi .dgi-warnings li")

    def receiver_suggestions(self):
        """The company's past receivers offered under the field being typed in (buttons)."""
        return self.page.get_by_test_id("receiver-suggestions").get_by_role("button")

    def fill_line(
        self, n: int, description: str, quantity: str, price: str | None = None, indicator: str | None = None
    ) -> None:
        if indicator:
            self.page.get_by_label(f"Indicador de facturación, línea {n}").select_option(label=indicator)
        self.page.get_by_label(f"Descripción, línea {n}").fill(description)
        self.page.get_by_label(f"Cantidad, línea {n}").fill(quantity)
        if price is not None:
            self.page.get_by_label(f"Precio unitario, línea {n}").fill(price)

    def add_line(self) -> None:
        count = self.page.locator("#lines tbody tr").count()
        self.page.get_by_role("button", name="Agregar línea").click()
        settled(self.page)  # see SmartIssuancePage.add_line
        expect(self.page.get_by_label(f"Descripción, línea {count + 1}")).to_be_focused()

    def remove_line(self, n: int) -> None:
        self.page.get_by_role("button", name=f"Quitar la línea {n}").click()

    def preview(self):
        """Ask for the preview; returns the PDF response the inline frame loaded."""
        with self.page.expect_response(lambda r: "/comprobantes/previsualizacion/" in r.url) as pdf:
            self.page.get_by_role("button", name="Previsualizar").click()
        expect(self.page.get_by_title("Previsualización del comprobante (PDF)")).to_be_visible()
        return pdf.value

    def issue(self) -> None:
        self.page.get_by_role("button", name="Emitir comprobante").click()
        expect(self.page.get_by_test_id("receipt-id")).to_be_visible()

    def receipt_id(self) -> str:
        return self.page.get_by_test_id("receipt-id").inner_text().strip()

    def totals(self) -> dict[str, str]:
        rows = self.page.get_by_test_id("totals").locator("tr")
        return {row.locator("th").inner_text().strip(): row.locator("td").inner_text().strip() for row in rows.all()}

    def open_pdf(self) -> tuple[str, int, str]:
        """Open the receipt's PDF in a new tab, close it again; returns the URL, status and content type the tab
        was sent. (The headless browser the tests drive has no PDF viewer: it would save the file, so what is
        checked is what the tab received.)"""
        context = self.page.context
        self.page.wait_for_load_state("load")  # the page's own PDF frame has had its answer: the next is the tab's
        with context.expect_page() as opened, context.expect_event("response", _is_pdf) as sent:
            self.page.get_by_role("button", name="Abrir PDF").click()
        answer = sent.value
        received = answer.url, answer.status, answer.header_value("content-type")
        opened.value.close()
        return received

    def find_by_id(self, receipt_id: str) -> None:
        """The list's one box takes the id too: it goes straight to the receipt."""
        self.page.get_by_role("link", name="Comprobantes", exact=True).first.click()
        box = self.page.get_by_label("Número", exact=True)
        box.fill(receipt_id)
        try:
            box.press("Enter", timeout=5000)  # submitted as a keyboard user does
        except PlaywrightTimeoutError:
            pass  # the list's search as one types (400 ms after the last change) opened the receipt first
        self.page.wait_for_url(re.compile(f"/comprobantes/{re.escape(receipt_id)}$"))

    def fill_retention(self, n: int, code: str, rate: str, base: str, amount: str) -> None:
        self.page.get_by_label(f"Código de retención, línea {n}").fill(code)
        self.page.get_by_label(f"Tasa, línea {n}").fill(rate)
        self.page.get_by_label(f"Monto sujeto a retención, línea {n}").fill(base)
        self.page.get_by_label(f"Monto retenido, línea {n}").fill(amount)

    def cancel_with_credit_note(self, reason: str) -> None:
        """One confirmation: the dialog asks for the reason, then the note is issued and shown."""
        settled(self.page)  # the button opens its dialog by script, once the page's scripts ran
        self.page.get_by_role("button", name="Anular con nota de crédito").click()
        dialog = self.page.get_by_role("dialog")
        dialog.get_by_label("Motivo").fill(reason)
        dialog.get_by_role("button", name="Emitir la nota de crédito").click()
        expect(self.page.get_by_test_id("receipt-id")).to_be_visible()

    def related(self):
        return self.page.get_by_test_id("related")


class ReceiptListPage:
    """The company's receipt list: live filters kept in the URL, totals, pages and the CSV."""

    def __init__(self, page: Page):
        self.page = page

    def open(self) -> None:
        self.page.goto("/comprobantes/")
        expect(self.page.get_by_role("heading", name="Comprobantes", level=1)).to_be_visible()
        settled(self.page)  # as in open_new: a filter typed before htmx wired it sends nothing

    def rows(self):
        return self.page.locator(".receipt-list tbody tr")

    def type_filter(self, label: str, value: str) -> None:
        """Type into a filter; the results follow (htmx) once the typing pauses."""
        with self.page.expect_response(lambda r: "/comprobantes/?" in r.url):
            self.page.get_by_label(label, exact=True).fill(value)

    def download_csv(self):
        with self.page.expect_download() as download:
            self.page.get_by_test_id("csv-download").click()
        return download.value


class EmpresaPage:
    """The company's settings (admins): tabs for fiscal data, branches, logo, certificates, CAE and audit."""

    def __init__(self, page: Page):
        self.page = page

    def open_from_navigation(self) -> None:
        nav_link(self.page, "Empresa").click()

    def tab(self, name: str) -> None:
        self.page.get_by_role("navigation", name="Configuración de la empresa").get_by_role("link", name=name).click()

    def upload_cae(self, path) -> None:
        self.page.get_by_label("Archivo de CAE de DGI (.xml)").set_input_files(str(path))
        self.page.get_by_role("button", name="Cargar el CAE").click()

    def cae_row(self, cae_id: int):
        return self.page.locator(f'[data-testid="cae-range"][data-cae="{cae_id}"]')

    def upload_certificate(self, path, password: str, name: str = "") -> None:
        """The Certificados tab's form: the .p12/.pfx file, its password and an optional name."""
        self.page.get_by_label("Archivo del certificado (.p12 o .pfx)").set_input_files(str(path))
        self.page.get_by_label("Contraseña del archivo").fill(password)
        if name:
            self.page.get_by_label("Nombre (opcional)").fill(name)
        self.page.get_by_role("button", name="Cargar el certificado").click()

    def certificates(self):
        return self.page.get_by_test_id("certificate")

    def register_contingency_book(
        self, cfe_type: str, serie: str, first: str, last: str, authorization: str, authorized: str, expires: str
    ) -> None:
        """The Contingencia tab's form: a book of pre-printed numbers DGI authorized (days as typed, 15/01/2026)."""
        self.page.get_by_label("Tipo de comprobante de contingencia").select_option(label=cfe_type)
        self.page.get_by_label("Serie").fill(serie)
        self.page.get_by_label("Primer número").fill(first)
        self.page.get_by_label("Último número").fill(last)
        self.page.get_by_label("Número de autorización de DGI").fill(authorization)
        self.page.get_by_label("Autorizada el").fill(authorized)
        self.page.get_by_label("Vence el").fill(expires)
        self.page.get_by_role("button", name="Registrar la libreta").click()

    def has_horizontal_scroll(self) -> bool:
        # Once the page has loaded: measured while its stylesheet or logo was still arriving, a busy machine
        # saw the unstyled page wider than the phone.
        settled(self.page)
        return self.page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
