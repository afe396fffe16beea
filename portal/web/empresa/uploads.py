"""Signing certificates and DGI's CAE files, uploaded by admins, and the audit of every change."""

from __future__ import annotations

from flask import flash, request
from flask_babel import gettext as _

from portal.client.errors import Conflict, NotFound
from portal.web import paging
from portal.web.auth.session import admin_required, reader_required
from portal.web.backend import api
from portal.web.empresa import bp
from portal.web.empresa.audit_view import audit_rows
from portal.web.empresa.forms import CFC_LABELS, CaeForm, CertificateForm, ContingencyBookForm, VoidPaperForm
from portal.web.empresa.views import REFUSALS
from portal.web.forms_common import apply_service_errors
from portal.web.i18n import day
from portal.web.rendering import redirect_after_post, render
from portal.web.upload_limits import checks_file_sizes


def _status() -> int:
    return 422 if request.method == "POST" else 200


@bp.route("/certificados", methods=["GET", "POST"])
@checks_file_sizes
@admin_required
def certificates():
    """The company's signing certificates with their days left, and a form to upload a new one."""
    form = CertificateForm()
    if form.validate_on_submit():
        try:
            cert = api().upload_certificate(
                form.archivo.data.read(), form.password.data or "", form.nombre.data or None
            )
        except REFUSALS as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(
                _(
                    "Cargaste el certificado «%(name)s»: vence el %(date)s.",
                    name=cert.name,
                    date=day(cert.valid_to),
                ),
                "success",
            )
            return redirect_after_post("empresa.certificates")
    # The password never goes back to the browser, not even after a refusal.
    form.password.data = ""
    return render("empresa/certificates.html", form=form, certificates=api().list_certificates(), status=_status())


@bp.route("/certificados/<int:certificate_id>/baja", methods=["GET", "POST"])
@admin_required
def retire_certificate(certificate_id: int):
    """Retire a certificate once asked (GET: the question on a page of its own, without script; the list asks in a
    dialog); the service refuses the only one in force, and says why."""
    if request.method == "GET":
        found = next((c for c in api().list_certificates() if c.id == certificate_id), None)
        if found is None:
            raise NotFound(_("La empresa no tiene ese certificado."), status=404)
        return render("empresa/certificate_retire.html", certificate=found)
    try:
        retired = api().retire_certificate(certificate_id)
    except REFUSALS as exc:
        flash(exc.message, "error")
    else:
        flash(_("Diste de baja el certificado «%(name)s»: no firma más.", name=retired.name), "success")
    return redirect_after_post("empresa.certificates")


@bp.route("/cae", methods=["GET", "POST"])
@checks_file_sizes
@admin_required
def cae():
    """The company's CAE ranges with the numbers left and their expiry, and a form to upload DGI's file."""
    form = CaeForm()
    if form.validate_on_submit():
        try:
            uploaded = api().upload_cae(form.archivo.data.read())
        except REFUSALS as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            found = uploaded.range
            message = (
                _("Cargaste el CAE %(cae)s: tipo %(type)s, serie %(serie)s, números %(first)s a %(last)s.")
                if uploaded.created
                else _("Ese CAE ya estaba cargado (%(cae)s, serie %(serie)s).")
            )
            flash(
                message
                % {
                    "cae": found.cae_id,
                    "type": found.cfe_type,
                    "serie": found.serie,
                    "first": found.first,
                    "last": found.last,
                },
                "success",
            )
            return redirect_after_post("empresa.cae")
    return render("empresa/cae.html", form=form, ranges=api().list_cae_ranges(), status=_status())


@bp.get("/auditoria")
@reader_required  # support reads it too (as the service lets it), from its own item of the navigation
def audit():
    """Every change to the company's settings: who, when, what, before and after."""
    paged = paging.load("empresa.audit", lambda cursor: api().list_audit(cursor=cursor))
    return render("empresa/audit.html", paged=paged, audit_rows=audit_rows)


# A Conflict that belongs next to the authorisation number: another book's, or an electronic CAE's.
_ANOTHER_BOOKS_AUTHORISATION = "libreta_autorizacion_repetida"


@bp.route("/contingencia", methods=["GET", "POST"])
@admin_required
def contingency():
    """The printed contingency books (CFC) DGI authorised, and a form to register one."""
    form = ContingencyBookForm()
    if form.validate_on_submit():
        try:
            book = api().register_contingency_book(
                cfe_type=int(form.tipo_cfe.data),
                serie=form.serie.data,
                first=int(form.desde.data),
                last=int(form.hasta.data),
                cae_id=form.cae_id.data,
                authorised_on=form.fecha_autorizacion.data,
                expires_on=form.vencimiento.data,
            )
        except REFUSALS as exc:
            if isinstance(exc, Conflict) and exc.code == _ANOTHER_BOOKS_AUTHORISATION:
                form.cae_id.errors = [*form.cae_id.errors, exc.message]
            else:
                apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(
                _(
                    "Registraste la libreta %(type)s serie %(serie)s, números %(first)s a %(last)s.",
                    type=book.cfe_type,
                    serie=book.serie,
                    first=book.first,
                    last=book.last,
                ),
                "success",
            )
            return redirect_after_post("empresa.contingency")
    return _contingency_page(form, VoidPaperForm(formdata=None, prefix="anular"))


def _contingency_page(form: ContingencyBookForm, void_form: VoidPaperForm):
    books = api().list_contingency_books()
    void_form.offer_books(books, CFC_LABELS)
    return render(
        "empresa/contingency.html",
        form=form,
        void_form=void_form,
        books=books,
        labels=CFC_LABELS,
        status=_status(),
    )


@bp.route("/contingencia/<int:book_id>/borrar", methods=["GET", "POST"])
@admin_required
def remove_contingency_book(book_id: int):
    """Remove a book registered by mistake once asked (GET: the question on a page of its own, without script; the
    list asks in a dialog); the service refuses one already used, and says why."""
    found = next((b for b in api().list_contingency_books() if b.id == book_id), None)
    if found is None:
        raise NotFound(_("La empresa no tiene esa libreta de contingencia."), status=404)
    if request.method == "GET":
        return render("empresa/contingency_remove.html", book=found, labels=CFC_LABELS)
    try:
        api().remove_contingency_book(book_id)
    except REFUSALS as exc:
        flash(exc.message, "error")
    else:
        flash(
            _("Borraste la libreta %(book)s: registrala de nuevo como la autorizó DGI.", book=_book_name(found)),
            "success",
        )
    return redirect_after_post("empresa.contingency")


def _book_name(book) -> str:
    return f"{CFC_LABELS.get(book.cfe_type, book.cfe_type)} {book.serie} {book.first}–{book.last}"


@bp.post("/contingencia/anular")
@admin_required
def void_paper_numbers():
    """Void unused paper numbers of a book, as a CAE range's unused numbers are voided."""
    void_form = VoidPaperForm(prefix="anular")
    void_form.offer_books(api().list_contingency_books(), CFC_LABELS)
    if void_form.validate():
        first, last = int(void_form.desde.data), int(void_form.hasta.data)
        try:
            api().void_contingency_numbers(void_form.libreta.data, first=first, last=last, reason=void_form.motivo.data)
        except REFUSALS as exc:
            apply_service_errors(void_form, exc, void_form.SERVICE_FIELDS)
        else:
            book = void_form.chosen_book()
            if first == last:
                done = _("Anulaste el número %(number)s de la libreta %(book)s.", number=first, book=book)
            else:
                done = _(
                    "Anulaste los números %(first)s a %(last)s de la libreta %(book)s.",
                    first=first,
                    last=last,
                    book=book,
                )
            flash(done, "success")
            return redirect_after_post("empresa.contingency")
    return _contingency_page(ContingencyBookForm(formdata=None), void_form)
