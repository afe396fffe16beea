"""Sending a receipt by e-mail as it is issued: the optional "Enviar por correo a" field of an issuing form
and what the issuing view calls once the receipt exists.

The issuing view (comprobantes area) wires it in three lines:

    class ReceiptForm(PortalForm):
        enviar_a = on_issue.recipients_field()                      # the field
    {% include "correo/_on_issue_field.html" %}                     # in the form, with `form` in scope
    on_issue.send_after_issue(receipt, form.enviar_a.data, key=form.idempotency_key.data)   # after issuing

The form's one-time key is reused as the send's Idempotency-Key (the service keeps sends and issues apart),
so the same form sent again neither issues nor mails twice. A send the service refuses never undoes the
issue: the person is told, and the receipt's page offers the send again.
"""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email
from flask import flash
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from wtforms import StringField
from wtforms.validators import Length, Optional
from wtforms.validators import ValidationError as FieldInvalid

from portal.client.errors import ValidationError
from portal.web.backend import api
from portal.web.correo.forms import MAX_RECIPIENTS, split_addresses


def _addresses_look_valid(_form, field) -> None:
    """Syntax only, as the service checks it (no SMTPUTF8, no DNS): a typo is refused before the receipt is
    issued, not after. The service still checks each address again when the send is queued."""
    bad = []
    for address in split_addresses(field.data):
        try:
            validate_email(address, check_deliverability=False, allow_smtputf8=False)
        except EmailNotValidError:
            bad.append(f"«{address}»")
    if bad:
        raise FieldInvalid(
            ngettext(
                "%(addresses)s no es una dirección de correo: revisala (como nombre@empresa.com.uy).",
                "%(addresses)s no son direcciones de correo: revisalas (como nombre@empresa.com.uy).",
                len(bad),
                addresses=", ".join(bad),
            )
        )


def recipients_field() -> StringField:
    return StringField(
        _l("Enviar por correo a"),
        validators=[Optional(), Length(max=2600), _addresses_look_valid],
        description=_l(
            "Opcional: el PDF y el XML salen por correo apenas se emite. Separá varias "
            "direcciones con comas (hasta %(n)s).",
            n=MAX_RECIPIENTS,
        ),
    )


def send_after_issue(receipt, text: str | None, *, key: str) -> None:
    """Queue the e-mail of a receipt just issued to the addresses typed (nothing if none)."""
    addresses = split_addresses(text)
    if not addresses or receipt.replayed:  # a replayed issue already had its send queued the first time
        return
    try:
        sent = api().send_receipt_by_mail(receipt.id, addresses[:MAX_RECIPIENTS], idempotency_key=key)
    except ValidationError as exc:
        flash(
            _(
                "El comprobante se emitió, pero no lo pudimos enviar por correo: %(why)s Revisá las direcciones "
                "en «Enviar por correo», más abajo.",
                why=next(iter(exc.field_messages().values()), exc.message),
            ),
            "warning",
        )
        return
    flash(_("Lo enviamos por correo a %(to)s.", to=", ".join(sent.recipients)), "success")
