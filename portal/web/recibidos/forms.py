"""Forms of the received CFEs: the list's filters (GET), the upload, and the commercial rejection of one or of
several."""

from __future__ import annotations

from flask import request
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_wtf.file import MultipleFileField
from wtforms import HiddenField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional

from portal.client.recibidos import ReceivedFilters
from portal.domain.commercial_motives import CODES, MOTIVES
from portal.web.comprobantes.choices import TYPE_NAMES, options
from portal.web.forms_common import DayField, NumberField, PortalForm, idempotency_key_field

STATES = (
    ("", _l("Todos")),
    ("pendiente", _l("Sin decidir")),
    ("aceptado", _l("Recibidos (AE)")),
    ("rechazado", _l("Rechazados al recibirlos (BE)")),
    ("rechazado_comercial", _l("Rechazados por la empresa")),
    ("rechazado_dgi", _l("Rechazados por DGI")),
)
BOOKED = (("", _l("Todos")), ("no", _l("Sin contabilizar")), ("si", _l("Contabilizados")))
# An answer of ours to the supplier, by its state: the words and the badge's tone (a failed one stands out).
ANSWER_STATES = {
    "en_cola": (_l("en cola"), "neutral"),
    "enviando": (_l("enviando"), "neutral"),
    "enviado": (_l("enviado"), "ok"),
    "fallido": (_l("no se pudo enviar"), "bad"),
    "sin_destino": (_l("sin destino conocido"), "warn"),
}
# What a supplier sends a company: its e-Facturas and e-Tickets with their notes, those it sells for someone else
# (cuenta ajena), its e-Remitos and e-Resguardos. Not export receipts (to buyers abroad), nor e-Boletas de
# entrada (the buyer issues those).
RECEIVED_TYPES = (111, 112, 113, 141, 142, 143, 101, 102, 103, 131, 132, 133, 181, 182)
TYPES = (("", _l("Todos")), *((str(code), TYPE_NAMES[code]) for code in RECEIVED_TYPES))


# The commercial motives' words are portal.domain.commercial_motives, the service's too: both companies of an
# exchange read the same words, in the page's language.


def motive_label(code: str) -> str:
    """A motive as the rejection form offers it: shorter where the words do not fit its box on a phone, and E27-E60
    (agreed between the parties) ask for their text."""
    known = MOTIVES.get(code)
    return f"{code} · {known.option.said(str(get_locale() or 'es'))}" if known else code


def motive_recorded(code: str) -> str:
    """A motive as a decision taken reads: all its words, and not the form's instruction ("escribilo")."""
    known = MOTIVES.get(code)
    return f"{code} · {known.words.said(str(get_locale() or 'es'))}" if known else code


class ReceivedFilterForm(PortalForm):
    """The list's filters (a GET form: the URL holds the query)."""

    class Meta:
        csrf = False

    proveedor = StringField(_l("Proveedor"), validators=[Optional(), Length(max=150)])
    numero = StringField(_l("Número"), validators=[Optional(), Length(max=12)])
    desde = DayField(_l("Desde"), validators=[Optional()])
    hasta = DayField(_l("Hasta"), validators=[Optional()])
    tipo = SelectField(_l("Tipo"), choices=options(TYPES), default="")
    moneda = SelectField(_l("Moneda"), choices=options((("", _l("Todas")), ("UYU", "UYU"), ("USD", "USD"))), default="")
    estado = SelectField(_l("Estado"), choices=options(STATES), default="")
    contabilizado = SelectField(_l("Contabilizado"), choices=options(BOOKED), default="")
    monto_desde = NumberField(_l("Monto desde"))
    monto_hasta = NumberField(_l("Monto hasta"))
    cursor = HiddenField(validators=[Optional(), Length(max=200)])

    SERVICE_FIELDS = {
        "supplier": "proveedor",
        "number": "numero",
        "since": "desde",
        "until": "hasta",
        "tipo_cfe": "tipo",
        "currency": "moneda",
        "state": "estado",
        "booked": "contabilizado",
        "amount_from": "monto_desde",
        "amount_to": "monto_hasta",
        "*": "proveedor",
    }

    def service_filters(self) -> ReceivedFilters:
        def text(value: str | None) -> str | None:
            return (value or "").strip() or None

        booked = {"si": True, "no": False}.get(self.contabilizado.data or "")
        return ReceivedFilters(
            supplier=text(self.proveedor.data),
            tipo_cfe=int(self.tipo.data) if self.tipo.data else None,
            number=text(self.numero.data),
            since=self.desde.data,
            until=self.hasta.data,
            amount_from=self.monto_desde.data,
            amount_to=self.monto_hasta.data,
            currency=text(self.moneda.data),
            state=text(self.estado.data),
            booked=booked,
        )

    @property
    def filtered(self) -> bool:
        return any(
            (self[name].raw_data or [""])[0]
            for name in (
                "proveedor",
                "numero",
                "desde",
                "hasta",
                "tipo",
                "moneda",
                "estado",
                "contabilizado",
                "monto_desde",
                "monto_hasta",
            )
        )


class UploadForm(PortalForm):
    archivos = MultipleFileField(
        _l("Sobres (XML) o un ZIP"), validators=[DataRequired(message=_l("Elegí uno o más archivos."))]
    )


class RejectForm(PortalForm):
    motivo = SelectField(
        _l("Motivo"),
        choices=options((code, code) for code in CODES),
        validators=[DataRequired()],
    )
    detalle = TextAreaField(_l("Detalle para el proveedor"), validators=[Optional(), Length(max=500)])

    SERVICE_FIELDS = {"motive": "motivo", "detail": "detalle", "*": "detalle"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.motivo.choices = options((code, motive_label(code)) for code in CODES)


class RejectManyForm(RejectForm):
    """One motive for the CFEs chosen in the list (their ids travel as `ids`, beside the form's fields). The key is
    made when the question is shown: a second click, or the browser sending the form again, rejects nothing twice."""

    idempotency_key = idempotency_key_field()


def list_filters() -> dict[str, str]:
    """The list's filters in this request's address (a form's action on the list carries them), to go back to the
    list as it was filtered."""
    names = {field.name for field in ReceivedFilterForm(formdata=None)} - {"cursor"}
    return {name: value for name, value in request.args.items() if name in names and value}
