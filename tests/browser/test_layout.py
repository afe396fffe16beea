"""Every portal page fits a desktop (1366 px) and a phone (390 px): no horizontal scroll and no control cut
off, measured in the page. The pages are every GET route without URL parameters, read from the portal's own
url_map, so a new page is measured without anyone remembering to add it here."""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from portal.client import CfeClient
from portal.client.cfe import CfeRequest
from tests.browser.pages import CUT_SELECTS, Shell, axe_violations, screenshot, settled
from tests.support import cfe_bodies as bodies

WIDTHS = (1366, 390)
# Not pages a person reads: sign-in/out hops, downloads, fragments polled by htmx, static files.
SKIPPED_PREFIXES = ("/auth/", "/static/", "/lang", "/healthz")

# Controls that lie outside the viewport and outside any scrolling box are cut off for the user.
_CUT_CONTROLS = """(width) => {
  const scrolls = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll") return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.querySelectorAll("button, input, select, textarea, a[role=button], summary")) {
    const r = el.getBoundingClientRect();
    const hidden = el.closest("dialog:not([open]), [aria-hidden=true]");
    if (r.width === 0 || r.height === 0 || hidden || scrolls(el)) continue;
    const label = el.textContent.trim().slice(0, 30);
    const where = `${Math.round(r.left)}..${Math.round(r.right)}`;
    if (r.left < -1 || r.right > width + 1) out.push(`${el.tagName} ${label} ${where}`);
  }
  return out;
}"""


# Boxes that scroll sideways by less than 16 px: a table that nearly fits its box (the CAE table at 390 px, by 2 px)
# hides nothing worth scrolling to and only wobbles under the finger. A table meant to scroll is far wider.
_SLIVER_SCROLLS = """() => {
  const out = [];
  for (const el of document.querySelectorAll("main *")) {
    const o = getComputedStyle(el).overflowX;
    const extra = el.scrollWidth - el.clientWidth;
    if ((o === "auto" || o === "scroll") && el.offsetParent !== null && extra > 0 && extra < 16) {
      const heading = document.getElementById(el.getAttribute("aria-labelledby"));
      const name = el.getAttribute("aria-label") || heading?.textContent.trim() || el.className;
      out.push(`${el.tagName.toLowerCase()} ${name} scrolls sideways by ${extra}px`);
    }
  }
  return out;
}"""


def _pages(app) -> list[str]:
    paths = set()
    for rule in app.url_map.iter_rules():
        download = rule.rule.rsplit("/", 1)[-1].count(".") > 0  # exportar.csv, a PDF: files, not pages
        if "GET" in rule.methods and not rule.arguments and not rule.rule.startswith(SKIPPED_PREFIXES) and not download:
            paths.add(rule.rule)
    return sorted(paths)


# The pages are walked in three shards per role, each its own test: the whole walk was the suite's two longest
# tests (30 and 24 s), which the parallel run's last worker still had to finish after the others.
SHARDS = 3


@pytest.mark.parametrize("shard", range(SHARDS))
@pytest.mark.parametrize("email", ["admin@demo.uy", "usuario@demo.uy"])
def test_every_page_fits_desktop_and_phone(page, portal_app, email, shard):
    Shell(page).sign_in(email)
    problems = []
    # Each page is opened once and measured at both widths: the layout is CSS alone (media queries, no script
    # reads the width), so narrowing the window lays the page out as opening it on a phone does, and opening
    # every page twice was half of the suite's two longest tests.
    pages = _pages(portal_app)
    for path in pages[shard::SHARDS]:
        # Asked first without drawing it: what this role may not open (403), an htmx fragment, a file, or an
        # address that sends the browser to a page measured on its own is not a layout to measure (drawing
        # and checking each cost chromium about a quarter of a second).
        answer = page.context.request.get(path)
        if not answer.ok or "<main" not in answer.text():
            continue
        if (landed := urlsplit(answer.url).path) != path and landed in pages:
            continue
        page.set_viewport_size({"width": WIDTHS[0], "height": 900})
        page.goto(path)
        settled(page)
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            scroll_width = page.evaluate("document.documentElement.scrollWidth")
            if scroll_width > width:
                problems.append(f"{path} at {width}px scrolls sideways ({scroll_width}px)")
            problems += [f"{path} at {width}px: {cut}" for cut in page.evaluate(_CUT_CONTROLS, width)]
            problems += [f"{path} at {width}px: {cut}" for cut in page.evaluate(CUT_SELECTS)]
            problems += [f"{path} at {width}px: {sliver}" for sliver in page.evaluate(_SLIVER_SCROLLS)]
            # axe checks each page as it loads; a box that scrolls sideways only on a phone is checked here.
            problems += [f"{path} at {width}px: {found}" for found in axe_violations(page)]
    assert problems == [], "\n".join(problems)
    assert page.evaluate("window.__cspViolations || []") == []


# A line field's label, as the person sees it: laid out (not visually hidden), on screen, above its field, and
# what the page shows at the label's middle. Returns the fields whose label fails, and the labels' texts.
_LINE_LABELS = """(selector) => {
  const missing = [], texts = [];
  for (const el of document.querySelectorAll(`${selector} tbody :is(input:not([type=hidden]), select, textarea)`)) {
    const field = el.getBoundingClientRect();
    const label = [...el.labels].find((l) => {
      const r = l.getBoundingClientRect();
      const middle = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return r.width > 20 && r.height > 8 && r.left >= 0 && r.right <= window.innerWidth
        && r.bottom <= field.top + 2 && l.innerText.trim() !== "" && l.contains(middle);
    });
    if (label) texts.push(label.innerText.trim()); else missing.push(el.name);
  }
  return {missing, texts};
}"""


@pytest.mark.parametrize(
    ("path", "table", "expected"),
    [
        ("/inteligente/nueva", "#lineas", ["Descripción", "Cantidad", "Precio unitario", "Tasa de IVA", "Categoría"]),
        ("/comprobantes/nuevo", "#lines", ["Descripción", "Cantidad", "Unidad", "Precio unitario", "Descuento"]),
    ],
)
def test_every_line_field_has_a_visible_label_on_a_phone(page, shots, path, table, expected):
    """On a phone the lines stack as cards and the column headers are gone: each field shows its own label, so
    a person can tell the quantity from the price. On a desktop the headers name them and the labels stay
    for screen readers only."""
    Shell(page).sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(path)
    settled(page)
    page.locator(table).scroll_into_view_if_needed()
    labels = page.evaluate(_LINE_LABELS, table)
    assert labels["missing"] == []
    for name in expected:
        assert f"{name}, línea 1" in labels["texts"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(_CUT_CONTROLS, 390) == []
    screenshot(page, shots / f"{path.strip('/').replace('/', '-')}-390.png")

    page.set_viewport_size({"width": 1366, "height": 900})
    assert page.evaluate(_LINE_LABELS, table)["missing"] != []  # the column headers label them instead
    assert page.locator(f"{table} thead th").first.is_visible()
    screenshot(page, shots / f"{path.strip('/').replace('/', '-')}-1366.png")
    assert page.evaluate("window.__cspViolations || []") == []


# The receipt numbers in `selector` ("A-0000001", as portal.domain.receipt_numbers prints them) that the page lays
# out on more than one line, each with the tops of its lines: measured on the text itself (a Range over its
# characters), whatever element holds it.
_SPLIT_NUMBERS = """(selector) => {
  const split = [];
  for (const root of document.querySelectorAll(selector)) {
    const nodes = [];
    let text = "";
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
    const at = (i) => { const [node, start] = nodes.findLast(([, s]) => s <= i); return [node, i - start]; };
    for (const match of text.matchAll(/(?<![\\w.-])(?:[A-Z]{1,2}|[1-9][A-Z])-[0-9]{1,7}(?![\\w-])/g)) {
      const range = document.createRange();
      range.setStart(...at(match.index));
      const [node, offset] = at(match.index + match[0].length - 1);
      range.setEnd(node, offset + 1);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) split.push(`${root.tagName} "${match[0]}" on ${tops.size} lines`);
    }
  }
  return split;
}"""


def test_a_receipt_number_is_never_split_across_lines_on_a_phone(page, live_service, live_token_for, shots):
    """Browsers break a line after a dash: on a phone the title read "e-Factura A-" above "0000001". The number
    stays whole in the title and breadcrumb of an e-Factura and of its credit note (which names both numbers), in
    the list's cards, and in the related receipts."""
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    factura = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    note = api.cancel_with_credit_note(factura.id, "Error", idempotency_key=uuid.uuid4().hex)
    Shell(page).sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": 390, "height": 844})
    for path in (f"/comprobantes/{factura.id}", f"/comprobantes/{note.id}", "/comprobantes/"):
        page.goto(path)
        settled(page)
        assert page.get_by_text(factura.number).first.is_visible()
        assert page.evaluate(_SPLIT_NUMBERS, "main") == [], path
        screenshot(page, shots / f"numbers-{path.strip('/').replace('/', '-')}-390.png")
    # The note's title at that width: long enough to wrap, each number whole on its line.
    assert page.evaluate(_SPLIT_NUMBERS, "h1, .crumbs") == []


def _marker_box(page, selector: str) -> dict:
    """The box Chromium lays out for the ::after of `selector` (Pico's disclosure arrow), read through the DevTools
    protocol: a pseudo-element has no DOM box a script can ask for."""
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]
    target = cdp.send("DOM.querySelector", {"nodeId": root["nodeId"], "selector": selector})["nodeId"]

    def find(node):
        if node["nodeId"] == target:
            return node
        return next((found for child in node.get("children", []) if (found := find(child))), None)

    after = next(p for p in find(root).get("pseudoElements", []) if p["pseudoType"] == "after")
    quad = cdp.send("DOM.getBoxModel", {"nodeId": after["nodeId"]})["model"]["border"]
    cdp.detach()
    xs, ys = quad[0::2], quad[1::2]
    return {"left": min(xs), "right": max(xs), "top": min(ys), "bottom": max(ys)}


# The first line of an element's text, as laid out.
_FIRST_LINE = """(selector) => {
  const range = document.createRange();
  range.selectNodeContents(document.querySelector(selector));
  const r = [...range.getClientRects()].filter((r) => r.width > 0)[0];
  const box = document.querySelector(selector).getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, right: r.right, boxRight: box.right};
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_a_disclosures_arrow_is_on_its_summarys_line(page, shots, width):
    """The issuing form's "Comprobante de contingencia (papel)" fills a phone's line: Pico floats the arrow after
    the text, and it fell under the line. It stays on the line, at its end."""
    Shell(page).sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("/comprobantes/nuevo")
    settled(page)
    summary = "[data-testid=cfc-paper] > summary"
    line, arrow = page.evaluate(_FIRST_LINE, summary), _marker_box(page, summary)
    middle = (arrow["top"] + arrow["bottom"]) / 2
    assert line["top"] <= middle <= line["bottom"], (line, arrow)
    assert line["right"] <= arrow["left"] and arrow["right"] <= line["boxRight"] + 1, (line, arrow)
    screenshot(page, shots / f"cfc-summary-{width}.png")


# The words of the facts lists' values (`dl.facts dd`) that the page lays out on more than one line although they
# would fit their value's line whole: an e-mail address read "usuario@demo.u" above "y".
_BROKEN_WORDS = """() => {
  const broken = [];
  for (const dd of document.querySelectorAll("dl.facts dd")) {
    const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      for (const match of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const width = rects.reduce((sum, r) => sum + r.width, 0);
        const tops = new Set(rects.map((r) => Math.round(r.top)));
        const room = dd.clientWidth;
        if (tops.size > 1 && width <= room) broken.push(`"${match[0]}" (${Math.round(width)} of ${room}px)`);
      }
    }
  }
  return broken;
}"""


# How many lines an element's text is laid out on.
_LINE_TOPS = """(el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_a_facts_value_breaks_inside_a_word_only_when_the_word_cannot_fit(
    page, live_service, live_token_for, shots, width
):
    """On an English receipt at 390 px the labels' column took what "Series and number" needed and "Issued by"
    read "usuario@demo.u" above "y". The labels wrap between their words instead; the page still never scrolls
    sideways."""
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    factura = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    shell = Shell(page)
    shell.open_home_and_sign_in("usuario@demo.uy")
    page.get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.set_viewport_size({"width": width, "height": 844})
    for path in (f"/comprobantes/{factura.id}", "/"):
        page.goto(path)
        settled(page)
        assert page.evaluate(_BROKEN_WORDS) == [], path
        assert page.evaluate("document.documentElement.scrollWidth") <= width, path
    page.goto(f"/comprobantes/{factura.id}")
    settled(page)
    issued_by = page.locator(".receipt-details dd", has_text="usuario@demo.uy")
    assert issued_by.evaluate(_LINE_TOPS) == 1
    screenshot(page, shots / f"receipt-facts-en-{width}.png")


# Each fact of the receipt's lists (`.receipt-details dl.facts`): a word of its value laid out on more than one line
# although it fits the list's whole width, a text that sticks out of its label's or value's box or a value that
# sticks out of the list, and whether each value starts on its label's line.
_FACTS = """() => {
  const out = {broken: [], overflowing: [], beside: {}};
  for (const dl of document.querySelectorAll(".receipt-details dl.facts:not(.amounts)")) {
    const list = dl.getBoundingClientRect();
    for (const box of dl.querySelectorAll("dt, dd")) {
      const rect = box.getBoundingClientRect();
      if (rect.left < list.left - 1 || rect.right > list.right + 1) out.overflowing.push(`${box.tagName} box`);
      const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        const node = walker.currentNode;
        for (const match of node.data.matchAll(/[^\\s-]+-?/g)) {  // a line may break after a dash
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const rects = [...range.getClientRects()].filter((r) => r.width > 0);
          const width = rects.reduce((sum, r) => sum + r.width, 0);
          const tops = new Set(rects.map((r) => Math.round(r.top)));
          if (tops.size > 1 && width <= dl.clientWidth) out.broken.push(`"${match[0]}" (${Math.round(width)}px)`);
          if (rects.some((r) => r.left < rect.left - 1 || r.right > rect.right + 1)) out.overflowing.push(match[0]);
        }
      }
      if (box.tagName === "DD") {
        const label = box.previousElementSibling.getBoundingClientRect();
        out.beside[box.previousElementSibling.textContent.trim()] = Math.abs(label.top - rect.top) < 2;
      }
    }
  }
  return out;
}"""

LONG_NAME = "Supercalifragilisticoespialidosa-Internacional"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", [LONG_NAME, "Distribuidora del Este S.A."])
def test_a_receipts_facts_fit_their_list_and_break_a_word_only_when_it_cannot(
    page, live_service, live_token_for, shots, width, name
):
    """At 390 px a receiver's name of one long word broke into four pieces in the values' column, beside its
    label. A value whose word does not fit beside its label goes under it, at the list's whole width; the other
    values stay beside their labels; no text sticks out of its box, whatever the name."""
    api = CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)
    body = bodies.body(bodies.EFACTURA)
    body["receptor"]["rznSocRecep"] = name
    factura = api.issue_receipt(CfeRequest.from_json(body), idempotency_key=uuid.uuid4().hex)
    Shell(page).sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(f"/comprobantes/{factura.id}")
    settled(page)
    expect(page.get_by_text(name)).to_be_visible()
    screenshot(page, shots / f"receipt-facts-{'long' if name == LONG_NAME else 'normal'}-{width}.png")
    facts = page.evaluate(_FACTS)
    assert facts["broken"] == [] and facts["overflowing"] == [], facts
    assert facts["beside"]["Fecha"] and facts["beside"]["Documento"], facts["beside"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("path", ["/clientes/", "/productos/"])
def test_a_catalogs_search_label_is_above_a_full_width_input_on_a_phone(page, shots, path):
    """Pico's search group put "Buscar por nombre o documento" beside an input a third of a phone's width."""
    Shell(page).sign_in("usuario@demo.uy")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(path)
    settled(page)
    form = page.locator("form.catalog-search").bounding_box()
    field = page.locator("form.catalog-search input[name=q]")
    label = page.locator("form.catalog-search label").bounding_box()
    box = field.bounding_box()
    assert label["y"] + label["height"] <= box["y"] + 1
    assert box["width"] >= form["width"] - 1
    screenshot(page, shots / f"{path.strip('/')}-search-390.png")
