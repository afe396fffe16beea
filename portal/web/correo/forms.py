"""The "Enviar por correo" form. The service checks each address again; its field errors map back here."""

from __future__ import annotations

import re
import uuid

from flask_babel import lazy_gettext as _l
from wtforms import HiddenField, StringField
from wtforms.validators import InputRequired, Length, Regexp

from portal.web.forms_common import PortalForm

MAX_RECIPIENTS = 10
_SEPARATORS = re.compile(r"[,;\s]+")


def split_addresses(text: str | None) -> list[str]:
    """ "a@x.uy, b@y.uy; c@z.uy" -> three addresses (commas, semicolons, spaces or lines between them)."""
    return [part for part in _SEPARATORS.split(text or "") if part]


class SendForm(PortalForm):
    destinatarios = StringField(
        _l("Direcciones de correo"),
        validators=[
            InputRequired(message=_l("Escribí al menos una dirección de correo del cliente.")),
            Length(max=2600, message=_l("Son demasiadas direcciones: hasta %(n)s.", n=MAX_RECIPIENTS)),
        ],
    )
    # One-time key of this form, sent as the Idempotency-Key: a double click or a second submit of the same
    # form replays the first send instead of mailing the customer twice.
    clave = HiddenField(validators=[InputRequired(), Regexp(r"^[0-9a-f]{32}$")])

    @classmethod
    def fresh(cls, addresses: tuple[str, ...] | list[str]) -> SendForm:
        return cls(formdata=None, data={"destinatarios": ", ".join(addresses), "clave": uuid.uuid4().hex})

    def addresses(self) -> list[str]:
        return split_addresses(self.destinatarios.data)
