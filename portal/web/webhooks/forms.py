"""Forms of the webhooks pages. The service validates again (http(s) only, no internal addresses); its field
errors map back onto these."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import SelectMultipleField, StringField, widgets
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Length, NumberRange

from portal.web.forms_common import NumberField, NumberRequired, PortalForm

# The events a webhook can hear, as people read them (the service's names stay the values).
EVENTS = (
    ("comprobante.emitido", _l("Comprobante emitido")),
    ("comprobante.aceptado", _l("Comprobante aceptado por DGI")),
    ("comprobante.rechazado", _l("Comprobante rechazado por DGI")),
    ("comprobante.observado", _l("Comprobante observado por DGI")),
    ("sobre.rechazado", _l("Sobre rechazado por DGI")),
    ("reporte.rechazado", _l("Reporte diario rechazado por DGI")),
    ("cae.por_agotarse", _l("CAE por agotarse o vencer")),
    ("certificado.por_vencer", _l("Certificado por vencer")),
    ("recibido.nuevo", _l("Comprobante recibido de otra empresa")),
    ("intercambio.respuesta", _l("Respuesta de otra empresa a un comprobante")),
    ("intercambio.aceptacion_confirmada", _l("Aceptación confirmada por otra empresa")),
)
EVENT_LABELS = dict(EVENTS)
_CHOICES = [SelectChoice(value, label) for value, label in EVENTS]


def _strip(value):
    return value.strip() if isinstance(value, str) else value


class WebhookForm(PortalForm):
    url = StringField(
        _l("URL"),
        filters=[_strip],
        validators=[
            InputRequired(_l("Indicá la URL que recibe los eventos.")),
            Length(max=2000, message=_l("Máximo %(max)d caracteres.")),
        ],
    )
    descripcion = StringField(
        _l("Descripción"), filters=[_strip], validators=[Length(max=200, message=_l("Máximo %(max)d caracteres."))]
    )
    eventos = SelectMultipleField(
        _l("Eventos"),
        choices=_CHOICES,
        widget=widgets.ListWidget(prefix_label=False),
        option_widget=widgets.CheckboxInput(),
        validators=[InputRequired(_l("Elegí al menos un evento."))],
    )

    SERVICE_FIELDS = {"url": "url", "eventos": "eventos", "eventos.*": "eventos", "descripcion": "descripcion"}


class RotateForm(PortalForm):
    horas = NumberField(
        _l("Horas en que firman los dos secretos"),
        whole=True,
        default=24,
        validators=[NumberRequired(_l("Indicá las horas.")), NumberRange(0, 168, _l("Entre %(min)s y %(max)s."))],
    )
