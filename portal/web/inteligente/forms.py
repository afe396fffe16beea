"""Step 1 of smart issuance: who buys (optional) and what. The service infers and validates the rest; its
field errors come back onto these fields (SmartForm.SERVICE_FIELDS)."""

from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from werkzeug.datastructures import MultiDict
from wtforms import BooleanField, FieldList, Form, FormField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, NumberRange, Optional, ValidationError

from portal.web.forms_common import LINE_FIELD, DayField, NumberField, NumberRequired, PortalForm
from portal.web.inteligente.payload import CURRENCIES

MAX_LINES = 200


def _choices(*pairs) -> list[SelectChoice]:
    return [SelectChoice(value, label) for value, label in pairs]


RATE_CHOICES = _choices(
    ("", _l("Según categoría")),
    ("basica", _l("Básica 22%")),
    ("minima", _l("Mínima 10%")),
    ("exenta", _l("Exenta")),
    ("no_facturable", _l("No facturable")),
)
CATEGORY_CHOICES = _choices(
    ("", _l("Sin categoría (básica)")),
    ("general", _l("General")),
    ("servicios", _l("Servicios")),
    ("bebidas", _l("Bebidas")),
    ("alimentos_basicos", _l("Alimentos de la canasta básica")),
    ("medicamentos", _l("Medicamentos")),
    ("hoteleria", _l("Hotelería")),
    ("transporte_pasajeros", _l("Transporte de pasajeros")),
    ("libros", _l("Libros y diarios")),
    ("leche", _l("Leche")),
    ("frutas_verduras", _l("Frutas y verduras frescas")),
    ("educacion", _l("Educación")),
)


def _strip(value):
    return value.strip() if isinstance(value, str) else value


def _above_zero(form, field):
    if field.data is not None and field.data <= 0:
        raise ValidationError(_("Tiene que ser mayor que cero."))


_NOT_NEGATIVE = NumberRange(min=0, message=_l("No puede ser negativo."))


class LineForm(Form):
    descripcion = StringField(
        _l("Descripción"),
        filters=[_strip],
        validators=[DataRequired(_l("Indicá qué se vende.")), Length(max=80, message=_l("Máximo %(max)d caracteres."))],
    )
    cantidad = NumberField(_l("Cantidad"), [NumberRequired(_l("Indicá la cantidad.")), _above_zero], default="1")
    precio = NumberField(_l("Precio unitario"), [NumberRequired(_l("Indicá el precio.")), _NOT_NEGATIVE])
    tasa = SelectField(_l("Tasa de IVA"), choices=RATE_CHOICES, default="", validate_choice=True)
    categoria = SelectField(_l("Categoría"), choices=CATEGORY_CHOICES, default="", validate_choice=True)


class SmartForm(PortalForm):
    """Step 1. Rebuilt from the session when the user comes back, so it carries no CSRF field of its own:
    CSRFProtect checks every POST (templates add the token)."""

    class Meta:
        csrf = False

    ROW_LABEL = LINE_FIELD
    documento = StringField(
        _l("Documento del receptor"),
        filters=[_strip],
        validators=[Optional(), Length(max=20, message=_l("Máximo %(max)d caracteres."))],
    )
    nombre = StringField(
        _l("Nombre del receptor"),
        filters=[_strip],
        validators=[Optional(), Length(max=150, message=_l("Máximo %(max)d caracteres."))],
    )
    precios_incluyen_iva = BooleanField(_l("Los precios incluyen IVA"), default=True)
    moneda = SelectField(_l("Moneda"), choices=_choices(*((c, c) for c in CURRENCIES)), default="UYU")
    tipo_cambio = NumberField(_l("Tipo de cambio"), [_above_zero])
    forma_pago = SelectField(
        _l("Forma de pago"), default="1", choices=_choices(("1", _l("Contado")), ("2", _l("Crédito")))
    )
    lineas = FieldList(FormField(LineForm), min_entries=1, max_entries=MAX_LINES)
    ref_id = StringField(
        _l("Comprobante que se ajusta (idCfeEmitido)"),
        filters=[_strip],
        validators=[Optional(), Length(max=40, message=_l("Máximo %(max)d caracteres."))],
    )
    ref_tipo = SelectField(
        _l("Tipo de nota"),
        choices=_choices(("credito", _l("Nota de crédito")), ("debito", _l("Nota de débito"))),
        default="credito",
    )
    ref_razon = StringField(
        _l("Motivo de la nota"), filters=[_strip], validators=[Length(max=90, message=_l("Máximo %(max)d caracteres."))]
    )
    adenda = TextAreaField(
        _l("Adenda (texto libre en el comprobante)"),
        filters=[_strip],
        validators=[Length(max=10000, message=_l("Máximo %(max)d caracteres."))],
    )

    # The request's field paths, as the client names the service's field errors: SmartIssueRequest's, and
    # CfeRequest's for the CFE the service inferred from it (its line i is the form's line i).
    SERVICE_FIELDS = {
        "receiver.*": "documento",
        "receiver.name": "nombre",
        "prices_include_tax": "precios_incluyen_iva",
        "gross_amounts": "precios_incluyen_iva",
        "currency": "moneda",
        "exchange_rate": "tipo_cambio",
        "payment_form": "forma_pago",
        "reference.*": "ref_id",
        "reference.kind": "ref_tipo",
        "reference.reason": "ref_razon",
        "references.*": "ref_id",
        "lines[].*": "lineas-[]-descripcion",
        "lines[].quantity": "lineas-[]-cantidad",
        "lines[].price": "lineas-[]-precio",
        "lines[].unit_price": "lineas-[]-precio",
        "lines[].discount_pct": "lineas-[]-precio",
        "lines[].rate": "lineas-[]-tasa",
        "lines[].ind_fact": "lineas-[]-tasa",
        "lines[].category": "lineas-[]-categoria",
    }

    def validate_tipo_cambio(self, field):
        if self.moneda.data != "UYU" and field.data is None and not field.errors:
            raise ValidationError(_("Indicá el tipo de cambio de %(currency)s.", currency=self.moneda.data))

    def validate_ref_razon(self, field):
        if self.ref_id.data and not field.data:
            raise ValidationError(_("Indicá el motivo de la nota."))

    @classmethod
    def from_typed(cls, typed: dict | None) -> SmartForm:
        """The form as the user left it (`typed` is an earlier form's `data`), or a blank one."""
        return cls(formdata=None, data=typed) if typed else cls(formdata=None)

    @classmethod
    def without_line(cls, formdata: MultiDict, index: int | None) -> SmartForm:
        """The posted form minus line `index` (the others renumbered)."""
        if index is None:
            return cls(formdata=formdata)
        prefix = f"lineas-{index}-"
        return cls(formdata=MultiDict([(k, v) for k, v in formdata.items(multi=True) if not k.startswith(prefix)]))

    def add_line(self) -> None:
        if len(self.lineas.entries) < MAX_LINES:
            self.lineas.append_entry()


STATE_CHOICES = _choices(
    ("", _l("Todos los estados")),
    ("issued", _l("Emitida")),
    ("failed", _l("Falló")),
    ("preview", _l("Previsualizada")),
    ("confirmed", _l("Confirmada")),
    ("expired", _l("Vencida")),
)
REQUEST_ID_PREFIX = "ei_"


def _squeeze(value):
    """ "  A   15 " -> "A 15": people type numbers with stray spaces."""
    return " ".join(value.split()) if isinstance(value, str) else value


class RequestSearchForm(Form):
    """The requests page's search box and filters. GET, so the URL holds them (reload and Back keep the list).
    The box takes a request id (ei_…) or a receipt's number; the service reads the number (A-15, A 0000015)."""

    q = StringField(
        _l("Buscar"),
        filters=[_squeeze],
        validators=[Optional(), Length(max=40, message=_l("Máximo %(max)d caracteres."))],
    )
    estado = SelectField(_l("Estado"), choices=STATE_CHOICES, default="", validate_choice=True)
    creado_por = StringField(
        _l("Creada por"),
        filters=[_strip],
        validators=[Optional(), Length(max=254, message=_l("Máximo %(max)d caracteres."))],
    )
    desde = DayField(_l("Desde"), validators=[Optional()])
    hasta = DayField(_l("Hasta"), validators=[Optional()])

    # The service's filter names, for the errors it sends back about them (and for links that keep them).
    SERVICE_FIELDS = {"numero": "q", "estado": "estado", "creadoPor": "creado_por", "desde": "desde", "hasta": "hasta"}

    def validate_hasta(self, field):
        if field.data and self.desde.data and field.data < self.desde.data:
            raise ValidationError(_("«Hasta» es anterior a «Desde»: elegí otro rango."))

    @property
    def request_id(self) -> str | None:
        """The request id typed in the box, when that is what was typed."""
        typed = self.q.data or ""
        return typed if typed.startswith(REQUEST_ID_PREFIX) else None

    @property
    def active(self) -> bool:
        return any(f.data for f in (self.q, self.estado, self.creado_por, self.desde, self.hasta))

    def filters(self) -> dict:
        """The filters as the client's smart_requests takes them."""
        return {
            "number": self.q.data or None,
            "state": self.estado.data or None,
            "created_by": self.creado_por.data or None,
            "since": self.desde.data,
            "until": self.hasta.data,
        }

    @classmethod
    def kept(cls, args) -> dict[str, str]:
        """The filters in `args` (a request's), for links that keep them: pages, the first page."""
        return {name: args[name] for name in cls.SERVICE_FIELDS.values() if args.get(name)}
