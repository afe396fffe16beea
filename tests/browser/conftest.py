"""Browser tests: Playwright drives Debian's chromium (never a downloaded browser) against a live portal
and a live service. Every page a test opens is watched for Content-Security-Policy violations.

Every page is also checked by axe-core (npm, pinned in package-lock.json, copied to static/vendor/ at setup):
injected before the page's own scripts, it runs when a page has loaded and again after each htmx update, and
a test fails on any serious or critical WCAG 2.2 A/AA violation (`axe_violations(page)` checks the page as it
is now, at its current width).

The browser is Debian's chromium-headless-shell, built from the same chromium source package: the headless-only
browser Playwright itself uses for headless runs. Debian's full `chromium` in headless mode took 2.5 times its
CPU (chromium's processes: 24.9 s against 9.6 s for the same 13 tests; docs/PERFORMANCE.md), and the browser
tests are most of make test's CPU. The shell has no PDF viewer, so a test checks what a PDF tab received, not
how it is shown; to look at pages with their PDFs drawn (CFE_SHOTS_DIR), run with
CFE_TEST_BROWSER=/usr/bin/chromium.
"""

from __future__ import annotations

import functools
import os
from contextlib import suppress
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

from tests.browser.pages import axe_violations

CHROMIUM = os.environ.get("CFE_TEST_BROWSER", "/usr/bin/chromium-headless-shell")

# How long an expectation waits for the page before it fails (Playwright's default: 5 s). A cap on a wait, not a
# bound on speed: an expectation met sooner returns at once, and CI machines up to 4 times slower than a
# developer's still meet it (issue 25, item 0).
expect.set_options(timeout=20_000)

# Records securitypolicyviolation events, and offers pages.settled() a promise of the page at rest (loaded, htmx
# and axe idle) checked every 10 ms in the page: Playwright's expect() polls at 100, 250, 500 and 1000 ms, so
# waiting through it added up to a second to every wait. Injected by Playwright: the page's CSP does not apply.
_CSP_WATCH = """
window.__settled = function (limit) {
  var until = Date.now() + limit;
  return new Promise(function (resolve) {
    (function check() {
      var root = document.documentElement;
      var busy = document.readyState !== "complete" || (root && root.hasAttribute("data-axe-running"))
        || document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling");
      if (!busy) { resolve(true); }
      else if (Date.now() > until) { resolve(false); }
      else { window.setTimeout(check, 10); }
    })();
  });
};
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push([e.violatedDirective, e.blockedURI, e.documentURI, e.sourceFile, e.lineNumber,
                               e.sample].join(' '));
});
"""


AXE = Path(__file__).resolve().parents[2] / "static/vendor/axe-core/axe.min.js"
AXE_FAILURE = "axe violation: "
# Runs axe in each top-level document when it has loaded and after htmx updates (one run at a time; a change
# during a run asks for another). While a run is due or under way <html> carries data-axe-running, which
# pages.settled() waits for, so a test does not leave a page before it was checked. Serious and critical
# violations are logged as console errors, which the page fixture fails on. Injected by Playwright, so neither
# the page's CSP nor its scripts stand in the way.
# A run waits until htmx has nothing in flight (a page loads its notices bell and DGI banner after its load
# event: checking before and after them was two runs of every page). Each run costs chromium 10 to 100 ms of
# CPU (docs/PERFORMANCE.md, "The test suite"), so a run checks only what is new: the whole document the first
# time and whenever the viewport or the scroll position changed (what axe's result also depends on), otherwise
# only the elements whose attributes, text or children changed since the last run (a MutationObserver's
# targets: an element that gained or lost a child is checked with all its children, so what a change moved
# within it is too), and nothing when nothing changed. The test's own check (pages.axe_violations, which the
# page fixture also calls when the test ends) follows the same rule: what is unchanged was checked already,
# and what that check found is among the console errors.
_AXE_WATCH = """
(function () {
  if (window.top !== window || !window.axe) { return; }
  var running = null, again = false, timer = null;
  var OPTIONS = {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
                 resultTypes: ["violations"]};
  function busy(on) {
    var root = document.documentElement;
    if (!root) { return; }
    if (on) { root.setAttribute("data-axe-running", ""); } else { root.removeAttribute("data-axe-running"); }
  }
  function serious(results) {
    return results.violations.filter(function (v) { return v.impact === "serious" || v.impact === "critical"; })
      .map(function (v) {
        return v.impact + " " + v.id + ": " + v.help + " at " + location.pathname + " (" + window.innerWidth + " px): "
          + v.nodes.slice(0, 4).map(function (n) { return n.target.join(" ") + (n.failureSummary ? " [" +
            n.failureSummary.replace(/\\s+/g, " ").slice(0, 160) + "]" : ""); }).join("; ");
      });
  }
  var checkedView = null, changed = [];
  var observer = new MutationObserver(function (records) { records.forEach(note); });
  function note(record) {
    if (record.attributeName === "data-axe-running") { return; }  // the watcher's own mark
    var target = record.target;
    changed.push(target.nodeType === Node.ELEMENT_NODE ? target : target.parentElement);
  }
  function view() {
    return [window.innerWidth, window.innerHeight, window.scrollX, window.scrollY].join(" ");
  }
  // The elements changed since the last run that are still on the page, less those another of them contains;
  // null when that is the whole document.
  function changedParts() {
    observer.takeRecords().forEach(note);
    var parts = changed.filter(function (element) { return element && element.isConnected; });
    changed = [];
    if (parts.some(function (element) { return !document.body.contains(element) || element === document.body; })) {
      return null;
    }
    return parts.filter(function (element) {
      return !parts.some(function (other) { return other !== element && other.contains(element); });
    });
  }
  function run(now) {
    if (running) { again = true; return running; }
    // An htmx fragment opened on its own (tests/browser/test_layout.py opens every GET route) is not a page.
    if (!document.title && !document.querySelector("main")) { busy(false); return Promise.resolve([]); }
    if (!now && document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling")) {
      window.clearTimeout(timer);
      timer = window.setTimeout(run, 30);
      return Promise.resolve([]);
    }
    var parts = changedParts(), current = view();
    if (checkedView !== current) { parts = null; }
    if (checkedView === null) {
      observer.observe(document.documentElement,
                       {subtree: true, childList: true, attributes: true, characterData: true});
    }
    checkedView = current;
    if (parts && !parts.length) { busy(false); return Promise.resolve([]); }
    busy(true);
    running = window.axe.run(parts ? {include: parts} : document, OPTIONS)
      .then(serious, function (error) { return ["axe failed: " + error]; });
    return running.then(function (found) {
      found.forEach(function (line) { console.error("%AXE%" + line); });
      running = null;
      if (again) { again = false; run(); } else { busy(false); }
      return found;
    });
  }
  function soon() {
    busy(true);
    // An htmx update of a page still loading (a fragment loaded on "load", such as the notices bell) settles
    // before the stylesheets apply; the page's own load event checks it once they have.
    if (document.readyState !== "complete") { return; }
    window.clearTimeout(timer);
    timer = window.setTimeout(run, 30);
  }
  // The test's own check (pages.axe_violations): now, whatever htmx is doing.
  window.__axeCheck = function () {
    window.clearTimeout(timer);
    return (running || Promise.resolve()).then(function () { return run(true); });
  };
  window.addEventListener("load", soon);
  document.addEventListener("htmx:afterSettle", soon);
})();
""".replace("%AXE%", AXE_FAILURE)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is not installed: run `make test` (it installs it) or"
            " `sudo apt-get install chromium-headless-shell`."
        )
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
        ],
    }


@pytest.fixture
def browser_context_args(browser_context_args, live_portal):
    """Each test's browser context starts at its own live portal (function scope, unlike the plugin's)."""
    return {**browser_context_args, "base_url": live_portal.url, "locale": "es-UY", "reduced_motion": "reduce"}


@functools.cache
def _axe_in_web_pages() -> str:
    """axe-core's script, run only in a document of the portal or the provider: every new page and popup starts
    as about:blank, where running it cost chromium about 80 ms of CPU per test for nothing (a wrapped function
    is only pre-parsed until called). Read once per worker, not once per test."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `make setup` (scripts/vendor-assets.sh copies it from node_modules).")
    guard = "(function (load) { if (/^https?:$/.test(location.protocol)) { load(); } })"
    return f"{guard}(function () {{\n{AXE.read_text()}\n}});"


def watched_page(context: BrowserContext) -> tuple[Page, list[str]]:
    """A new page of `context` with the CSP and axe watchers, and the list its console errors go to."""
    context.add_init_script(_CSP_WATCH)
    context.add_init_script(_axe_in_web_pages())
    context.add_init_script(_AXE_WATCH)
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
    return page, console_errors


@pytest.fixture
def page(context):
    """A page that records CSP violations, console errors and axe's findings; the test fails on a CSP violation
    or a serious accessibility violation on any page it visited."""
    page, console_errors = watched_page(context)
    page.csp_violations = lambda: page.evaluate("window.__cspViolations || []")
    yield page
    csp_messages = [m for m in console_errors if "Content Security Policy" in m]
    assert not csp_messages, csp_messages
    axe_messages = [m.removeprefix(AXE_FAILURE) for m in console_errors if m.startswith(AXE_FAILURE)]
    with suppress(PlaywrightError):  # the page as the test left it (a closed page or a download has none)
        axe_messages += axe_violations(page)
    assert not axe_messages, "\n".join(dict.fromkeys(axe_messages))


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go: CFE_SHOTS_DIR, set to look at them before a layout change is committed (without it,
    pages.screenshot takes none and this is the test's tmp_path)."""
    folder = Path(os.environ.get("CFE_SHOTS_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
