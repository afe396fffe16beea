"""Issuing a receipt from the portal: the form, its lines and receiver hint (htmx), the preview and the issue.

The service does all the arithmetic and every rule: the portal builds the client's typed request
(payload.py), shows the service's preview PDF (with its totals), and maps the service's 422 field paths back
onto the form.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import time
import uuid
from dataclasses import dataclass, field
from datetime import date

from babel.dates import parse_date
from flask import abort, flash, redirect, request, session, url_for
from flask_babel import gettext as _

from portal.client import errors as client_errors
from portal.client.cfe import CfeRequest
from portal.domain.cfe_types import (
    BOLETA_TYPES,
    CFE_TYPES,
    CUENTA_AJENA_TYPES,
    E_REMITO,
    E_REMITO_EXPORTACION,
    E_RESGUARDO,
    EXPORT_INVOICE_TYPES,
    NOTE_TYPES,
)
from portal.domain.empresa import DEPARTMENTS, SMALL_TAXPAYER_REGIMES
from portal.web import activity
from portal.web.auth.session import writer_required
from portal.web.backend import api
from portal.web.comprobantes import bp, catalogue, choices, forms, payload, receiver
from portal.web.comprobantes.choices import type_name
from portal.web.comprobantes.documents import NO_HINT, Hint, document_hint
from portal.web.comprobantes.receipts import activity_summary
from portal.web.comprobantes.setup_fixes import SetupFix, fix_for
from portal.web.correo import on_issue
from portal.web.files import file_response
from portal.web.forms_common import DayField, apply_service_errors
from portal.web.rendering import fragment, redirect_after_post, render

TEMPLATE = "comprobantes/new.html"
_PREVIEWS_KEPT = 5
_ISSUED_FORMS = "cfe_issued_forms"  # form key -> receipt id, in the server-side session
_FORMS_KEPT = 50
_FORM_KEY = re.compile(r"^[0-9a-f]{32}$")
# A second click that reaches the service while the first is still being issued gets 409 "in progress";
# waiting a moment turns it into the first request's receipt.
_IN_PROGRESS_WAITS = (0.3, 0.6, 1.0, 1.5)


@dataclass(frozen=True)
class EditorView:
    tipo: int
    banner: list[str] = field(default_factory=list)
    preview_url: str | None = None
    hint: Hint = NO_HINT
    focus_line: int | None = None
    departments: tuple[str, ...] = DEPARTMENTS
    title: str | None = None
    issued_url: str | None = None  # this form (its key) already issued the receipt there
    dgi: receiver.DgiCheck | None = None  # DGI's answer about the receiver's document, with its warnings
    books: tuple = ()  # the contingency books of this type's CFC (portal.client ContingencyBook)
    fix: SetupFix | None = None  # under a refusal for the company's setup: where it is fixed

    @property
    def can_contingency(self) -> bool:
        """A paper contingency receipt of this type (its CFC, 2xx) can be keyed in."""
        return self.tipo in payload.CFC_BASE_TYPES

    @property
    def is_note(self) -> bool:
        return self.tipo in NOTE_TYPES

    @property
    def is_remito(self) -> bool:
        return self.tipo == E_REMITO

    @property
    def is_resguardo(self) -> bool:
        return self.tipo == E_RESGUARDO

    @property
    def is_export(self) -> bool:
        """The export types' terms of sale: the e-Factura de Exportación family and the e-Remito de Exportación."""
        return self.tipo in EXPORT_INVOICE_TYPES or self.is_export_remito

    @property
    def is_export_remito(self) -> bool:
        return self.tipo == E_REMITO_EXPORTACION

    @property
    def is_boleta(self) -> bool:
        return self.tipo in BOLETA_TYPES

    @property
    def is_cuenta_ajena(self) -> bool:
        return self.tipo in CUENTA_AJENA_TYPES

    @property
    def max_lines(self) -> int:
        return CFE_TYPES[self.tipo].max_lines


def _view(form: forms.ReceiptForm, **extra) -> EditorView:
    tipo = form.tipo_cfe.data if form.tipo_cfe.data in dict(choices.CFE_TYPES) else 101
    if "hint" not in extra:
        extra["hint"] = (
            Hint("error", form.doc_recep.errors[0])
            if form.doc_recep.errors
            else document_hint(form.tipo_doc_recep.data, form.doc_recep.data)
        )
    return EditorView(tipo=tipo, **extra)


def _editor(form: forms.ReceiptForm, *, status: int = 200, **extra):
    # The whole form again (preview, errors, another type): DGI's warnings stay in sight; nothing is filled.
    if not form.doc_recep.errors:
        extra["dgi"] = receiver.dgi_check(form.tipo_doc_recep.data, form.doc_recep.data, request.values, fill=False)
    form.offer_branches(api().list_branches())
    view = _view(form, **extra)
    if view.can_contingency:
        cfc_type = view.tipo + payload.CFC_OFFSET
        books = tuple(b for b in api().list_contingency_books() if b.cfe_type == cfc_type)
        view = dataclasses.replace(view, books=books)
    return render(TEMPLATE, "editor", status=status, form=form, view=view)


def form_key_redirect():
    """Each issuing form's one-time key lives in its URL (?clave=...), so Back, a reload or a duplicated tab
    bring the same key back with the form (a hidden field alone did not survive Back: the page is fetched
    again and the browser refills only what was typed). None when the URL already carries a key."""
    if _FORM_KEY.match(request.args.get("clave", "")):
        return None
    return redirect(
        url_for(request.endpoint, **(request.view_args or {}), **{**request.args.to_dict(), "clave": uuid.uuid4().hex}),
        code=303,
    )


def _fit_to_company(form: forms.ReceiptForm) -> None:
    """The form as the company sells now: without IVA (IVA mínimo, Monotributo) or not, as the service says."""
    was_without_iva = form.sells_without_iva
    form.ventas_sin_iva.data = "1" if api().get_fiscal_settings().regime in SMALL_TAXPAYER_REGIMES else ""
    if was_without_iva and not form.sells_without_iva:
        form.mnt_bruto.data = True  # the prices typed were final: they include the IVA now charged
    form.fit_to_regime()


def fresh_editor(form: forms.ReceiptForm, **extra):
    """A new form under the URL's key; if that key already issued a receipt here, the page says which."""
    form.idempotency_key.data = request.args["clave"]
    _fit_to_company(form)
    receipt_id = session.get(_ISSUED_FORMS, {}).get(form.idempotency_key.data)
    if receipt_id:
        extra["issued_url"] = url_for("comprobantes.receipt", receipt_id=receipt_id)
    return _editor(form, **extra)


def editor_for(form: forms.ReceiptForm, *, title: str):
    """The issuing form prefilled by another page (a note of a receipt, a receipt like another)."""
    return form_key_redirect() or fresh_editor(form, title=title)


def _invalid(form: forms.ReceiptForm, *, banner: list[str] | None = None, status: int = 422, **extra):
    return _editor(form, status=status, banner=banner or [_("Revisá los campos marcados.")], **extra)


def _without_lines(form: forms.ReceiptForm, body: payload.Body):
    """A form whose lines are all blank: the first line says what it needs (the service's "at least one
    element" named no field and no line), or None when there is a line to send."""
    if body.line_rows:
        return None
    first = form.lines.entries[0].form
    if int(form.tipo_cfe.data or 0) == E_RESGUARDO:
        first.cod_ret.errors = [_("Completá al menos una retención: código, tasa, base y monto.")]
    else:
        first.nom_item.errors = [_("Completá al menos una línea: qué se vende, la cantidad y el precio.")]
    return _invalid(form)


def _service_errors(form: forms.ReceiptForm, exc: client_errors.ValidationError, body: payload.Body):
    """The service's 422 on the form: each error next to its field, the rest in the banner."""
    if exc.code == "idempotency_key_reused":
        form.idempotency_key.data = uuid.uuid4().hex
        return _invalid(
            form,
            banner=[
                _(
                    "Este formulario ya emitió un comprobante con otros datos. Si querés "
                    "emitir uno nuevo con estos datos, volvé a presionar Emitir."
                )
            ],
        )
    apply_service_errors(form, exc, forms.ReceiptForm.SERVICE_FIELDS, rows=body.line_rows)
    if any(problem.field == "gross_amounts" for problem in exc.fields):
        _fit_to_company(form)  # the regime changed since the form was opened: show the form it needs now
    return _invalid(form, banner=[_("El servicio no aceptó el comprobante. Revisá los campos marcados.")])


def _issue_once(cfe: CfeRequest, key: str):
    for wait in (*_IN_PROGRESS_WAITS, None):
        try:
            return api().issue_receipt(cfe, idempotency_key=key)
        except client_errors.Conflict as exc:
            if exc.code != "idempotency_in_progress" or wait is None:
                raise
            time.sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


def _remember(receipt, key: str) -> None:
    """Record the issue once, and the form's key with it: the same form sent again (Back, reload, a second
    tab, a double click) finds its receipt instead of issuing another."""
    issued = dict(list(session.get(_ISSUED_FORMS, {}).items())[-(_FORMS_KEPT - 1) :])
    session[_ISSUED_FORMS] = {**issued, key: receipt.id}
    what = f"{type_name(receipt.tipo_cfe)} {receipt.number}"
    if receipt.replayed:
        flash(
            _("Este formulario ya se había enviado: es %(what)s, emitido antes. No se emitió otro.", what=what), "info"
        )
        return
    activity.record("cfe_emitido", cfe_id=receipt.id, summary=activity_summary(receipt))
    flash(_("Emitiste %(what)s.", what=what), "success")
    for warning in receipt.warnings:
        flash(warning.message, "warning")


def _already_issued(key: str):
    """The page of the receipt this form already issued (in this session), with a clear message; or None."""
    receipt_id = session.get(_ISSUED_FORMS, {}).get(key)
    if receipt_id is None:
        return None
    flash(
        _(
            "Este formulario ya emitió este comprobante; no se emitió otro. Para emitir uno nuevo, usá "
            "Nuevo comprobante o Emitir otro igual."
        ),
        "info",
    )
    return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)


@bp.route("/nuevo", methods=["GET", "POST"])
@writer_required
def new():
    """The issuing form (GET, pre-filled from the query); POST issues the receipt and goes to its page."""
    if request.method == "GET":
        return form_key_redirect() or fresh_editor(forms.prefilled_form(request.args))
    form = forms.ReceiptForm()
    already = _already_issued(form.idempotency_key.data or "")
    if already is not None:
        return already
    if not form.validate():
        return _invalid(form)
    body = payload.build_body(form.data)
    if (no_lines := _without_lines(form, body)) is not None:
        return no_lines
    try:
        if form.corrige_cfc.data:  # an observed paper contingency receipt, corrected: same paper, same number
            receipt = api().correct_contingency(form.corrige_cfc.data, body.cfe)
            flash(
                _("Corregiste %(what)s: se reenvía a DGI.", what=f"{type_name(receipt.tipo_cfe)} {receipt.number}"),
                "success",
            )
            return redirect_after_post("comprobantes.receipt", receipt_id=receipt.id)
        receipt = _issue_once(body.cfe, form.idempotency_key.data)
    except client_errors.ValidationError as exc:
        return _service_errors(form, exc, body)
    except client_errors.Conflict as exc:
        return _invalid(form, banner=[exc.message], status=409, fix=fix_for(exc.code))
    _remember(receipt, form.idempotency_key.data)
    if body.cfe.paper is None:  # a paper contingency receipt goes to DGI only, never to the customer
        on_issue.send_after_issue(receipt, form.enviar_a.data, key=form.idempotency_key.data)
    return redirect_after_post("comprobantes.receipt", receipt_id=receipt.id)


@bp.post("/nuevo/previsualizar")
@writer_required
def preview():
    """The receipt as it would print (the service's PDF, watermarked, with its totals), shown inline."""
    form = forms.ReceiptForm()
    if not form.validate():
        return _invalid(form)
    body = payload.build_body(form.data)
    if (no_lines := _without_lines(form, body)) is not None:
        return no_lines
    try:
        link = api().preview_link(body.cfe)
    except client_errors.ValidationError as exc:
        return _service_errors(form, exc, body)
    # The token stays in the server-side session; the page only knows a random handle.
    handle = secrets.token_urlsafe(12)
    kept = list(session.get("cfe_previews", {}).items())[-(_PREVIEWS_KEPT - 1) :]
    session["cfe_previews"] = {**dict(kept), handle: link.token}
    return _editor(form, preview_url=url_for("comprobantes.preview_pdf", handle=handle))


@bp.get("/previsualizacion/<handle>/pdf")
@writer_required
def preview_pdf(handle: str):
    """The preview PDF, proxied with the user's credentials (framed by the issuing page)."""
    token = session.get("cfe_previews", {}).get(handle)
    if token is None:
        abort(404)
    return file_response(api().preview_by_token(token), "application/pdf", "previsualizacion.pdf", inline=True)


@bp.post("/nuevo/tipo")
@writer_required
def change_type():
    """The form again for another CFE type (its sections differ), keeping what was typed."""
    form = forms.ReceiptForm(formdata=forms.renumbered(request.form))
    form.fit_to_type()
    return _editor(form)


def _lines(form: forms.ReceiptForm, **extra):
    return render(TEMPLATE, "lines", form=form, view=_view(form, **extra))


@bp.post("/nuevo/lineas")
@writer_required
def add_line():
    """One more detail line (the lines block again, for htmx; the whole form otherwise)."""
    form = forms.ReceiptForm(formdata=forms.renumbered(request.form))
    view = _view(form)
    if len(form.lines.entries) < view.max_lines:
        form.lines.append_entry()
        form.fit_to_regime()
    return _lines(form, focus_line=len(form.lines.entries) - 1)


@bp.post("/nuevo/lineas/quitar")
@writer_required
def remove_line():
    """The lines without the one whose remove button was pressed, numbered again from 0."""
    drop = request.form.get("remove_line", type=int)
    return _lines(forms.ReceiptForm(formdata=forms.renumbered(request.form, drop=drop)))


@bp.get("/nuevo/documento")
@writer_required
def document_check():
    """The hint next to the receiver's document as the user types: the check digit, then what DGI says of a
    valid RUT or cédula (its warnings, and its data for the receiver fields the user left empty)."""
    args = request.args
    hint = document_hint(args.get("tipo_doc_recep"), args.get("doc_recep"))
    dgi = receiver.dgi_check(args.get("tipo_doc_recep"), args.get("doc_recep"), args, fill=True)
    # The hint replaces itself; DGI's part (a row of its own under the document) rides out of band.
    return fragment(TEMPLATE, "doc_hint", oob_blocks=("doc_dgi",), view=EditorView(tipo=101, hint=hint, dgi=dgi))


@bp.get("/nuevo/receptores")
@writer_required
def receiver_suggestions():
    """The company's past receivers whose name or document starts with what is typed (htmx, under the field)."""
    typed = request.args.get("doc_recep") or request.args.get("rzn_soc_recep")
    return fragment(TEMPLATE, "suggestions", suggestions=receiver.suggestions(typed))


def _typed_day(text: str) -> date | None:
    """The issue day as the form's DayField reads it; None (today's rate) while it cannot be read."""
    text = text.strip()
    if not DayField._SHAPE.fullmatch(text):
        return None
    try:
        return parse_date(text, locale="es_UY")
    except ValueError:
        return None


_LINE_DESCRIPTION = re.compile(r"^lines-(\d{1,3})-nom_item$")


@bp.get("/nuevo/productos")
@writer_required
def product_suggestions():
    """The company's products whose name or code starts with what is typed in a line's description (htmx,
    under the field), priced in the receipt's currency; picking one fills that line (static/js/app.js)."""
    typed, line = None, 0
    for name, value in request.args.items():
        if match := _LINE_DESCRIPTION.match(name):
            typed, line = value, int(match.group(1))
    currency = (request.args.get("tpo_moneda") or "").strip().upper()[:3]
    day, rate = _typed_day(request.args.get("fch_emis", "")), request.args.get("tpo_cambio")
    products = catalogue.product_suggestions(typed, line, currency, day, rate)
    return fragment(TEMPLATE, "products", products=products)


@bp.get("/nuevo/cotizacion")
@writer_required
def exchange_rate():
    """The day's exchange rate beside the rate field when the currency or the date changes: it fills an empty
    rate field (or the rate it filled before) and says whose and which day's rate it is."""
    args = request.args
    day = _typed_day(args.get("fch_emis", ""))
    note = catalogue.rate_note(args.get("tpo_moneda"), day, args.get("tpo_cambio"), args.get("cotizacion_completada"))
    return fragment(TEMPLATE, "rate_note", note=note)
