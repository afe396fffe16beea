"""Browser tests: Playwright drives Debian's chromium (never a downloaded browser) against a live portal
and a live service. Every page a test opens is watched for Content-Security-Policy violations.

The browser is Debian's chromium-headless-shell, built from the same chromium source package: the headless-only
browser Playwright itself uses for headless runs. Debian's full `chromium` in headless mode took 2.5 times its
CPU (chromium's processes: 24.9 s against 9.6 s for the same 13 tests; docs/PERFORMANCE.md), and the browser
tests are most of make test's CPU. The shell has no PDF viewer, so a test checks what a PDF tab received, not
how it is shown; to look at pages with their PDFs drawn (CFE_SHOTS_DIR), run with
CFE_TEST_BROWSER=/usr/bin/chromium.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

CHROMIUM = os.environ.get("CFE_TEST_BROWSER", "/usr/bin/chromium-headless-shell")

# How long an expectation waits for the page before it fails (Playwright's default: 5 s). A cap on a wait, not a
# bound on speed: an expectation met sooner returns at once, and CI machines up to 4 times slower than a
# developer's still meet it (issue 25, item 0).
expect.set_options(timeout=20_000)

# Records securitypolicyviolation events; injected by Playwright, so the page's CSP does not apply to it.
_CSP_WATCH = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push([e.violatedDirective, e.blockedURI, e.documentURI, e.sourceFile, e.lineNumber,
                               e.sample].join(' '));
});
"""


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


@pytest.fixture
def page(context):
    """A page that records CSP violations and console errors; the test fails if any happened."""
    context.add_init_script(_CSP_WATCH)
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
    page.csp_violations = lambda: page.evaluate("window.__cspViolations || []")
    yield page
    csp_messages = [m for m in console_errors if "Content Security Policy" in m]
    assert not csp_messages, csp_messages


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go: CFE_SHOTS_DIR, set to look at them before a layout change is committed (without it,
    pages.screenshot takes none and this is the test's tmp_path)."""
    folder = Path(os.environ.get("CFE_SHOTS_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
