"""The company's receipt list: live filters (htmx; the URL holds the query), totals of the filtered set,
pages, and the CSV of the same query. Every receipt, however it was issued: the list comes from the service."""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import request, url_for
from flask_babel import format_number
from flask_babel import gettext as _
from flask_login import current_user

from portal.client import errors as client_errors
from portal.client.comprobantes import ReceiptSummary
from portal.client.informes import FILE_MEDIA
from portal.client.pages import Page
from portal.web.auth.session import member_required
from portal.web.backend import api
from portal.web.comprobantes import bp, forms
from portal.web.files import dated_name, file_response
from portal.web.forms_common import apply_service_errors
from portal.web.paging import PagedView, paged_view
from portal.web.rendering import redirect_after_post, render

PAGE_SIZE = 50
_RECEIPT_ID = re.compile(r"^[0-9a-fA-F]{32}$")
_FIELDS = {field: name for name, field in forms.ReceiptFilterForm.FILTER_FIELDS.items()}


@dataclass(frozen=True)
class ListView:
    paged: PagedView[ReceiptSummary]
    filtered: bool
    csv_url: str
    xlsx_url: str
    xml_url: str
    more_than: str | None = None  # the count, formatted, when the service says more than it match


def _view(form: forms.ReceiptFilterForm, page: Page[ReceiptSummary] | None) -> ListView:
    args = form.query_args()
    return ListView(
        paged=paged_view("comprobantes.index", page, args, form.cursor.data or None),
        filtered=bool(args),
        csv_url=url_for("comprobantes.export", formato="csv", **args),
        xlsx_url=url_for("comprobantes.export", formato="xlsx", **args),
        xml_url=url_for("comprobantes.export_xml", **args),
        more_than=format_number(page.total) if page and page.total_bounded and page.total is not None else None,
    )


def _receipt_by_id(receipt_id: str):
    """The one box also takes the id the service gave (idCfeEmitido): straight to that receipt."""
    try:
        api().get_receipt(receipt_id)
    except client_errors.NotFound:
        return None
    return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)


@bp.get("/")
@member_required
def index():
    """The receipt list; htmx asks for the results block alone as the filters change."""
    form = forms.ReceiptFilterForm(formdata=request.args)
    if not form.validate():
        return render("comprobantes/index.html", "results", status=422, form=form, view=_view(form, None))
    if _RECEIPT_ID.match(form.numero.data or ""):
        found = _receipt_by_id(form.numero.data.lower())
        if found:
            return found
        form.numero.errors = [
            _("%(company)s no tiene un comprobante con ese identificador.", company=current_user.company.name)
        ]
        return render("comprobantes/index.html", "results", status=404, form=form, view=_view(form, None))
    try:
        page = api().search_receipts(form.service_filters(), cursor=form.cursor.data or None, limit=PAGE_SIZE)
    except client_errors.ValidationError as exc:
        apply_service_errors(form, exc, _FIELDS)
        return render("comprobantes/index.html", "results", status=422, form=form, view=_view(form, None))
    return render("comprobantes/index.html", "results", form=form, view=_view(form, page))


_EXPORT_MEDIA = {"csv": "text/csv; charset=utf-8", "xlsx": FILE_MEDIA["xlsx"]}


@bp.get("/exportar.<any(csv, xlsx):formato>")
@member_required
def export(formato: str):
    """The CSV or XLSX of the same query (every receipt it matches, not one page), as the service writes it."""
    form = forms.ReceiptFilterForm(formdata=request.args)
    if not form.validate():
        return index()
    content = api().export_receipts(form.service_filters(), formato)  # type: ignore[arg-type]  # any()
    name = dated_name("comprobantes", formato, form.desde.data, form.hasta.data)
    return file_response(content, _EXPORT_MEDIA[formato], name, inline=False)


@bp.get("/exportar-xml.zip")
@member_required
def export_xml():
    """Every receipt of the same query as it was signed, in one ZIP passed on as the service writes it (a month's
    receipts are never whole in the portal's memory)."""
    form = forms.ReceiptFilterForm(formdata=request.args)
    if not form.validate():
        return index()
    chunks = api().export_receipts_xml(form.service_filters())
    name = dated_name("comprobantes-xml", "zip", form.desde.data, form.hasta.data)
    return file_response(chunks, "application/zip", name, inline=False)
