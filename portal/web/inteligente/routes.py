"""Views of smart issuance: the guided flow (input -> preview -> confirm -> result) for the roles that issue,
and the request status page for every role (support staff above all)."""

from __future__ import annotations

import re

from flask import Blueprint, abort, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from portal.client.errors import CfeError, Conflict, NotFound, ValidationError
from portal.client.inteligente import SmartRequest
from portal.domain import roles
from portal.domain.identifiers import digits_only
from portal.web import activity
from portal.web.auth.session import member_required, writer_required
from portal.web.backend import api
from portal.web.comprobantes import catalogue
from portal.web.comprobantes.choices import type_name
from portal.web.comprobantes.setup_fixes import fix_for
from portal.web.files import file_response
from portal.web.forms_common import apply_service_errors, typed_data
from portal.web.i18n import decimal_mark
from portal.web.inteligente import flow, presenters
from portal.web.inteligente.forms import RequestSearchForm, SmartForm
from portal.web.inteligente.payload import classify_document, to_request
from portal.web.paging import paged_view, requested_cursor
from portal.web.rendering import redirect_after_post, render, wants_fragment

bp = Blueprint("inteligente", __name__, url_prefix="/inteligente")
STEP1, STEP2, RESULT, STATUS = (
    "inteligente/new.html",
    "inteligente/review.html",
    "inteligente/result.html",
    "inteligente/status.html",
)
# Refusals of a confirmation after which previewing again (same input) is the way forward.
REPREVIEW_CODES = ("solicitud_vencida", "borrador_modificado")
REQUEST_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
PAGE_SIZE = 20


@bp.get("/")
@member_required
def index():
    """The area's entry: the flow for the roles that issue, the status lookup for support."""
    return redirect(url_for("inteligente.new" if current_user.role in roles.WRITERS else "inteligente.status"))


@bp.get("/nueva")
@writer_required
def new():
    """Step 1, filled with what the user typed earlier in this session (or for preview ?desde=<id>)."""
    return _step1(SmartForm.from_typed(flow.typed(request.args.get("desde"))))


@bp.post("/nueva")
@writer_required
def preview():
    """Step 1 -> 2: the service infers the complete receipt; 422 with the input kept when it cannot."""
    form = SmartForm()
    flow.keep_typed(typed_data(form))
    return _preview_from(form)


@bp.post("/nueva/lineas")
@writer_required
def edit_lines():
    """Adds or removes a line in place, keeping everything typed (without JavaScript: back to step 1)."""
    form = SmartForm.without_line(request.form, request.form.get("quitar", type=int))
    added = request.form.get("accion") == "agregar"
    if added:
        form.add_line()
    flow.keep_typed(typed_data(form))
    if not wants_fragment():
        return redirect(url_for("inteligente.new"), code=303)
    return render(STEP1, "lines", form=form, focus="new" if added else "add")


# What classify_document says -> DGI's document type; this form's fields -> the issuing form's (catalogue).
_CUSTOMER_DOC_TYPES = {"rut": 2, "ci": 3}
_CUSTOMER_FIELDS = {"nombre": "rzn_soc_recep", "moneda": "tpo_moneda", "forma_pago": "fma_pago"}


@bp.get("/nueva/documento")
@writer_required
def document_hint():
    """What the receiver document being typed will make: e-Factura (RUT) or e-Ticket (cédula, nobody); when
    the document is a customer's, its name, currency and payment terms for the fields still empty or default."""
    kind = classify_document(request.args.get("documento"))
    customer = None
    if kind in _CUSTOMER_DOC_TYPES:
        customer = catalogue.find_customer(_CUSTOMER_DOC_TYPES[kind], digits_only(request.args["documento"]))
    return render(
        STEP1,
        "document_hint",
        form=SmartForm.from_typed(flow.typed()),
        kind=kind,
        customer=customer,
        fills=catalogue.customer_fills_for(customer, request.args, _CUSTOMER_FIELDS),
    )


@bp.get("/nueva/<request_id>")
@writer_required
def review(request_id: str):
    """Step 2: the inferred receipt, what was inferred and why, warnings to acknowledge, the PDF."""
    kept = _kept(request_id)
    req = api().smart_request(request_id)
    if req.state == "issued":
        return redirect(url_for("inteligente.result", request_id=request_id))
    if kept.get("replaced_by"):
        return _step2(req, kept, error=_replaced_message())
    return _step2(req, kept)


@bp.get("/nueva/<request_id>/previsualizacion.pdf")
@writer_required
def preview_pdf(request_id: str):
    """The preview's PDF, from the service, for this session's own previews only."""
    kept = _kept(request_id)
    if not kept.get("token"):
        abort(404)
    return file_response(api().preview_by_token(kept["token"]), "application/pdf", "previsualizacion.pdf", inline=True)


@bp.post("/nueva/<request_id>/confirmar")
@writer_required
def confirm(request_id: str):
    """Step 3: issue exactly what was previewed, once (confirming again returns the same receipt)."""
    kept = _kept(request_id)
    accepted = request.form.getlist("aceptadas")
    if kept.get("replaced_by"):
        req = api().smart_request(request_id)
        if req.state == "issued":  # confirmed before it was replaced: that is the outcome
            return redirect_after_post("inteligente.result", request_id=request_id)
        return _step2(req, kept, error=_replaced_message(), status=409)
    try:
        req = api().smart_confirm(request_id, request.form.get("hash") or kept["hash"], accepted)
    except (ValidationError, Conflict) as exc:
        return _refused(request_id, kept, exc, accepted)
    _record_issue(req)
    flow.finish(request_id)
    return redirect_after_post("inteligente.result", request_id=request_id)


@bp.post("/nueva/<request_id>/repetir")
@writer_required
def repeat(request_id: str):
    """Preview again from what was typed (the preview expired or changed); nothing was issued."""
    return _preview_from(SmartForm.from_typed(_kept(request_id)["typed"]))


@bp.get("/nueva/<request_id>/resultado")
@writer_required
def result(request_id: str):
    """The outcome: the receipt with its links, or what happened to the request."""
    req = api().smart_request(request_id)
    return render(
        RESULT, req=req, receipt_url=presenters.receipt_url(req.receipt.id) if req.receipt else None, p=presenters
    )


@bp.get("/solicitudes")
@member_required
def status():
    """The company's requests, newest first, searched and filtered live; an ei_… id (typed or linked) shows
    that request: state, timeline, receipt and DGI state, polling until final."""
    search = RequestSearchForm(request.args)
    if "request_id" in request.args:  # links and the status block's own polling
        return _one_request(search, request.args["request_id"], block="results")
    if search.request_id:
        return _one_request(search, search.request_id, block="listing")
    return _requests(search)


def _one_request(search: RequestSearchForm, request_id: str, *, block: str):
    """One request's status, or the reason it cannot be shown next to the search box (422, 404)."""
    search.q.data = request_id
    if not REQUEST_ID.match(request_id):
        search.q.errors = [_("Ese no es un identificador de solicitud válido.")]
        return render(STATUS, block, search=search, req=None, status=422)
    try:
        req = api().smart_request(request_id)
    except NotFound:
        search.q.errors = [_("No existe esa solicitud en tu empresa.")]
        return render(STATUS, block, search=search, req=None, status=404)
    return render(
        STATUS,
        block,
        search=search,
        req=req,
        p=presenters,
        support=presenters.support_text(req),
        receipt_urls={i: presenters.receipt_url(i) for i in req.receipt_ids},
    )


def _requests(search: RequestSearchForm):
    """A page of the company's requests matching the filters (the URL's cursor says which page)."""
    if not search.validate():
        return render(STATUS, "listing", search=search, page=None, status=422)
    cursor = requested_cursor()
    try:
        page = api().smart_requests(**search.filters(), cursor=cursor, limit=PAGE_SIZE)
    except ValidationError as exc:
        # What fits none of our fields is the page's cursor (an old or hand-edited link).
        loose = apply_service_errors(search, exc, RequestSearchForm.SERVICE_FIELDS)
        problems = [_("No pudimos abrir esa página de la lista.")] if loose else []
        return render(STATUS, "listing", search=search, page=None, problems=problems, status=422)
    paged = paged_view("inteligente.status", page, RequestSearchForm.kept(request.args), cursor)
    return render(STATUS, "listing", search=search, page=page, p=presenters, paged=paged)


def _kept(request_id: str) -> dict:
    """This session's preview, or 404: a request id in a URL is not enough to reach a preview."""
    return flow.preview(request_id) or abort(404)


def _step1(form: SmartForm, *, status: int = 200):
    return render(
        STEP1,
        form=form,
        invalid=status == 422,
        kind=classify_document(form.documento.data),
        status=status,
    )


def _preview_from(form: SmartForm):
    if not form.validate():
        return _step1(form, status=422)
    try:
        req = api().smart_preview(to_request(typed_data(form), decimal_mark()))
    except ValidationError as exc:
        apply_service_errors(form, exc, SmartForm.SERVICE_FIELDS)
        return _step1(form, status=422)
    except NotFound as exc:
        if exc.code != "referencia_no_encontrada":
            raise
        form.ref_id.errors = [*form.ref_id.errors, exc.message]
        return _step1(form, status=422)
    flow.remember_preview(req.id, req.preview_token, req.draft_hash, typed_data(form))
    return redirect(url_for("inteligente.review", request_id=req.id), code=303)


def _replaced_message() -> str:
    return _(
        "Hiciste una previsualización más nueva de esta emisión: esta ya no se puede confirmar y no se "
        "emitió nada. Seguí con la más reciente."
    )


def _step2(
    req: SmartRequest,
    kept: dict,
    *,
    error: str | None = None,
    accepted=(),
    status: int = 200,
    offer_repeat: bool = False,
):
    replaced = kept.get("replaced_by")
    return render(
        STEP2,
        "confirm",
        req=req,
        p=presenters,
        error=error,
        accepted=set(accepted),
        status=status,
        offer_repeat=offer_repeat or req.state == "expired",
        draft_hash=kept["hash"],
        replaced_url=url_for("inteligente.review", request_id=replaced) if replaced else None,
        # A request refused for the company's setup (no CAE, no certificate...) is left failed with that code:
        # the way forward under the refusal, and on any later visit.
        fix=fix_for(req.error_code) if req.state == "failed" else None,
        # What the company's setup lacks to issue this preview now, each with its way forward: said before the
        # confirmation instead of as its refusal.
        blocks=[(block, fix_for(block.code)) for block in req.blocks],
    )


def _refused(request_id: str, kept: dict, exc: CfeError, accepted: list[str]):
    req = api().smart_request(request_id)
    if req.state == "issued":  # issued meanwhile (another tab): that is the outcome
        return redirect_after_post("inteligente.result", request_id=request_id)
    messages = {
        "advertencias_sin_aceptar": _("Marcá «Leí y acepto» en cada advertencia para poder emitir."),
        "solicitud_vencida": _(
            "La previsualización venció (dura 15 minutos) y no se emitió nada. "
            "Previsualizá de nuevo con los mismos datos."
        ),
        "borrador_modificado": _(
            "El comprobante cambió desde que lo previsualizaste y no se emitió nada. Previsualizá de nuevo."
        ),
    }
    return _step2(
        req,
        kept,
        error=messages.get(exc.code, exc.message),
        accepted=accepted,
        status=exc.status or 409,
        offer_repeat=exc.code in REPREVIEW_CODES,
    )


def _record_issue(req: SmartRequest) -> None:
    """One activity entry per receipt, even when the confirmation arrives twice."""
    receipt = req.receipt
    if receipt is None or any(
        a.cfe_id == receipt.id for a in activity.recent(current_user.company.id, action="emision_inteligente", limit=50)
    ):
        return
    activity.record(
        "emision_inteligente",
        cfe_id=receipt.id,
        summary=(
            f"{type_name(receipt.tipo_cfe)} {receipt.number} · {receipt.currency} {receipt.totals.total} · {req.id}"
        ),
    )
