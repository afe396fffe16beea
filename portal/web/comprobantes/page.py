"""The receipt's page, shared by the receipt's own views (routes.py) and the notes made from it (notes.py)."""

from __future__ import annotations

import re

from flask import abort
from flask_login import current_user

from portal.domain import roles
from portal.web.backend import api
from portal.web.comprobantes import forms
from portal.web.comprobantes.channels import Channels, exchange_channel, mail_channel
from portal.web.comprobantes.receipts import receipt_view
from portal.web.rendering import render

_RECEIPT_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def checked_id(receipt_id: str) -> str:
    """The receipt id from the URL, or a 404 when it cannot be one (never sent to the service)."""
    if not _RECEIPT_ID.match(receipt_id):
        abort(404)
    return receipt_id


def receipt_page(
    receipt_id: str,
    form: forms.CollectionReferenceForm | None = None,
    *,
    status: int = 200,
    applied=None,
    cancel_form: forms.CancelForm | None = None,
):
    """The receipt's page (its reference form, or the cancel form re-shown with errors). The page shows its
    two forms only to those who may write, so only they get them built."""
    view = receipt_view(api().get_receipt(checked_id(receipt_id)))
    writer = current_user.role in roles.WRITERS
    if form is None and writer:
        form = forms.CollectionReferenceForm(formdata=None, data={"referencia": view.receipt.collection_reference})
    cancel_open = cancel_form is not None
    if not cancel_open and writer and (view.actions.cancel or view.actions.cancel_rest):
        cancel_form = forms.CancelForm(formdata=None)
    return render(
        "comprobantes/receipt.html",
        "reference",
        status=status,
        view=view,
        reference_form=form,
        applied=applied,
        cancel_form=cancel_form,
        cancel_open=cancel_open,
        channels=Channels(exchange_channel(view.receipt), mail_channel(view.receipt)),
    )
