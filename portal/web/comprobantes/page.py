"""The receipt's page, shared by the receipt's own views (routes.py) and the notes made from it (notes.py)."""

from __future__ import annotations

import re

from flask import abort

from portal.web.backend import api
from portal.web.comprobantes import forms
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
    """The receipt's page (its reference form, or the cancel form re-shown with errors)."""
    view = receipt_view(api().get_receipt(checked_id(receipt_id)))
    if form is None:
        form = forms.CollectionReferenceForm(formdata=None, data={"referencia": view.receipt.collection_reference})
    return render(
        "comprobantes/receipt.html",
        "reference",
        status=status,
        view=view,
        reference_form=form,
        applied=applied,
        cancel_form=cancel_form or forms.CancelForm(formdata=None),
        cancel_open=cancel_form is not None,
    )
