"""Sign an XML: upload an unsigned CFE, download it signed with the company's certificate."""

from __future__ import annotations

from flask import request
from flask_babel import gettext as _

from portal.client import errors as client_errors
from portal.web import activity
from portal.web.auth.session import writer_required
from portal.web.backend import api
from portal.web.comprobantes import bp, forms
from portal.web.comprobantes.files import signed_name
from portal.web.files import file_response
from portal.web.rendering import render
from portal.web.upload_limits import checks_file_sizes


@bp.route("/firmar", methods=["GET", "POST"])
@checks_file_sizes
@writer_required
def sign():
    """Upload an unsigned CFE (up to 2 MB) and get it back signed, as a download; errors say where."""
    form = forms.SignXmlForm()
    if not form.validate_on_submit():
        return render("comprobantes/sign.html", form=form, details=[], status=422 if request.method == "POST" else 200)
    upload = form.archivo.data
    try:
        signed = api().sign_xml(upload.read())
    except (client_errors.ValidationError, client_errors.BadRequest, client_errors.Conflict) as exc:
        details = [f"{problem.field}: {problem.message}" for problem in exc.fields]
        form.archivo.errors.append(
            _("El servicio no pudo firmar el archivo.")
            if details
            else _("El servicio no pudo firmar el archivo: %(reason)s", reason=exc.message)
        )
        status = 409 if isinstance(exc, client_errors.Conflict) else 422
        return render("comprobantes/sign.html", form=form, details=details, status=status)
    name = signed_name(upload.filename)
    activity.record("xml_firmado", summary=name)
    return file_response(signed.xml, "application/xml", name, inline=False)
