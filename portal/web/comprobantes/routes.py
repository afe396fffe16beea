"""Views of the comprobantes area: a receipt's page, its PDF and XML, and its collection reference. The list
lives in listing.py, issuing in issuing.py, notes from a receipt in notes.py, signing an XML in signing.py."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from portal.client import errors as client_errors
from portal.domain import roles
from portal.web import activity
from portal.web.auth.session import member_required, writer_required
from portal.web.backend import api
from portal.web.comprobantes import bp, forms
from portal.web.comprobantes import issuing as _issuing  # noqa: F401 - registers its views on bp
from portal.web.comprobantes import listing as _listing  # noqa: F401 - registers its views on bp
from portal.web.comprobantes import notes as _notes  # noqa: F401 - registers its views on bp
from portal.web.comprobantes import signing as _signing  # noqa: F401 - registers its views on bp
from portal.web.comprobantes.choices import numbered_name
from portal.web.comprobantes.files import receipt_file_name
from portal.web.comprobantes.page import checked_id, receipt_page
from portal.web.extensions import htmx
from portal.web.files import file_response
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import redirect_after_post

__all__ = ["bp"]
_REFERENCE_FIELDS = {"referenciaCobro": "referencia", "observacion": "observacion"}


@bp.context_processor
def _area_context():
    return {"can_write": current_user.is_authenticated and current_user.role in roles.WRITERS}


@bp.get("/buscar")
@member_required
def lookup():
    """Old links to the id lookup: the list's one box now takes an id or a number."""
    return redirect(url_for("comprobantes.index", numero=(request.args.get("id") or "").strip()[:40]), code=303)


@bp.get("/<receipt_id>")
@member_required
def receipt(receipt_id: str):
    """A receipt: its data, the service's totals, security code, QR, CAE, the PDF inline and the XML."""
    return receipt_page(checked_id(receipt_id))


@bp.get("/<receipt_id>/pdf")
@member_required
def receipt_pdf(receipt_id: str):
    """The receipt's PDF, inline (the receipt page frames it)."""
    receipt_id = checked_id(receipt_id)
    pdf = api().get_receipt_pdf(receipt_id)
    return file_response(pdf, "application/pdf", _file_name(receipt_id, "pdf"), inline=True)


@bp.get("/<receipt_id>/xml")
@member_required
def receipt_xml(receipt_id: str):
    """The signed XML exactly as the service signed it, as a download."""
    receipt_id = checked_id(receipt_id)
    xml = api().get_receipt_xml(receipt_id)
    return file_response(xml, "application/xml", _file_name(receipt_id, "xml"), inline=False)


def _file_name(receipt_id: str, extension: str) -> str:
    receipt = api().get_receipt(receipt_id)
    return receipt_file_name(numbered_name(receipt.tipo_cfe, receipt.number), extension)


@bp.post("/<receipt_id>/referencia")
@writer_required
def reference(receipt_id: str):
    """Reapply a collection reference; htmx swaps the reference block, which shows the history."""
    receipt_id, form = checked_id(receipt_id), forms.CollectionReferenceForm()
    if not form.validate():
        return receipt_page(receipt_id, form, status=422)
    try:
        applied = api().reapply_reference(
            receipt_id, form.referencia.data.strip(), (form.observacion.data or "").strip() or None
        )
    except client_errors.ValidationError as exc:
        apply_service_errors(form, exc, _REFERENCE_FIELDS)
        return receipt_page(receipt_id, form, status=422)
    if applied.changed:
        activity.record("referencia_reaplicada", cfe_id=receipt_id, summary=applied.reference)
    if not htmx:
        flash(_("Referencia de cobro aplicada: %(reference)s.", reference=applied.reference), "success")
        return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
    return receipt_page(
        receipt_id,
        forms.CollectionReferenceForm(formdata=None, data={"referencia": applied.reference}),
        applied=applied,
    )


@bp.post("/<receipt_id>/intercambio/reintentar")
@writer_required
def retry_exchange(receipt_id: str):
    """Send the receipt's envelope again to its electronic receiver after it could not be delivered."""
    receipt_id, form = checked_id(receipt_id), forms.ExchangeRetryForm()
    exchange = api().get_receipt(receipt_id).exchange
    envelope = exchange.envelope if exchange else None
    if envelope is None or not form.validate():
        flash(_("No hay una entrega al receptor electrónico para reintentar."), "warning")
        return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
    try:
        retried = api().retry_exchange_envelope(envelope.id, idempotency_key=form.idempotency_key.data)
    except (client_errors.NotFound, client_errors.Conflict) as exc:
        flash(exc.message, "warning")
    else:
        if not retried.replayed:
            activity.record("intercambio_reintentado", cfe_id=receipt_id, summary=retried.file_name)
        flash(_("Se vuelve a entregar el comprobante al receptor electrónico; el resultado aparece aquí."), "success")
    return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
