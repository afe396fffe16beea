"""Views of the envios area: the DGI state fragments the shared badge polls, "Emitir corregido", and the
"Envíos a DGI" page (support staff and admins) with the admin's form to void unused numbers."""

from __future__ import annotations

import re

from flask import abort, flash
from flask_babel import gettext as _
from flask_login import current_user

from portal.client import errors as client_errors
from portal.domain import roles
from portal.web.auth.session import admin_required, member_required, reader_required
from portal.web.backend import api
from portal.web.comprobantes.choices import type_name
from portal.web.envios import bp, overview
from portal.web.envios.badges import dgi_badge, receipt_badge, receipt_panel
from portal.web.envios.forms import ReportForm, VoidForm, rest_of_cae
from portal.web.files import file_response
from portal.web.forms_common import apply_service_errors
from portal.web.i18n import day as format_day
from portal.web.rendering import fragment, redirect_after_post, render

__all__ = ["bp"]
_RECEIPT_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
PAGE = "envios/index.html"
# void_numbers' parameter -> the void form's field
_VOID_FIELDS = {"tipo_cfe": "tipo_cfe", "serie": "serie", "count": "cantidad", "reason": "motivo"}
STATE = "envios/_state.html"


def _can_write() -> bool:
    return current_user.is_authenticated and current_user.role in roles.WRITERS


def _receipt_label(receipt_id: str) -> str:
    """ "e-Factura A-0000001" for a linked receipt; its id if it cannot be read."""
    try:
        other = api().get_receipt(receipt_id)
    except client_errors.NotFound:
        return receipt_id
    return f"{type_name(other.tipo_cfe)} {other.number}"


def _dgi_down_since():
    """Since when DGI does not answer (None while it answers, or when the service cannot say)."""
    try:
        notice = api().dgi_notice()
    except client_errors.ServiceUnavailable:
        return None
    return None if notice.answering else notice.down_since


def dgi_panel_for(receipt):
    """The receipt page's DGI panel for the signed-in user (only writers are offered "Emitir corregido")."""
    linked = [rid for rid in (receipt.dgi.corrects, receipt.dgi.corrected_by) if rid] if receipt.dgi else []
    return receipt_panel(receipt, can_write=_can_write(), labels={rid: _receipt_label(rid) for rid in linked})


# The shared partial's values, for any page: templates/_dgi_state.html documents how to call them.
bp.add_app_template_global(dgi_badge, "dgi_badge")
bp.add_app_template_global(receipt_badge, "dgi_receipt_badge")
bp.add_app_template_global(dgi_panel_for, "dgi_receipt_panel")


def _checked(receipt_id: str) -> str:
    if not _RECEIPT_ID.match(receipt_id):
        abort(404)
    return receipt_id


def _state(block: str, **context):
    response = fragment(STATE, block, **context)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/estado/<receipt_id>")
@member_required
def state_badge(receipt_id: str):
    """A receipt's DGI badge alone: what the badge asks for again while its state is not final."""
    return _state("badge", badge=receipt_badge(api().get_receipt(_checked(receipt_id))))


@bp.get("/estado/<receipt_id>/detalle")
@member_required
def state_panel(receipt_id: str):
    """The receipt page's DGI panel alone (badge, DGI's reasons, what a rejection means, the correction)."""
    return _state("panel", panel=dgi_panel_for(api().get_receipt(_checked(receipt_id))))


def _page(
    form: VoidForm | None = None, report_form: ReportForm | None = None, *, block: str | None = None, status: int = 200
):
    admin = current_user.role in roles.ADMINS
    form = form or (VoidForm(formdata=None) if admin else None)
    report_form = report_form or (ReportForm(formdata=None) if admin else None)
    return render(
        PAGE, block, status=status, view=overview.load(api()), form=form, report_form=report_form, ov=overview
    )


@bp.get("/")
@reader_required
def index():
    """Envelopes with DGI's acknowledgements, receipts waiting or retrying (and why), daily reports with their
    answer, voided ranges; late items flagged. Admins also get the form to void unused numbers."""
    return _page()


@bp.get("/pendientes")
@reader_required
def waiting():
    """The receipts still waiting for DGI: what their section asks for every few seconds while any waits."""
    return _page(block="waiting")


@bp.post("/anular")
@admin_required
def void():
    """Void the next unused numbers of a CAE; errors next to the fields (422), the page again on success."""
    form = VoidForm()
    valid = form.validate()
    if valid and form.count() is None:
        form.offer_rest(rest_of_cae(api().list_cae_ranges(), form.tipo_cfe.data, form.serie.data))
        valid = False
    if not valid:
        return _page(form, block="void", status=422)
    retirement = form.retirement()
    try:
        if retirement is not None:  # the whole rest: the range's retirement, audited like its upload
            retired = api().retire_cae_range(**retirement)
            first, last, serie, cfe_type = retired.first, retired.last, retired.range.serie, retired.range.cfe_type
        else:
            voided = api().void_numbers(**form.request())
            first, last, serie, cfe_type = voided.first, voided.last, voided.serie, voided.tipo_cfe
    except client_errors.ValidationError as exc:
        apply_service_errors(form, exc, _VOID_FIELDS)
        return _page(form, block="void", status=422)
    except (client_errors.NotFound, client_errors.Conflict) as exc:
        target = form.cantidad if isinstance(exc, client_errors.Conflict) else form.tipo_cfe
        target.errors = [*target.errors, exc.message]
        return _page(form, block="void", status=422)
    if first == last:
        done = _(
            "Anulaste el número %(number)s (serie %(serie)s) de %(type)s.",
            number=first,
            serie=serie,
            type=type_name(cfe_type),
        )
    else:
        done = _(
            "Anulaste los números %(first)s a %(last)s (serie %(serie)s) de %(type)s.",
            first=first,
            last=last,
            serie=serie,
            type=type_name(cfe_type),
        )
    flash(done, "success")
    # No #anchor: htmx's HX-Redirect to the same page plus a hash would only scroll, not load the new list.
    return redirect_after_post("envios.index")


@bp.post("/reporte")
@admin_required
def send_report():
    """Send a day's report now; DGI's answer shows in the list once it arrives."""
    form = ReportForm()
    if not form.validate():
        return _page(report_form=form, block="report", status=422)
    try:
        report = api().send_daily_report(form.fecha.data)
    except client_errors.ValidationError as exc:
        apply_service_errors(form, exc, {"*": "fecha"})  # a day's report: every refusal is about the day
        return _page(report_form=form, block="report", status=422)
    except client_errors.Conflict as exc:  # no valid signing certificate: nothing can be signed, say why here
        form.fecha.errors = [*form.fecha.errors, exc.message]
        return _page(report_form=form, block="report", status=422)
    flash(
        _(
            "Enviaste el reporte diario del %(day)s (envío %(sequence)s). La respuesta de DGI aparece en la lista.",
            day=format_day(report.day),
            sequence=report.sequence,
        ),
        "success",
    )
    return redirect_after_post("envios.index")


@bp.post("/sobres/<int:envelope_id>/reintentar")
@admin_required
def retry_envelope(envelope_id: int):
    """Retry a refused or failed envelope; the list shows how it goes."""
    try:
        envelope = api().retry_envelope(envelope_id)
    except (client_errors.NotFound, client_errors.Conflict) as exc:
        flash(exc.message, "warning")
    else:
        flash(_("Reintentaste el sobre Nº %(number)s.", number=envelope.idemisor), "success")
    return redirect_after_post("envios.index")


@bp.get("/sobres/<int:envelope_id>/<document>")
@reader_required
def envelope_document(envelope_id: int, document: str):
    """An envelope as sent, or DGI's acknowledgement or per-receipt answer as it came (XML download)."""
    if document not in ("sobre", "acuse", "respuesta"):
        abort(404)
    download = api().envelope_document(envelope_id, document)
    return file_response(download.content, "application/xml", download.filename, inline=False)


@bp.get("/reportes/<int:report_id>/<document>")
@reader_required
def report_document(report_id: int, document: str):
    """A daily report as sent, or DGI's acknowledgement as it came (XML download)."""
    if document not in ("reporte", "acuse"):
        abort(404)
    download = api().report_document(report_id, document)
    return file_response(download.content, "application/xml", download.filename, inline=False)


@bp.get("/dgi-aviso")
@reader_required
def dgi_banner():
    """The banner admins and support staff see on every page while DGI does not answer (a fragment the base
    layout loads after the page, so no page waits for it); nothing while DGI answers."""
    try:
        availability = api().dgi_availability()
    except client_errors.ServiceUnavailable:
        availability = None
    return fragment("envios/_dgi_banner.html", "banner", availability=availability)


@bp.get("/dgi-aviso-breve")
@member_required
def dgi_notice():
    """The short notice every other member sees on every page while DGI does not answer: since when, and that
    receipts go out by themselves when it does (no error, no queue); nothing while DGI answers."""
    return fragment("envios/_dgi_banner.html", "notice", down_since=_dgi_down_since())


@bp.get("/contingencia")
@member_required
def contingency():
    """In one place: which of the two situations applies (DGI does not answer: keep issuing; the company
    cannot issue electronically at all: the paper contingency book, then key the receipts in)."""
    availability = None
    if current_user.role in roles.READERS:
        try:
            availability = api().dgi_availability()
        except client_errors.ServiceUnavailable:
            availability = None
    return render("envios/contingencia.html", availability=availability)
