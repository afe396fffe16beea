"""What a receipt's page offers to do with it: cancel it with a full credit note, open the issuing form as
a partial credit note or a debit note (prefilled from the service's draft), as a new receipt like it, or, when
DGI rejected it, as its correction ("Emitir corregido"). Each form is filled from the typed receipt."""

from __future__ import annotations

from dataclasses import replace

from flask import abort, flash, request
from flask_babel import gettext as _

from portal.client import errors as client_errors
from portal.client.cfe import PRICES_INCLUDE_IVA, CfeRequest, PaperNumber, Reference
from portal.client.comprobantes import IssuedReceipt
from portal.domain.cfe_types import CREDIT_NOTES
from portal.web import activity
from portal.web.auth.session import writer_required
from portal.web.backend import api
from portal.web.comprobantes import bp, forms, payload
from portal.web.comprobantes.balance import rest_lines
from portal.web.comprobantes.choices import numbered_name, type_name
from portal.web.comprobantes.issuing import editor_for, form_key_redirect
from portal.web.comprobantes.page import receipt_page
from portal.web.comprobantes.receipts import activity_summary
from portal.web.forms_common import apply_service_errors
from portal.web.i18n import money
from portal.web.rendering import redirect_after_post

_KINDS = {"credito": "credito", "debito": "debito"}


def _same_as(receipt: IssuedReceipt) -> CfeRequest:
    """The receipt as a request to issue again: same type, receiver, currency, terms (an export's terms of sale, a
    sale on behalf of others' principal) and lines; new date."""
    return CfeRequest(
        tipo_cfe=receipt.tipo_cfe,
        payment_form=receipt.payment_form,
        gross_amounts=PRICES_INCLUDE_IVA if receipt.prices_include_tax else None,
        currency=receipt.currency,
        exchange_rate=receipt.exchange_rate,
        receiver=receipt.receiver,
        lines=receipt.lines,
        adenda=receipt.adenda,
        sale_clause=receipt.sale_clause,
        sale_mode=receipt.sale_mode,
        transport=receipt.transport,
        principal=receipt.principal,
    )


def _corrected(receipt: IssuedReceipt) -> CfeRequest:
    """A rejected receipt as a request to issue it again under a new number: everything it said (due date,
    transfer kind, references too), today's date, and `corrects` so the service links both ways."""
    return replace(
        _same_as(receipt),
        due_date=receipt.due_date,
        transfer_kind=receipt.transfer_kind,
        references=tuple(
            Reference(r.tipo_cfe, r.serie, r.nro, r.reason, r.issue_date, r.amount, r.global_reference)
            for r in receipt.references
        ),
        corrects=receipt.id,
    )


@bp.get("/<receipt_id>/nota/<kind>")
@writer_required
def note(receipt_id: str, kind: str):
    """The issuing form as a partial credit note or a debit note of the receipt, prefilled from it."""
    if kind not in _KINDS:
        abort(404)
    keyed = form_key_redirect()
    if keyed is not None:
        return keyed
    draft = api().note_draft(receipt_id, kind)
    original = api().get_receipt(receipt_id)
    title = (
        _("Nueva nota de crédito de %(what)s", what=f"{type_name(original.tipo_cfe)} {original.number}")
        if kind == "credito"
        else _("Nueva nota de débito de %(what)s", what=f"{type_name(original.tipo_cfe)} {original.number}")
    )
    if draft.creditable_balance is not None:
        flash(
            _(
                "Ajustá las líneas a lo que acreditás; queda por acreditar %(amount)s.",
                amount=money(draft.creditable_balance, original.currency),
            ),
            "info",
        )
    # The reason typed where this form was offered instead ("Anular el saldo" that could not be said line by line).
    reason = request.args.get("motivo", "").strip()
    note_request = draft.draft
    if reason:
        note_request = replace(
            note_request, references=tuple(replace(r, reason=reason) for r in note_request.references)
        )
    return editor_for(forms.ReceiptForm(formdata=None, data=payload.form_data(note_request)), title=title)


@bp.get("/<receipt_id>/copiar")
@writer_required
def copy(receipt_id: str):
    """The issuing form as a new receipt like this one (today's date, a new number)."""
    keyed = form_key_redirect()
    if keyed is not None:
        return keyed
    receipt = api().get_receipt(receipt_id)
    return editor_for(
        forms.ReceiptForm(formdata=None, data=payload.form_data(_same_as(receipt))),
        title=_("Nuevo comprobante como %(what)s", what=f"{type_name(receipt.tipo_cfe)} {receipt.number}"),
    )


@bp.get("/<receipt_id>/corregir")
@writer_required
def correct(receipt_id: str):
    """The issuing form filled with a rejected receipt's data, to issue it corrected under a new number."""
    receipt = api().get_receipt(receipt_id)
    dgi = receipt.dgi
    if dgi is not None and dgi.corrected_by:
        flash(_("Ese comprobante ya tiene su corrección: es este."), "info")
        return redirect_after_post("comprobantes.receipt", receipt_id=dgi.corrected_by)
    if dgi is None or dgi.state != "rechazado":
        flash(_("Solo se emite corregido un comprobante que DGI rechazó."), "warning")
        return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
    return editor_for(
        forms.ReceiptForm(formdata=None, data=payload.form_data(_corrected(receipt))),
        title=_("Corrección de %(what)s", what=f"{type_name(receipt.tipo_cfe)} {receipt.number}"),
    )


@bp.get("/<receipt_id>/corregir-contingencia")
@writer_required
def correct_contingency(receipt_id: str):
    """The issuing form filled with an observed paper contingency receipt's data, to correct it and send it to DGI
    again: the same paper (type, serie, number, date)."""
    receipt = api().get_receipt(receipt_id)
    if receipt.dgi is None or receipt.dgi.state != "observado":
        flash(_("Solo se corrige y reenvía un comprobante de contingencia que DGI observó."), "warning")
        return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
    paper = replace(
        _corrected(receipt),
        corrects=None,
        issue_date=receipt.issue_date,
        paper=PaperNumber(receipt.serie, receipt.nro),
    )
    form = forms.ReceiptForm(formdata=None, data={**payload.form_data(paper), "corrige_cfc": receipt.id})
    return editor_for(form, title=_("Corrección de %(what)s", what=f"{type_name(receipt.tipo_cfe)} {receipt.number}"))


@bp.route("/<receipt_id>/anular", methods=["GET", "POST"])
@writer_required
def cancel(receipt_id: str):
    """Cancel with a full credit note (one confirmation, reason required), then show the note. GET is the
    receipt's page with the question open (a browser without script; with script the dialog opens in place)."""
    if request.method == "GET":
        return receipt_page(receipt_id, cancel_form=forms.CancelForm(formdata=None))
    form = forms.CancelForm()
    if not form.validate():
        return receipt_page(receipt_id, cancel_form=form, status=422)
    try:
        note = api().cancel_with_credit_note(
            receipt_id, form.razon.data.strip(), idempotency_key=form.idempotency_key.data
        )
    except client_errors.Conflict as exc:
        flash(exc.message, "error")
        return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
    except client_errors.ValidationError as exc:
        apply_service_errors(form, exc, {"razon": "razon", "razonRef": "razon"})
        return receipt_page(receipt_id, cancel_form=form, status=422)
    if note.replayed:
        flash(
            _(
                "Ya habías anulado este comprobante con %(what)s; no se emitió otra nota.",
                what=f"{type_name(note.tipo_cfe)} {note.number}",
            ),
            "info",
        )
    else:
        activity.record("cfe_emitido", cfe_id=note.id, summary=activity_summary(note))
        flash(
            _("Emitiste %(what)s, que anula el comprobante.", what=f"{type_name(note.tipo_cfe)} {note.number}"),
            "success",
        )
    return redirect_after_post("comprobantes.receipt", receipt_id=note.id)


@bp.route("/<receipt_id>/anular-saldo", methods=["GET", "POST"])
@writer_required
def cancel_rest(receipt_id: str):
    """After partial credit notes: one credit note for what is left (the lines less what the notes took), with
    the service's own operations (the note's draft, then emitir). When the rest cannot be said line by line,
    the partial note form opens with the balance to credit. GET asks first, as `cancel` does."""
    if request.method == "GET":
        return receipt_page(receipt_id, cancel_form=forms.CancelForm(formdata=None))
    form = forms.CancelForm()
    if not form.validate():
        return receipt_page(receipt_id, cancel_form=form, status=422)
    original = api().get_receipt(receipt_id)
    credited = [api().get_receipt(n.receipt_id).lines for n in original.notes if n.tipo_cfe in CREDIT_NOTES]
    draft = api().note_draft(receipt_id, "credito").draft
    lines = rest_lines(draft.lines, credited)
    reason = form.razon.data.strip()
    if not lines:
        flash(_("No se puede calcular el saldo línea por línea: indicá en la nota qué acreditás."), "info")
        return redirect_after_post("comprobantes.note", receipt_id=receipt_id, kind="credito", motivo=reason)
    note = replace(draft, lines=lines, references=tuple(replace(r, reason=reason) for r in draft.references))
    try:
        issued = api().issue_receipt(note, idempotency_key=form.idempotency_key.data)
    except client_errors.ValidationError as exc:
        flash(exc.message, "error")
        return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
    what = numbered_name(issued.tipo_cfe, issued.number)
    if not issued.replayed:
        activity.record("cfe_emitido", cfe_id=issued.id, summary=activity_summary(issued))
    flash(_("Emitiste %(what)s, que anula el saldo del comprobante.", what=what), "success")
    return redirect_after_post("comprobantes.receipt", receipt_id=issued.id)
