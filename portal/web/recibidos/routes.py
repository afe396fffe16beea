"""Comprobantes recibidos: the list (filters, totals, CSV, upload by drag and drop or a file input), one received
CFE's page (PDF, lines, totals, supplier, our answers) and what the company does with it (accept, reject with a
commercial motive, book)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from flask import flash, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user

from portal.client.errors import Conflict, ServiceUnavailable, ValidationError
from portal.client.recibidos import BOOK_MANY_LIMIT, EnvelopeFile, EnvelopeResult, ReceivedFilters
from portal.domain import roles
from portal.domain.digits import ascii_number
from portal.web.auth.session import member_required, writer_required
from portal.web.backend import api
from portal.web.comprobantes.choices import type_name
from portal.web.files import dated_name, file_response
from portal.web.forms_common import apply_service_errors
from portal.web.recibidos import bp
from portal.web.recibidos import rejections as _rejections  # noqa: F401 - registers its views on bp
from portal.web.recibidos.forms import (
    ANSWER_STATES,
    ReceivedFilterForm,
    RejectForm,
    UploadForm,
    list_filters,
    motive_label,
    motive_recorded,
)
from portal.web.rendering import redirect_after_post, render

INDEX = "recibidos/index.html"
DETAIL = "recibidos/detail.html"
BOOK_MATCHING = "recibidos/book_matching.html"
UNRECEIVED = "recibidos/unreceived.html"


def _list(form: ReceivedFilterForm, upload: UploadForm | None = None, *, status: int = 200):
    page = None
    if form.validate():
        try:
            page = api().list_received(form.service_filters(), cursor=form.cursor.data or None)
        except ValidationError as exc:
            apply_service_errors(form, exc, ReceivedFilterForm.SERVICE_FIELDS)
    args: dict[str, Any] = {k: v for k, v in request.args.items() if k != "cursor" and v}
    return render(
        INDEX,
        "results",
        status=status,
        form=form,
        upload=upload or UploadForm(),
        page=page,
        can_write=current_user.role in roles.WRITERS,
        type_name=type_name,
        csv_url=url_for("recibidos.csv", **args),
        xml_url=url_for("recibidos.xml_zip", **args),
        book_url=url_for("recibidos.book_many", **args),
        book_matching_url=url_for("recibidos.book_matching", **args),
        reject_question_url=url_for("recibidos.reject_many_question", **args),
        next_url=url_for("recibidos.index", **args, cursor=page.next_cursor) if page and page.next_cursor else None,
    )


@bp.get("/")
@member_required
def index():
    """The company's received CFEs, newest first, with the filters of the issued list."""
    return _list(ReceivedFilterForm(request.args))


@bp.get("/recibidos.csv")
@member_required
def csv():
    """Every received CFE that matches the filters, for a spreadsheet."""
    return _download(api().received_csv, "text/csv", "recibidos", "csv")


@bp.get("/recibidos-xml.zip")
@member_required
def xml_zip():
    """Every received CFE that matches the filters, its signed XML as the supplier sent it, in one ZIP (what the
    company keeps for DGI), passed on as the service writes it."""
    return _download(api().received_xml_zip, "application/zip", "recibidos-xml", "zip")


def _download(fetch: Callable[[ReceivedFilters], bytes | Iterator[bytes]], mimetype: str, stem: str, extension: str):
    """A file of the list's filters, named by the days they cover; filters the service refuses (typed into the
    address) are the list's page with each one's error, not a file."""
    form = ReceivedFilterForm(request.args)
    if not form.validate():
        return _list(form, status=422)
    try:
        content = fetch(form.service_filters())
    except ValidationError:
        return _list(form, status=422)  # asks again, and puts the service's errors beside the filters
    return file_response(content, mimetype, dated_name(stem, extension, form.desde.data, form.hasta.data), inline=False)


@bp.get("/correos-no-recibidos")
@member_required
def unreceived_mail():
    """The exchange mailbox's messages of the last 30 days that were read and set aside: whom to ask again."""
    return render(UNRECEIVED, mail=api().unreceived_mail())


@bp.post("/subir")
@writer_required
def upload():
    """Receive envelope files a supplier sent some other way (XML, or a ZIP of them)."""
    form = UploadForm()
    filters = ReceivedFilterForm(request.args)
    files = tuple(EnvelopeFile(f.filename or "sobre.xml", f.read()) for f in request.files.getlist("archivos") if f)
    if not form.validate() or not files:
        if not form.archivos.errors:
            form.archivos.errors = [_("Elegí uno o más archivos.")]
        return _list(filters, form, status=422)
    try:
        results = api().upload_envelopes(files)
    except ValidationError as exc:
        apply_service_errors(form, exc, {"files": "archivos", "*": "archivos"})
        return _list(filters, form, status=422)
    except ServiceUnavailable as exc:
        if exc.code != "servicio_ocupado":
            raise
        form.archivos.errors = [exc.message]  # which file it reached, and that none of the upload was received
        return _list(filters, form, status=503)
    for result in results:
        flash(*_outcome(result))
    return redirect_after_post("recibidos.index")


def _outcome(result: EnvelopeResult) -> tuple[str, str]:
    """What the person is told about one uploaded envelope, with whether the supplier gets our answer: an envelope
    too broken to say who sent it, or from a sender DGI's directory gives no exchange address, is answered to no
    one (the service keeps the answer)."""
    said: dict[str, object] = {"file": result.filename, "rut": result.supplier_rut}
    if result.state == "AS":
        said |= {"ok": result.accepted, "bad": result.rejected}
        if result.supplier_answered:
            text = _("%(file)s: recibido, %(ok)d aceptado(s) y %(bad)d rechazado(s); se le responde al proveedor.")
            return text % said, "success"
        text = _(
            "%(file)s: recibido, %(ok)d aceptado(s) y %(bad)d rechazado(s); DGI no lista un servicio web ni un "
            "correo de intercambio de %(rut)s, así que la respuesta no se le envía: se puede descargar en cada "
            "comprobante."
        )
        return text % said, "warning"
    # Each detail is a sentence of its own; inside the parentheses it goes without its final period.
    said["reasons"] = "; ".join(
        f"{m.code} {m.text}" + (f": {m.detail.rstrip('.')}" if m.detail else "") for m in result.motives
    )
    if result.supplier_answered:
        text = _("%(file)s: rechazado (%(reasons)s); se le avisa al proveedor.")
    elif result.supplier_rut is None:
        text = _(
            "%(file)s: rechazado (%(reasons)s): no se pudo saber quién lo envió, así que nadie recibe la respuesta."
        )
    else:
        text = _(
            "%(file)s: rechazado (%(reasons)s); DGI no lista un servicio web ni un correo de intercambio de %(rut)s, "
            "así que nadie recibe la respuesta."
        )
    return text % said, "error"


def _detail(received_id: int, reject: RejectForm | None = None, *, status: int = 200):
    detail = api().get_received(received_id)
    return render(
        DETAIL,
        status=status,
        detail=detail,
        cfe=detail.cfe,
        reject=reject or RejectForm(formdata=None),
        motive_label=motive_label,
        motive_recorded=motive_recorded,
        answer_states=ANSWER_STATES,
        type_name=type_name,
        can_write=current_user.role in roles.WRITERS,
    )


@bp.get("/<int:received_id>")
@member_required
def detail(received_id: int):
    """One received CFE: supplier, lines, totals, our answers and their times."""
    return _detail(received_id)


@bp.get("/<int:received_id>/pdf")
@member_required
def pdf(received_id: int):
    """The printed representation, made from the supplier's signed XML."""
    try:
        document = api().received_pdf(received_id)
    except ValidationError as exc:  # rejected on arrival: nothing valid to print (the page offers no link)
        flash(next(iter(exc.field_messages().values()), exc.message), "error")
        return redirect_after_post("recibidos.detail", received_id=received_id)
    return file_response(document, "application/pdf", f"recibido-{received_id}.pdf", inline=True)


@bp.get("/<int:received_id>/xml")
@member_required
def xml(received_id: int):
    """The signed CFE as the supplier sent it."""
    return file_response(
        api().received_xml(received_id), "application/xml", f"recibido-{received_id}.xml", inline=False
    )


@bp.get("/<int:received_id>/respuestas/<int:answer_id>")
@member_required
def answer(received_id: int, answer_id: int):
    """One of our signed answers, to keep or to send by hand when no channel to the supplier is known."""
    document = api().received_answer_xml(received_id, answer_id)
    return file_response(document, "application/xml", f"respuesta-{answer_id}.xml", inline=False)


@bp.post("/<int:received_id>/aceptar")
@writer_required
def accept(received_id: int):
    """Accept it, and tell the supplier (ACKCFE AE)."""
    try:
        api().accept_received(received_id)
        flash(_("Aceptaste el comprobante; se le avisa al proveedor."), "success")
    except Conflict as exc:
        flash(exc.message, "error")
    return redirect_after_post("recibidos.detail", received_id=received_id)


@bp.post("/<int:received_id>/rechazar")
@writer_required
def reject(received_id: int):
    """Reject it with a commercial motive, and tell the supplier (a second ACKCFE, BE)."""
    form = RejectForm()
    if not form.validate():
        return _detail(received_id, form, status=422)
    try:
        api().reject_received(received_id, form.motivo.data, (form.detalle.data or "").strip() or None)
        flash(
            _("Rechazaste el comprobante; se le avisa al proveedor, que debe emitir la nota que lo corrija."), "success"
        )
    except ValidationError as exc:
        apply_service_errors(form, exc, RejectForm.SERVICE_FIELDS)
        return _detail(received_id, form, status=422)
    except Conflict as exc:  # said in the form's summary, beside the button pressed, with the motive kept
        form.form_errors = [*form.form_errors, exc.message]
        return _detail(received_id, form, status=409)
    return redirect_after_post("recibidos.detail", received_id=received_id)


@bp.post("/contabilizar")
@writer_required
def book_many():
    """Mark the received CFEs chosen in the list as booked, and go back to the list as it was filtered."""
    back = list_filters()
    chosen = tuple(n for n in map(ascii_number, request.form.getlist("ids")) if n is not None)
    if not chosen:
        flash(_("Elegí al menos un comprobante para marcar como contabilizado."), "error")
        return redirect_after_post("recibidos.index", **back)
    try:
        done = api().book_many_received(chosen[:BOOK_MANY_LIMIT])
    except ValidationError as exc:
        flash(exc.message, "error")
        return redirect_after_post("recibidos.index", **back)
    if done.booked:
        count = len(done.booked)
        flash(
            ngettext(
                "Marcaste %(num)d comprobante como contabilizado.",
                "Marcaste %(num)d comprobantes como contabilizados.",
                count,
            ),
            "success",
        )
    for refused in done.not_bookable:
        which = f"{type_name(refused.tipo_cfe) if refused.tipo_cfe else _('Documento')} {refused.number}"
        flash(_("No se marcó %(cfe)s: %(why)s", cfe=which, why=refused.message), "error")
    if done.missing:
        flash(_("Algunos comprobantes elegidos ya no existen en la empresa."), "error")
    return redirect_after_post("recibidos.index", **back)


@bp.route("/contabilizar-filtrados", methods=["GET", "POST"])
@writer_required
def book_matching():
    """Mark as booked every received CFE the list's filters match, on every page, once asked (GET: the question on
    its own page, for a browser without script; with script the list asks in a dialog and posts here)."""
    form, back = ReceivedFilterForm(request.args), list_filters()
    if not form.validate():
        return _list(form, status=422)
    if request.method == "GET":
        try:
            page = api().list_received(form.service_filters(), limit=1)
        except ValidationError:
            return _list(form, status=422)  # asks again, and puts the service's errors beside the filters
        if not page.unbooked:
            flash(_("No queda ninguno sin contabilizar con estos filtros."), "success")
            return redirect_after_post("recibidos.index", **back)
        return render(
            BOOK_MATCHING,
            count=page.unbooked,
            up_to=page.unbooked_up_to,
            action=url_for("recibidos.book_matching", **back),
            back=url_for("recibidos.index", **back),
        )
    up_to = ascii_number(request.form.get("hasta"))
    if up_to is None:  # the count's bound, written by the page: only a hand can take it out
        flash(_("Volvé a abrir la página y enviá el formulario de nuevo."), "error")
        return redirect_after_post("recibidos.index", **back)
    try:
        done = api().book_received_matching(form.service_filters(), up_to)
    except ValidationError as exc:
        flash(exc.message, "error")
        return redirect_after_post("recibidos.index", **back)
    if done.booked:
        flash(
            ngettext(
                "Marcaste %(num)d comprobante como contabilizado.",
                "Marcaste %(num)d comprobantes como contabilizados.",
                done.booked,
            ),
            "success",
        )
    else:
        flash(_("No queda ninguno sin contabilizar con estos filtros."), "success")
    if done.left:
        flash(
            ngettext(
                "Queda %(num)d sin marcar: eran muchos para una sola vez; volvé a marcarlo.",
                "Quedan %(num)d sin marcar: eran muchos para una sola vez; volvé a marcarlos.",
                done.left,
            ),
            "error",
        )
    return redirect_after_post("recibidos.index", **back)


@bp.post("/<int:received_id>/contabilizar")
@writer_required
def book(received_id: int):
    """Mark it as booked (or, with `deshacer`, not booked)."""
    try:
        if request.form.get("deshacer"):
            api().unbook_received(received_id)
        else:
            api().book_received(received_id)
    except Conflict as exc:
        flash(exc.message, "error")
    return redirect_after_post("recibidos.detail", received_id=received_id)
