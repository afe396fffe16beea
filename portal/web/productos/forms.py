"""Forms of the productos area."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import BooleanField, HiddenField, SelectField, StringField
from wtforms.validators import DataRequired, Length, Optional

from portal.web.comprobantes.choices import IND_FACT, options
from portal.web.forms_common import NumberField, PortalForm

CURRENCIES = [("UYU", "UYU"), ("USD", "USD"), ("EUR", "EUR"), ("ARS", "ARS"), ("BRL", "BRL")]
# The IVA indicators a product may carry (the service's catalogue), with the issuing form's labels.
PRODUCT_IND_FACTS = (1, 2, 3, 4, 5, 6, 7, 10, 16)


# Indicators a receipt's line rarely takes, so the issuing form's table does not name them.
_MORE_LABELS = {4: _l("IVA otra tasa"), 10: _l("Exportación y asimiladas")}


def ind_fact_label(code: int) -> str:
    """A line's IVA indicator as people read it."""
    return str({**_MORE_LABELS, **dict(IND_FACT)}.get(code, code))


def _ind_fact_choices() -> list[tuple[str, str]]:
    labels = {**_MORE_LABELS, **dict(IND_FACT)}
    ordered = [code for code, _label in IND_FACT if code in PRODUCT_IND_FACTS]
    ordered += [code for code in PRODUCT_IND_FACTS if code not in ordered]
    return [(str(code), str(labels[code])) for code in ordered]


class SearchForm(PortalForm):
    class Meta:
        csrf = False

    q = StringField(_l("Buscar por nombre o código"), validators=[Optional(), Length(max=80)])
    cursor = HiddenField(validators=[Optional(), Length(max=400)])


class ProductForm(PortalForm):
    codigo = StringField(_l("Código"), validators=[DataRequired(), Length(max=35)])
    nombre = StringField(_l("Nombre"), validators=[DataRequired(), Length(max=80)])
    unidad = StringField(_l("Unidad (kg, h, un)"), validators=[Optional(), Length(max=4)])
    precio = NumberField(_l("Precio unitario"), validators=[DataRequired()])
    precio_con_iva = BooleanField(_l("El precio incluye IVA"))
    indicador = SelectField(_l("IVA"), default="3")
    moneda = SelectField(_l("Moneda"), choices=options(CURRENCIES), default="UYU")

    SERVICE_FIELDS = {
        "code": "codigo",
        "name": "nombre",
        "unit": "unidad",
        "price": "precio",
        "price_includes_tax": "precio_con_iva",
        "ind_fact": "indicador",
        "currency": "moneda",
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.indicador.choices = options(_ind_fact_choices())


class ImportForm(PortalForm):
    archivo = FileField(_l("Lista de precios (CSV)"), validators=[FileRequired(_l("Elegí el archivo CSV."))])
