"""Send a receipt by e-mail from its page (addresses prefilled, the history of sends refreshing itself while
any is waiting), and, in development (no SMTP server), the mailbox where those e-mails land."""

from __future__ import annotations

from flask import Blueprint
from flask_babel import gettext as _
from flask_login import current_user

from portal.client.errors import Conflict, RateLimited, ValidationError
from portal.domain import roles
from portal.web.auth.session import member_required, reader_required, writer_required
from portal.web.backend import api
from portal.web.correo.forms import MAX_RECIPIENTS, SendForm
from portal.web.files import file_response
from portal.web.forms_common import apply_service_errors
from portal.web.rendering import redirect_after_post, render, wants_fragment

bp = Blueprint("correo", __name__, url_prefix="/correo")

PANEL = "correo/panel.html"
MAILBOX = "correo/mailbox.html"


def _panel(receipt_id: str, form: SendForm | None = None, *, status: int = 200, sent=None):
    sends = api().receipt_mail_sends(receipt_id)
    can_send = current_user.role in roles.WRITERS
    if can_send and form is None:
        form = SendForm.fresh(sends.suggested)
    return render(
        PANEL, "panel", status=status, receipt_id=receipt_id, sends=sends, form=form, can_send=can_send, sent=sent
    )


@bp.get("/comprobantes/<receipt_id>")
@member_required
def panel(receipt_id: str):
    """The "Enviar por correo" section of a receipt (loaded into its page; a page of its own without JS)."""
    return _panel(receipt_id)


@bp.post("/comprobantes/<receipt_id>")
@writer_required
def send(receipt_id: str):
    """Queue a send of the receipt's PDF and XML to the addresses typed; the form's one-time key makes a
    second submit of the same form show the first send instead of mailing twice."""
    form = SendForm()
    addresses = form.addresses()
    if form.validate() and len(addresses) > MAX_RECIPIENTS:
        form.destinatarios.errors = [_("Son demasiadas direcciones: hasta %(n)s.", n=MAX_RECIPIENTS)]
    if form.errors or form.destinatarios.errors:
        return _panel(receipt_id, form, status=422)
    try:
        sent = api().send_receipt_by_mail(receipt_id, addresses, idempotency_key=form.clave.data)
    except (ValidationError, RateLimited, Conflict) as exc:
        # A refusal the person can act on (bad addresses, the hourly limit, the same send still in progress
        # after a double click) is said in the form, with what was typed kept, not on an error page.
        apply_service_errors(form, exc, {"destinatarios.*": "destinatarios", "*": "destinatarios"})
        return _panel(receipt_id, form, status=422)
    if not wants_fragment():
        return redirect_after_post("comprobantes.receipt", receipt_id=receipt_id)
    return _panel(receipt_id, SendForm.fresh(sent.recipients), sent=sent)


@bp.get("/comprobantes/<receipt_id>/envios")
@member_required
def history(receipt_id: str):
    """The history of sends alone: what the section polls while a send is waiting."""
    sends = api().receipt_mail_sends(receipt_id)
    return render(PANEL, "history", receipt_id=receipt_id, sends=sends)


@bp.get("/buzon")
@reader_required
def mailbox():
    """Development only (no SMTP server): the e-mails the company's sends produced, newest first."""
    return render(MAILBOX, messages=api().dev_mailbox(), opened=None)


@bp.get("/buzon/<message_id>")
@reader_required
def message(message_id: str):
    """One e-mail of the development mailbox, its text and its attachments to download."""
    return render(MAILBOX, messages=api().dev_mailbox(), opened=api().dev_mailbox_message(message_id))


@bp.get("/buzon/<message_id>/adjuntos/<int:index>")
@reader_required
def attachment(message_id: str, index: int):
    """An attachment as it was sent."""
    download = api().dev_mailbox_attachment(message_id, index)
    return file_response(download.content, download.content_type, download.filename, inline=False)
