"""The empresa area (admins; support reads the audit alone): fiscal settings, branches and logo here;
certificates, CAE files and the audit in uploads.py. Every form posts to its own page: 422 keeps the input,
success is a 303."""

from __future__ import annotations

from flask import Response, flash, request
from flask_babel import gettext as _
from flask_login import current_user

from portal.client.empresa import Branch, FiscalSettings
from portal.client.errors import NotFound
from portal.domain import roles
from portal.web.auth.session import admin_required
from portal.web.backend import api
from portal.web.empresa import bp
from portal.web.empresa import mail as _mail  # noqa: F401 - registers its views on bp
from portal.web.empresa import people as _people  # noqa: F401 - registers its views on bp
from portal.web.empresa import uploads as _uploads  # noqa: F401 - registers its views on bp
from portal.web.empresa.forms import BranchForm, LogoForm, SettingsForm
from portal.web.empresa.views import REFUSALS, TABS, count
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import redirect_after_post, render
from portal.web.upload_limits import checks_file_sizes

__all__ = ["bp"]


@bp.context_processor
def _area_context():
    return {
        # The tabs lead to the settings, admins' pages: support, who reads only the audit, gets none.
        "empresa_tabs": TABS if current_user.is_authenticated and current_user.role in roles.ADMINS else (),
        "count": count,
    }


def _status() -> int:
    return 422 if request.method == "POST" else 200


@bp.route("/", methods=["GET", "POST"])
@admin_required
def settings():
    """Regime, legends, IVA al día, verification URL and paper: the data printed on every receipt."""
    current = api().get_fiscal_settings()
    form = (
        SettingsForm()
        if request.method == "POST"
        else SettingsForm(
            formdata=None,
            data={
                "regimen": current.regime,
                "norma": current.exemption_norm,
                "resolucion": current.resolution,
                "fecha_emisor": current.issuer_since,
                "iva_al_dia": current.iva_al_dia,
                "url_verificacion": current.verification_url,
                "formato_papel": current.paper,
            },
        )
    )
    if form.validate_on_submit():
        try:
            api().update_fiscal_settings(
                FiscalSettings(
                    regime=form.regimen.data,
                    exemption_norm=form.norma.data or None,
                    resolution=form.resolucion.data or None,
                    issuer_since=form.fecha_emisor.data,
                    iva_al_dia=form.iva_al_dia.data,
                    verification_url=form.url_verificacion.data or None,
                    paper=form.formato_papel.data,
                )
            )
        except REFUSALS as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Guardaste los datos fiscales: valen para los comprobantes que emitas desde ahora."), "success")
            return redirect_after_post("empresa.settings")
    return render("empresa/settings.html", form=form, current=current, status=_status())


def _branch_from(form: BranchForm) -> Branch:
    return Branch(
        code=int(form.codigo.data),
        name=form.nombre.data,
        address=form.domicilio.data,
        city=form.ciudad.data,
        department=form.departamento.data,
        default=form.predeterminada.data,
    )


@bp.route("/sucursales", methods=["GET", "POST"])
@admin_required
def branches():
    """The company's DGI branches, and a form to add one."""
    form = BranchForm() if request.method == "POST" else BranchForm(formdata=None)
    if form.validate_on_submit():
        try:
            created = api().create_branch(_branch_from(form))
        except REFUSALS as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Agregaste la sucursal %(code)s «%(name)s».", code=created.code, name=created.name), "success")
            return redirect_after_post("empresa.branches")
    return render("empresa/branches.html", form=form, branches=api().list_branches(), status=_status())


@bp.route("/sucursales/<int:branch_id>", methods=["GET", "POST"])
@admin_required
def branch(branch_id: int):
    """Change one branch (another company's id is a 404, as the service says)."""
    found = next((b for b in api().list_branches() if b.id == branch_id), None)
    if found is None:
        raise NotFound(_("No existe esa sucursal."), status=404)
    form = (
        BranchForm()
        if request.method == "POST"
        else BranchForm(
            formdata=None,
            data={
                "codigo": str(found.code),
                "nombre": found.name,
                "domicilio": found.address,
                "ciudad": found.city,
                "departamento": found.department,
                "predeterminada": found.default,
            },
        )
    )
    if form.validate_on_submit():
        try:
            api().update_branch(branch_id, _branch_from(form))
        except REFUSALS as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Guardaste la sucursal %(code)s.", code=form.codigo.data), "success")
            return redirect_after_post("empresa.branches")
    return render("empresa/branch.html", form=form, branch=found, status=_status())


@bp.post("/sucursales/<int:branch_id>/baja")
@admin_required
def retire_branch(branch_id: int):
    """Retire a branch (the service refuses the default one, and says so)."""
    try:
        retired = api().retire_branch(branch_id)
    except REFUSALS as exc:
        flash(exc.message, "error")
        return redirect_after_post("empresa.branch", branch_id=branch_id)
    flash(
        _(
            "Diste de baja la sucursal %(code)s «%(name)s»: no se emite más desde ella.",
            code=retired.code,
            name=retired.name,
        ),
        "success",
    )
    return redirect_after_post("empresa.branches")


@bp.route("/logo", methods=["GET", "POST"])
@checks_file_sizes
@admin_required
def logo():
    """The logo printed on receipts: see it, replace it."""
    form = LogoForm()
    if form.validate_on_submit():
        upload = form.archivo.data
        try:
            # By its name, not the browser's guess (some send octet-stream); the service decodes it anyway.
            is_png = (upload.filename or "").lower().endswith(".png")
            api().upload_logo(upload.read(), "image/png" if is_png else "image/jpeg")
        except REFUSALS as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Cargaste el logo: se imprime desde el próximo comprobante."), "success")
            return redirect_after_post("empresa.logo")
    return render("empresa/logo.html", form=form, current=api().get_fiscal_settings().logo, status=_status())


@bp.post("/logo/quitar")
@admin_required
def remove_logo():
    """Receipts print without a logo from now on."""
    api().delete_logo()
    flash(_("Quitaste el logo."), "success")
    return redirect_after_post("empresa.logo")


@bp.get("/logo/imagen")
@admin_required
def logo_image():
    """The logo as the service has it, for the page's preview."""
    content, mimetype = api().get_logo()
    response = Response(content, mimetype=mimetype)
    response.headers["Cache-Control"] = "private, no-cache"
    return response
