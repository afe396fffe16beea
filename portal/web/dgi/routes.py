"""Views of the DGI page: the four lookups (RUT, name by document, CVA, entity data), the certificate they
are made with, the as-you-type document check, and "use as receiver".

Lookups change nothing, so each is a GET form whose URL is shareable and pushed to the history: a plain
GET answers the whole page, an htmx request only the lookup block (form and result). Company and
certificate are a POST (they change the session) and are remembered for the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, g, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf import FlaskForm

from portal.client import errors as client_errors
from portal.domain import roles
from portal.domain.identifiers import DocType
from portal.domain.uruguay_time import today_montevideo
from portal.web.auth.session import member_required, safe_next, writer_required
from portal.web.backend import api
from portal.web.dgi import viewmodels as vm
from portal.web.dgi.forms import (
    ContextForm,
    NameForm,
    OperatorContextForm,
    RutForm,
    check_document,
    clean_document,
    document_help,
    format_document,
)
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import render, wants_fragment

bp = Blueprint("dgi", __name__, url_prefix="/dgi")

TEMPLATE = "dgi/index.html"
# (key, tab label, endpoint, what the lookup answers)
TABS = (
    ("rut", _l("RUT"), "dgi.rut", _l("Quién es un RUT: denominación, tipo de entidad y estado.")),
    (
        "nombre",
        _l("Nombre por documento"),
        "dgi.nombre",
        _l("El nombre que DGI registra para una cédula, un NIE o un RUT."),
    ),
    ("cva", _l("CVA"), "dgi.cva", _l("Si el RUT tiene vigente el Certificado Único de DGI (CVA).")),
    (
        "datos",
        _l("Datos de la entidad"),
        "dgi.datos",
        _l("Todo lo que DGI registra de un RUT: domicilio fiscal, contactos y actividades."),
    ),
)
# Service field -> form field; the others (idEmpresa, idCertificado) are about the certificate choice.
Lookup = Callable[[dict[str, int]], Any]


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {
        "DocType": DocType,
        "format_document": format_document,
        "document_help": document_help,
        "check_document": check_document,
        "receiver_url": vm.receiver_url,
        "person_receiver_url": vm.person_receiver_url,
        "can_issue": current_user.is_authenticated and current_user.role in roles.WRITERS,
    }


def _picker() -> vm.Picker:
    if "dgi_picker" not in g:
        g.dgi_picker = vm.build_picker(api().userinfo(), today_montevideo())
    return g.dgi_picker


def _context_form(picker: vm.Picker) -> FlaskForm:
    selected = picker.selected
    if picker.operator:
        current = current_user.company.id if current_user.company else None
        return OperatorContextForm(
            formdata=None,
            idEmpresa=selected.company_id if selected else current,
            idCertificado=selected.certificate_id if selected else None,
        )
    form = ContextForm(formdata=None, contexto=f"{selected.company_id}:{selected.certificate_id}" if selected else "")
    form.contexto.choices = picker.choices()
    return form


def _page(tab: str, form: FlaskForm, *, status: int = 200, context_form: FlaskForm | None = None, **extra):
    """The page on `tab`, or just its lookup block for htmx."""
    _key, label, endpoint, description = next(t for t in TABS if t[0] == tab)
    context = {
        "tab": tab,
        "tabs": TABS,
        "tab_label": label,
        "tab_endpoint": endpoint,
        "tab_description": description,
        "form": form,
        "result": None,
        "problem": None,
        "plain_retry": False,
        **extra,
    }
    if not wants_fragment():
        picker = _picker()
        context.update(picker=picker, context_form=context_form or _context_form(picker))
    return render(TEMPLATE, "lookup", status=status, **context)


def _apply_service_fields(form: FlaskForm, exc: client_errors.ValidationError) -> vm.Problem | None:
    """Put the service's field errors next to the form's fields (the service names them as the forms do);
    the rest are about the company and certificate, and become a Problem."""
    others = apply_service_errors(form, exc)
    if not others:
        return None
    return vm.Problem(
        _("No se puede consultar con ese certificado"),
        _("Elegí otro certificado arriba."),
        fix_context=True,
        request_id=exc.request_id,
        details=tuple(others),
    )


def _lookup(tab: str, form: FlaskForm, call: Lookup, done: Callable[[Any], Any] | None = None):
    """Validate, ask the service as the chosen company and certificate, and show the answer or why not."""
    if not request.args:
        return _page(tab, form)
    if not form.validate():
        return _page(tab, form, status=422)
    chosen = vm.remembered_context() or _picker().selected
    if chosen is None:
        return _page(tab, form, status=422, problem=vm.no_context_problem())
    try:
        result = call({"company_id": chosen.company_id, "certificate_id": chosen.certificate_id})
    except client_errors.ValidationError as exc:
        return _page(tab, form, status=422, problem=_apply_service_fields(form, exc))
    except (client_errors.NotFound, client_errors.Forbidden, client_errors.ServiceUnavailable) as exc:
        problem = vm.problem_for(exc)
        if problem is None:
            raise  # not about this lookup: the portal's own error pages handle it
        # A retry of "use as receiver" ends in a redirect to another page: a plain link, not an htmx swap.
        return _page(tab, form, status=exc.status or 502, problem=problem, plain_retry=done is not None)
    return done(result) if done else _page(tab, form, result=result)


@bp.get("/")
@member_required
@member_required
def index():
    """The DGI page, on the RUT lookup."""
    return _page("rut", RutForm(formdata=None))


@bp.get("/rut")
@member_required
@member_required
def rut():
    """consultaRut: who a RUT is and whether it is active."""
    form = RutForm(formdata=request.args)
    return _lookup("rut", form, lambda ids: api().lookup_rut(clean_document(form.rut.data), **ids))


@bp.get("/nombre")
@member_required
@member_required
def nombre():
    """consultaNombreEntidad: the name registered for a CI, NIE or RUT."""
    form = NameForm(formdata=request.args)
    return _lookup(
        "nombre", form, lambda ids: api().lookup_entity_name(form.tipoDoc.data, clean_document(form.nroDoc.data), **ids)
    )


@bp.get("/cva")
@member_required
@member_required
def cva():
    """consultaCva: the RUT's annual tax-compliance certificate."""
    form = RutForm(formdata=request.args)
    return _lookup("cva", form, lambda ids: api().lookup_cva(clean_document(form.rut.data), **ids))


@bp.get("/datos")
@member_required
@member_required
def datos():
    """consultaDatosEntidad: identity, fiscal address with contacts, and activities of a RUT."""
    form = RutForm(formdata=request.args)
    return _lookup("datos", form, lambda ids: api().lookup_entity_data(clean_document(form.rut.data), **ids))


@bp.get("/receptor")
@member_required
@writer_required
def receptor():
    """Start a receipt to a RUT: its data from DGI, then the receipt form with the receiver filled in."""
    form = RutForm(formdata=request.args)
    return _lookup(
        "rut",
        form,
        lambda ids: api().lookup_entity_data(clean_document(form.rut.data), **ids),
        done=lambda entity: redirect(vm.receiver_url(entity), code=303),
    )


@bp.get("/validar-documento")
@member_required
def validate_document():
    """The hint under a document field, as the user types: the formatted number, or what is wrong."""
    doc_type = request.args.get("tipoDoc", default=int(DocType.RUT), type=int)
    raw = request.args.get("nroDoc", request.args.get("rut", ""))
    verdict = check_document(doc_type, raw) if clean_document(raw) else None
    return render("dgi/_hint.html", verdict=verdict, help=document_help(doc_type))


@bp.post("/contexto")
@member_required
@member_required
def contexto():
    """Remember the company and certificate the lookups are made with (for this session)."""
    picker = _picker()
    back = safe_next(request.form.get("next")) or url_for("dgi.index")
    form: FlaskForm
    if picker.operator:
        form = OperatorContextForm()
        if form.validate():
            if any(c.id == form.idEmpresa.data for c in current_user.companies):
                vm.remember_context(form.idEmpresa.data, form.idCertificado.data)
                return redirect(back, code=303)
            form.idEmpresa.errors.append(_("No pertenecés a esa empresa."))
    else:
        form = ContextForm()
        form.contexto.choices = picker.choices()
        if form.validate():
            if picker.allows(*form.chosen()):
                vm.remember_context(*form.chosen())
                return redirect(back, code=303)
            form.contexto.errors.append(_("Ese certificado está vencido: elegí otro."))
    return _page("rut", RutForm(formdata=None), status=422, context_form=form)
