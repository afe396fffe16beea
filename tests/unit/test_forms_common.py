"""The portal's one number field and its one way of putting the service's field errors on a form."""

from __future__ import annotations

from decimal import Decimal

import pytest
from werkzeug.datastructures import MultiDict
from wtforms import FieldList, Form, FormField, StringField

from portal.client.errors import FieldError, ValidationError
from portal.client.inteligente_requests import field_path as smart_field_path
from portal.web.comprobantes.forms import ReceiptForm
from portal.web.forms_common import NumberField, NumberRequired, _fields_by_name, apply_service_errors, typed_data
from portal.web.inteligente.forms import SmartForm
from tests.support.i18n import request_in

QUESTION = "¿Mil o uno con decimales? Escribí 1500 o 1,5."

pytestmark = pytest.mark.usefixtures("in_spanish")


class _Line(Form):
    nombre = StringField()
    precio = NumberField()


class _Form(Form):
    importe = NumberField(validators=[NumberRequired("Indicá el importe.")])
    cantidad = NumberField(whole=True)
    lineas = FieldList(FormField(_Line), min_entries=1)


def _posted(**values) -> _Form:
    form = _Form(formdata=MultiDict(values))
    form.validate()
    return form


@pytest.mark.parametrize(("typed", "value"), [("1.500,50", Decimal("1500.50")), ("1500.50", Decimal("1500.50"))])
def test_a_number_reads_the_uruguayan_way_and_shows_what_was_typed(typed, value):
    form = _posted(importe=typed)
    assert form.importe.data == value and not form.importe.errors
    assert form.importe._value() == typed
    assert 'inputmode="decimal"' in form.importe() and 'type="text"' in form.importe()


def test_an_ambiguous_thousand_is_asked_about_and_kept():
    form = _posted(importe="1.500")
    assert form.importe.data is None and form.importe.errors == [QUESTION]  # the question alone, no "Indicá"
    assert form.importe._value() == "1.500"


def test_a_whole_number_field_reads_the_same_way_and_refuses_cents():
    assert _posted(importe="1", cantidad="1.500.000").cantidad.data == 1_500_000
    assert _posted(importe="1", cantidad="1.500").cantidad.errors == [QUESTION]
    refused = _posted(importe="1", cantidad="1.500,50")
    assert refused.cantidad.errors == ["Tiene que ser un número entero, como 1500."]
    assert refused.cantidad._value() == "1.500,50"


@pytest.mark.parametrize(
    ("number", "shown"),
    [
        (Decimal("1.500"), "1,5"),
        (Decimal("350.250000"), "350,25"),
        (Decimal("1500.000"), "1500"),
        (Decimal("0.00"), "0"),
    ],
)
def test_a_number_the_form_starts_with_shows_as_the_form_reads_it_back(number, shown):
    form = _Form(formdata=None, data={"importe": number})
    assert form.importe._value() == shown and form.validate() and form.importe.data == number


@pytest.mark.parametrize(("number", "shown"), [(Decimal("40.402"), "40.402"), (Decimal("85.5"), "85.5")])
def test_in_english_a_number_the_form_starts_with_has_a_decimal_point(number, shown):
    """An exchange rate of 40,402 proposed to an English reader read as forty thousand."""
    with request_in("en"):
        form = _Form(formdata=None, data={"importe": number})
        assert form.importe._value() == shown and form.validate() and form.importe.data == number


def test_zero_is_a_number_and_empty_is_missing():
    assert _posted(importe="0").importe.errors == []
    assert _posted(importe="").importe.errors == ["Indicá el importe."]
    assert _posted(importe="doce").importe.errors == ["Tiene que ser un número, como 1.500,50."]


def test_a_form_rebuilt_from_what_was_typed_reads_it_again():
    typed = typed_data(_posted(importe="1.500,50", cantidad="", **{"lineas-0-precio": "2,5"}))
    assert typed["importe"] == "1.500,50" and typed["lineas"][0]["precio"] == "2,5"
    again = _Form(formdata=None, data=typed)
    assert again.importe.data == Decimal("1500.50") and again.importe._value() == "1.500,50"
    assert again.validate()
    assert _Form(formdata=None, data={"importe": "1.500"}).validate() is False


def _refusal(*problems: tuple[str, str], message: str = "Revisá los datos.") -> ValidationError:
    return ValidationError(message, fields=tuple(FieldError(path, "x", text) for path, text in problems))


def test_every_message_lands_next_to_its_field_or_at_the_top():
    form = _posted(importe="1", **{"lineas-0-precio": "1", "lineas-1-precio": "2"})
    loose = apply_service_errors(
        form,
        _refusal(
            ("items[1].precioUnitario", "Demasiados decimales."),
            ("items[1].precioUnitario", "Demasiados decimales."),
            ("items[1].precioUnitario", "Debe ser mayor que 0."),
            ("monto", "Muy grande."),
            ("caeData.hNro", "Sin números."),
        ),
        {"items[].precioUnitario": "lineas-[]-precio", "monto": "importe"},
    )
    assert form.lineas[1].precio.errors == ["Demasiados decimales.", "Debe ser mayor que 0."]
    assert form.importe.errors == ["Muy grande."]
    assert loose == ["Sin números."] and form.form_errors == ["Sin números."]


def test_a_refusal_naming_no_field_goes_to_the_top_or_to_the_forms_one_field():
    form = _posted(importe="1")
    assert apply_service_errors(form, _refusal(message="El CAE venció.")) == ["El CAE venció."]
    assert form.form_errors == ["El CAE venció."]
    upload = _posted(importe="1")
    assert apply_service_errors(upload, _refusal(message="No es un PDF."), {"*": "importe"}) == []
    assert upload.importe.errors == ["No es un PDF."]


@pytest.mark.parametrize(
    ("path", "field"),
    [  # the request's names, as the client renames the service's field errors (portal.client.cfe.field_path)
        ("receiver.document", "doc_recep"),
        ("receiver.country", "cod_pais_recep"),
        ("receiver", "tipo_doc_recep"),
        ("exchange_rate", "tpo_cambio"),
        ("due_date", "fch_venc"),
        ("lines[1].unit_price", "lines-2-precio_unitario"),  # the body left out the blank line 1
        ("lines[0].discount", "lines-0-descuento"),
        ("lines[1]", "lines-2-nom_item"),
        ("lines", None),  # about all the lines (a negative total): the banner, not line 1
        ("lines[0].retentions[0].code", "lines-0-cod_ret"),  # an e-Resguardo line
        ("lines[0].retentions[0].amount", "lines-0-valor"),
        ("references[0].number", "ref_nro"),
        ("references", "ref_nro"),
        ("lines[5].unit_price", None),
        ("caeData.hNro", None),
        ("body", None),
        ("línea 3", None),
    ],
)
def test_the_receipt_forms_service_paths(path, field):
    form = ReceiptForm(formdata=MultiDict({f"lines-{i}-nom_item": "x" for i in range(3)}))
    apply_service_errors(form, _refusal((path, "Mal.")), ReceiptForm.SERVICE_FIELDS, rows=(0, 2))
    placed = [name for name, f in _fields_by_name(form).items() if "Mal." in f.errors]
    assert placed == ([field] if field else []) and form.form_errors == ([] if field else ["Mal."])


@pytest.mark.parametrize(
    ("path", "field"),
    [  # the service's paths (its input's, the inferred CFE's), renamed by the client as it raises them
        ("lineas[0].descripcion", "lineas-0-descripcion"),
        ("lineas[1]", "lineas-1-descripcion"),
        ("lineas[1].descuentoPct", "lineas-1-precio"),
        ("items[1].precioUnitario", "lineas-1-precio"),
        ("items[0].indFact", "lineas-0-tasa"),
        ("receptor.documento", "documento"),
        ("receptor", "documento"),
        ("receptor.rznSocRecep", "nombre"),
        ("receptor.ciudadRecep", "documento"),
        ("tpoCambio", "tipo_cambio"),
        ("referencia.razon", "ref_razon"),
        ("referencias[0].nroCFERef", "ref_id"),
        ("fmaPago", "forma_pago"),
        ("adenda", "adenda"),
        ("lineas", None),  # about the lines as a whole: at the top
        ("fchEmis", None),
    ],
)
def test_the_smart_forms_service_paths(path, field):
    form = SmartForm(formdata=MultiDict({"lineas-0-descripcion": "a", "lineas-1-descripcion": "b"}))
    apply_service_errors(form, _refusal((smart_field_path(path), "Mal.")), SmartForm.SERVICE_FIELDS)
    placed = [name for name, f in _fields_by_name(form).items() if "Mal." in f.errors]
    assert placed == ([field] if field else []) and form.form_errors == ([] if field else ["Mal."])


def test_every_form_of_the_portal_is_a_portal_form():
    """With flask-wtf's i18n off (create_app), a form outside PortalForm would show wtforms' messages in
    English on a Spanish page."""
    import importlib

    from flask_wtf import FlaskForm

    from portal.web import AREAS
    from portal.web.forms_common import PortalForm

    for area in AREAS:
        importlib.import_module(f"portal.web.{area}.routes")
    found, pending = [], list(FlaskForm.__subclasses__())
    while pending:
        form = pending.pop()
        pending += form.__subclasses__()
        if form.__module__.startswith("portal.web"):
            found.append(form)
    assert len(found) > 15
    assert [f.__qualname__ for f in found if not issubclass(f, PortalForm)] == []
