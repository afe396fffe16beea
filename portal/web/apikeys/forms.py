"""Forms of the API keys page. The service validates again; its field errors map back onto these."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import StringField
from wtforms.validators import InputRequired, Length, NumberRange

from portal.web.forms_common import NumberField, NumberRequired, PortalForm

MAX_LIMIT = 100_000
MAX_WINDOW_SECONDS = 86_400


def _strip(value):
    return value.strip() if isinstance(value, str) else value


class _LimitFields:
    limite = NumberField(
        _l("Solicitudes"),
        whole=True,
        default=600,
        validators=[
            NumberRequired(_l("Indicá cuántas solicitudes.")),
            NumberRange(1, MAX_LIMIT, _l("Entre %(min)s y %(max)s.")),
        ],
    )
    ventana = NumberField(
        _l("Segundos"),
        whole=True,
        default=60,
        validators=[
            NumberRequired(_l("Indicá la ventana en segundos.")),
            NumberRange(1, MAX_WINDOW_SECONDS, _l("Entre %(min)s y %(max)s segundos.")),
        ],
    )

    # The service's names for these fields (also inside the create body's rateLimit): apply_service_errors.
    SERVICE_FIELDS = {
        "limite": "limite",
        "ventanaSegundos": "ventana",
        "rateLimit.limite": "limite",
        "rateLimit.ventanaSegundos": "ventana",
        "nombre": "nombre",
    }


class CreateKeyForm(_LimitFields, PortalForm):
    nombre = StringField(
        _l("Nombre"),
        filters=[_strip],
        validators=[
            InputRequired(_l("Poné un nombre para reconocer la clave.")),
            Length(max=80, message=_l("Máximo %(max)d caracteres.")),
        ],
    )


class RateLimitForm(_LimitFields, PortalForm):
    """One per row: build it with prefix=<key id> so each row's fields have their own ids."""
