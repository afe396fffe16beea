"""The receipt's page, shared by the receipt's own views (routes.py) and the notes made from it (notes.py)."""

from __future__ import annotations

import hashlib
import re

from flask import abort, current_app, make_response, request, session
from flask_babel import get_locale
from flask_login import current_user
from flask_wtf.csrf import generate_csrf

from portal.domain import roles
from portal.lru import LruStore
from portal.web.backend import api
from portal.web.comprobantes import forms
from portal.web.comprobantes.channels import Channels, exchange_channel, mail_channel
from portal.web.comprobantes.receipts import receipt_view
from portal.web.rendering import render, wants_fragment

_RECEIPT_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def checked_id(receipt_id: str) -> str:
    """The receipt id from the URL, or a 404 when it cannot be one (never sent to the service)."""
    if not _RECEIPT_ID.match(receipt_id):
        abort(404)
    return receipt_id


class _PageCache:
    """The receipt pages this process rendered last, by everything a page is made of: the service's answer
    (`IssuedReceipt.version`, a digest of all of it: DGI state, notes, sends, reference), the address, the
    language, and the signed-in user as the session holds them (who, their companies and roles, the chosen
    company). Only the form's CSRF token changes between two such pages; it is stored as a placeholder."""

    _CSRF_SLOT = "\x00csrf\x00"

    def __init__(self, size: int = 256):
        self._pages: LruStore[str, str] = LruStore(size)

    @staticmethod
    def key(version: str) -> str:
        who = repr((session.get("user"), session.get("company_id"), str(get_locale() or "es"), request.full_path))
        return version + hashlib.blake2b(who.encode(), digest_size=16).hexdigest()

    def get(self, key: str) -> str | None:
        html = self._pages.get(key)
        return None if html is None else html.replace(self._CSRF_SLOT, generate_csrf())

    def put(self, key: str, html: str) -> None:
        self._pages.put(key, html.replace(generate_csrf(), self._CSRF_SLOT))


def _pages() -> _PageCache:
    """The app's own cache (pages depend on its settings too)."""
    cache = current_app.extensions.get("receipt_pages")
    if cache is None:
        cache = current_app.extensions.setdefault("receipt_pages", _PageCache())
    return cache


def _cacheable() -> bool:
    """A plain GET of the whole page, no message waiting to be shown, templates not reloaded from disk."""
    return (
        request.method == "GET"
        and not wants_fragment()
        and "_flashes" not in session
        and not current_app.debug
        and not current_app.jinja_env.auto_reload
    )


def receipt_page(
    receipt_id: str,
    form: forms.CollectionReferenceForm | None = None,
    *,
    status: int = 200,
    applied=None,
    cancel_form: forms.CancelForm | None = None,
):
    """The receipt's page (its reference form, or the cancel form re-shown with errors). The page shows its
    forms (and the retry of a delivery to the electronic receiver in error) only to those who may write, so
    only they get them built."""
    receipt = api().get_receipt(checked_id(receipt_id))
    cache_key = None
    if form is None and cancel_form is None and applied is None and status == 200 and _cacheable():
        cache_key = _pages().key(receipt.version)
        html = _pages().get(cache_key)
        if html is not None:
            response = make_response(html)
            response.vary.add("HX-Request")
            return response
    view = receipt_view(receipt)
    writer = current_user.role in roles.WRITERS
    if form is None and writer:
        form = forms.CollectionReferenceForm(formdata=None, data={"referencia": view.receipt.collection_reference})
    cancel_open = cancel_form is not None
    if not cancel_open and writer and (view.actions.cancel or view.actions.cancel_rest):
        cancel_form = forms.CancelForm(formdata=None)
    exchange = view.receipt.exchange
    in_error = exchange is not None and exchange.envelope is not None and exchange.envelope.state == "error"
    response = render(
        "comprobantes/receipt.html",
        "reference",
        status=status,
        view=view,
        reference_form=form,
        applied=applied,
        cancel_form=cancel_form,
        cancel_open=cancel_open,
        channels=Channels(exchange_channel(view.receipt), mail_channel(view.receipt)),
        exchange_retry_form=forms.ExchangeRetryForm(formdata=None) if writer and in_error else None,
    )
    if cache_key is not None and "_flashes" not in session:
        _pages().put(cache_key, response.get_data(as_text=True))
    return response
