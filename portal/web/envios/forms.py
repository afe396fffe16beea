"""The admin's form to void unused numbers of a CAE (the service voids the next ones of that type and serie)."""

from __future__ import annotations

import uuid

from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, HiddenField, SelectField, StringField
from wtforms.validators import DataRequired, Length, NumberRange, Optional, Regexp

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.uruguay_time import today_montevideo
from portal.web.comprobantes.choices import TYPE_NAMES, options
from portal.web.forms_common import DayField, NumberField, PortalForm

# The types whose numbers the service can void (its AnulacionSolicitud.tipoCFE): every supported type.
VOIDABLE_TYPES = tuple(CFE_TYPES)


class VoidForm(PortalForm):
    """The idempotency key is made when the form is shown: a double click or a browser retry voids once."""

    idempotency_key = HiddenField(default=lambda: uuid.uuid4().hex, validators=[DataRequired(), Length(max=64)])
    tipo_cfe = SelectField(
        _l("Tipo de comprobante"),
        coerce=int,
        default=101,
        choices=options([(code, TYPE_NAMES[code]) for code in VOIDABLE_TYPES]),
    )
    serie = StringField(
        _l("Serie"),
        filters=[lambda v: (v or "").strip().upper() or None],
        validators=[Optional(), Regexp(r"^[A-Z]{1,2}$", message=_l("Una o dos letras."))],
    )
    cantidad = NumberField(
        _l("Cantidad de números"),
        whole=True,
        validators=[Optional(), NumberRange(min=1, max=1_000_000, message=_l("Entre 1 y 1.000.000."))],
    )
    motivo = StringField(
        _l("Motivo"),
        validators=[
            DataRequired(message=_l("Indicá el motivo.")),
            Length(min=3, max=200, message=_l("Entre 3 y 200 caracteres.")),
        ],
    )
    confirmar = BooleanField(
        _l("Entiendo que esos números no se podrán usar nunca."),
        validators=[DataRequired(message=_l("Confirmá que querés anularlos."))],
    )

    def request(self) -> dict:
        """What the service is asked for (portal.client.envios.EnviosApi.void_numbers)."""
        return {
            "tipo_cfe": self.tipo_cfe.data,
            "serie": self.serie.data,
            "count": self.cantidad.data,
            "reason": self.motivo.data.strip(),
            "idempotency_key": self.idempotency_key.data,
        }


class ReportForm(PortalForm):
    """Send a day's report now (after a rejection, or before the nightly run)."""

    fecha = DayField(_l("Día"), default=today_montevideo, validators=[DataRequired(message=_l("Indicá el día."))])
