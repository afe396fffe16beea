"""Forms of the clientes area."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from wtforms import HiddenField, SelectField, StringField
from wtforms.validators import DataRequired, Email, Length, Optional

from portal.web.comprobantes.choices import options
from portal.web.forms_common import NumberField, PortalForm

CURRENCIES = [("UYU", "UYU"), ("USD", "USD"), ("EUR", "EUR"), ("ARS", "ARS"), ("BRL", "BRL")]
DOC_TYPES = [
    ("2", _l("RUT")),
    ("3", _l("Cédula de identidad")),
    ("4", _l("Otro")),
    ("5", _l("Pasaporte")),
    ("6", _l("DNI (AR, BR, CL, PY)")),
    ("7", _l("NIFE")),
]
PAYMENT_TERMS = [("1", _l("Contado")), ("2", _l("Crédito"))]


class SearchForm(PortalForm):
    """The list's search (a GET form: the URL holds it)."""

    class Meta:
        csrf = False

    q = StringField(_l("Buscar por nombre o documento"), validators=[Optional(), Length(max=150)])
    cursor = HiddenField(validators=[Optional(), Length(max=400)])


class CustomerForm(PortalForm):
    """What a person keeps about a customer."""

    nombre = StringField(_l("Nombre o razón social"), validators=[DataRequired(), Length(max=150)])
    direccion = StringField(_l("Dirección"), validators=[Optional(), Length(max=70)])
    ciudad = StringField(_l("Ciudad"), validators=[Optional(), Length(max=30)])
    departamento = StringField(_l("Departamento"), validators=[Optional(), Length(max=30)])
    correo = StringField(_l("Correo para enviarle sus comprobantes"), validators=[Optional(), Email(), Length(max=254)])
    moneda = SelectField(_l("Moneda habitual"), choices=options(CURRENCIES), default="UYU")
    forma_pago = SelectField(_l("Forma de pago habitual"), choices=options(PAYMENT_TERMS), default="1")
    dias_credito = NumberField(_l("Plazo de crédito (días)"), whole=True)

    # The service's field (as the client names it) -> this form's.
    SERVICE_FIELDS = {
        "name": "nombre",
        "address": "direccion",
        "city": "ciudad",
        "department": "departamento",
        "email": "correo",
        "currency": "moneda",
        "payment_terms": "forma_pago",
        "credit_days": "dias_credito",
    }


class NewCustomerForm(CustomerForm):
    tipo_documento = SelectField(_l("Tipo de documento"), choices=options(DOC_TYPES), default="2")
    documento = StringField(_l("Documento"), validators=[DataRequired(), Length(max=20)])
    pais = StringField(_l("País del documento (código de dos letras)"), default="UY", validators=[Length(min=2, max=2)])

    SERVICE_FIELDS = {
        **CustomerForm.SERVICE_FIELDS,
        "doc_type": "tipo_documento",
        "document": "documento",
        "country": "pais",
    }
