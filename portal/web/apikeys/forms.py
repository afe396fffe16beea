"""Forms of the API keys page. The service validates again; its field errors map back onto these."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange

MAX_LIMIT = 100_000
MAX_WINDOW_SECONDS = 86_400


def _strip(value):
    return value.strip() if isinstance(value, str) else value


class _Integer(IntegerField):
    """An integer field whose messages are ours (Spanish first), and blank is "missing", not "not a number"."""

    def process_formdata(self, valuelist):
        if valuelist and not str(valuelist[0]).strip():
            self.data = None
            return
        try:
            super().process_formdata(valuelist)
        except ValueError as exc:
            raise ValueError(_("Tiene que ser un número entero.")) from exc


class _LimitFields:
    limite = _Integer(
        _l("Solicitudes"),
        default=600,
        validators=[
            InputRequired(_l("Indicá cuántas solicitudes.")),
            NumberRange(1, MAX_LIMIT, _l("Entre %(min)s y %(max)s.")),
        ],
    )
    ventana = _Integer(
        _l("Segundos"),
        default=60,
        validators=[
            InputRequired(_l("Indicá la ventana en segundos.")),
            NumberRange(1, MAX_WINDOW_SECONDS, _l("Entre %(min)s y %(max)s segundos.")),
        ],
    )

    # The service's names for these fields (also inside the create body's rateLimit).
    SERVICE_FIELDS = {
        "limite": "limite",
        "ventanaSegundos": "ventana",
        "rateLimit.limite": "limite",
        "rateLimit.ventanaSegundos": "ventana",
        "nombre": "nombre",
    }

    def apply_service_errors(self, messages: dict[str, str]) -> bool:
        """Put the service's field errors next to our fields; False if none of them was ours."""
        placed = False
        for path, message in messages.items():
            name = self.SERVICE_FIELDS.get(path)
            if name and name in self._fields:
                self._fields[name].errors = [*self._fields[name].errors, message]
                placed = True
        return placed


class CreateKeyForm(_LimitFields, FlaskForm):
    nombre = StringField(
        _l("Nombre"),
        filters=[_strip],
        validators=[
            InputRequired(_l("Poné un nombre para reconocer la clave.")),
            Length(max=80, message=_l("Máximo %(max)d caracteres.")),
        ],
    )


class RateLimitForm(_LimitFields, FlaskForm):
    """One per row: build it with prefix=<key id> so each row's fields have their own ids."""
