"""The receipt page is the same text with the fast paths (portal/web/comprobantes/qr.py, the templates' kept
translations and the catalog found once per request in portal/web/i18n.py, portal/web/html_params.py) as with the
libraries' own code they replace: an e-Ticket, an e-Factura in dollars with a receiver, adenda and due date, and the
credit note that cancels it, in Spanish and in English, for a writer (both forms) and a reader."""

from __future__ import annotations

import re
import types

import pytest
from flask_babel import Domain
from jinja2.ext import _make_new_gettext  # type: ignore[attr-defined]
from wtforms.widgets import core

from portal.web import html_params, i18n
from portal.web.comprobantes import qr, receipts
from portal.web.extensions import babel
from tests.conftest import mint_token
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue

FULL = "/api/v1/comprobante/notaCreditoTotal"
# What changes from one request to the next whatever renders it (tokens, a form's idempotency key).
_PER_REQUEST = re.compile(r'((?:csrf_token|idempotency_key)"[^>]*value="|"X-CSRFToken": ")[^"]+"')


@pytest.fixture
def receipt_ids(live_service) -> list[str]:
    api = live_service.app.test_client()
    headers = {"Authorization": f"Bearer {mint_token(live_service.app, 'usuario@demo.uy')}"}
    ticket = issue(api, headers, bodies.body(bodies.ETICKET))
    factura = bodies.body(bodies.EFACTURA)
    factura.update(tpoMoneda="USD", tpoCambio="39.250", fmaPago=2, fchVenc="2050-01-31", adenda="Orden <4512>")
    factura = issue(api, headers, factura)
    note = api.post(FULL, json={"idCfeEmitido": factura["idCfeEmitido"], "razon": "Error"}, headers=headers)
    assert note.status_code == 201, note.json
    return [ticket["idCfeEmitido"], factura["idCfeEmitido"], note.json["idCfeEmitido"]]


def _pages(signed_in, receipt_ids: list[str]) -> list[str]:
    pages = []
    for email in ("usuario@demo.uy", "soporte@demo.uy"):
        client = signed_in(email)
        for language in ("es", "en"):
            for receipt_id in receipt_ids:
                answer = client.get(f"/comprobantes/{receipt_id}", headers={"Accept-Language": language})
                assert answer.status_code == 200
                pages.append(_PER_REQUEST.sub(r"\1", answer.get_data(as_text=True)))
    return pages


def test_the_fast_paths_write_the_same_page(portal_app, signed_in, receipt_ids, monkeypatch) -> None:
    portal_app.extensions.pop("receipt_pages", None)
    fast = _pages(signed_in, receipt_ids)
    assert "Orden &lt;4512&gt;" in "".join(fast) and '<svg role="img"' in fast[0]

    # The libraries' own: segno's QR, Jinja's newstyle gettext, flask-babel's catalog lookup, wtforms' attributes.
    monkeypatch.setattr(receipts, "qr_svg_text", qr._segno_svg)
    receipts._qr_svg.cache_clear()
    jinjas = _make_new_gettext(lambda s: i18n.request_translations().ugettext(s))
    monkeypatch.setitem(portal_app.jinja_env.globals, "_", jinjas)
    monkeypatch.setitem(portal_app.jinja_env.globals, "gettext", jinjas)
    monkeypatch.setattr(i18n, "request_translations", i18n.get_translations)
    domain = babel.domain_instance
    monkeypatch.setattr(domain, "get_translations", types.MethodType(Domain.get_translations, domain))
    monkeypatch.setattr(core, "html_params", html_params.wtforms_html_params)
    monkeypatch.setattr(core.Input, "html_params", staticmethod(html_params.wtforms_html_params))
    monkeypatch.setattr(core.Button, "html_params", staticmethod(html_params.wtforms_html_params))
    portal_app.extensions.pop("receipt_pages", None)
    try:
        slow = _pages(signed_in, receipt_ids)
    finally:
        receipts._qr_svg.cache_clear()
    assert len(fast) == len(slow) == 12
    for ours, theirs in zip(fast, slow, strict=True):
        if ours != theirs:  # the first line that differs, not two whole pages
            import difflib

            assert "\n".join(difflib.unified_diff(theirs.splitlines(), ours.splitlines(), lineterm="", n=0)) == ""
