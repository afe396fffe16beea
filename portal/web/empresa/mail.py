"""The empresa area's page for the e-mail that carries each receipt: its subject and text, in the company's
words, with the receipt's fields as placeholders (the service fills them per receipt)."""

from __future__ import annotations

from flask import flash, request
from flask_babel import gettext as _

from portal.web.auth.session import admin_required
from portal.web.backend import api
from portal.web.empresa import bp
from portal.web.empresa.forms import MailTemplateForm
from portal.web.empresa.views import REFUSALS
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import redirect_after_post, render


@bp.route("/correo", methods=["GET", "POST"])
@admin_required
def mail():
    """The subject and text of the customer's e-mail (in usted by default), with the placeholders to use."""
    current = api().get_mail_template()
    posted = request.method == "POST"
    form = (
        MailTemplateForm()
        if posted
        else MailTemplateForm(formdata=None, data={"asunto": current.subject, "cuerpo": current.body})
    )
    if form.validate_on_submit():
        try:
            api().set_mail_template(subject=form.asunto.data.strip(), body=form.cuerpo.data)
        except REFUSALS as exc:
            apply_service_errors(form, exc, form.SERVICE_FIELDS)
        else:
            flash(_("Guardaste el correo al cliente: sale así desde el próximo comprobante."), "success")
            return redirect_after_post("empresa.mail")
    return render("empresa/mail.html", form=form, current=current, status=422 if posted else 200)
