"""Step 1 of smart issuance as the service's body (its field errors back onto the form: test_forms_common.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel.numbers import format_decimal
from hypothesis import given
from hypothesis import strategies as st

from portal.domain.iva_categories import CATEGORY_RATES, RATE_TO_IND_FACT
from portal.web.inteligente.forms import CATEGORY_CHOICES, RATE_CHOICES
from portal.web.inteligente.payload import (
    CATEGORIES,
    RATES,
    classify_document,
    parse_amount,
    to_request,
)


def _values(**overrides) -> dict:
    values = {
        "documento": "",
        "nombre": "",
        "precios_incluyen_iva": True,
        "moneda": "UYU",
        "tipo_cambio": "",
        "forma_pago": "1",
        "ref_id": "",
        "ref_tipo": "credito",
        "ref_razon": "",
        "adenda": "",
        "lineas": [{"descripcion": "Café", "cantidad": "2", "precio": "122", "tasa": "", "categoria": ""}],
    }
    values.update(overrides)
    return values


def test_the_forms_choices_are_the_shared_tables():
    assert [c.value for c in CATEGORY_CHOICES if c.value] == list(CATEGORIES) == list(CATEGORY_RATES)
    assert [c.value for c in RATE_CHOICES if c.value] == list(RATES) == list(RATE_TO_IND_FACT)


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("1500", "1500"),
        ("1500.5", "1500.5"),
        ("1500,5", "1500.5"),
        ("1.500,50", "1500.50"),
        ("1,500.50", "1500.50"),
        ("1.234.567", "1234567"),
        (" 12 ", "12"),
        ("0", "0"),
        ("0,000001", "0.000001"),
    ],
)
def test_numbers_as_people_type_them(typed, value):
    assert parse_amount(typed) == Decimal(value)


@pytest.mark.parametrize("typed", ["", None, "abc", "-1", "NaN", "Infinity", "1e5", "1.2.3,4,5", "1,2,3.4.5", ","])
def test_what_is_not_a_non_negative_number_is_none(typed):
    assert parse_amount(typed) is None


@pytest.mark.parametrize("typed", ["1.500", "39.250"])
def test_a_lone_dot_before_three_digits_is_asked_about_as_on_the_receipts_form(typed):
    from portal.web.numbers import AmbiguousNumber

    with pytest.raises(AmbiguousNumber):
        parse_amount(typed)


@given(
    st.decimals(min_value=0, max_value=10**12, places=2, allow_nan=False, allow_infinity=False),
    st.sampled_from(["es_UY", "en_US"]),
)
def test_amounts_formatted_for_either_language_parse_back(amount, locale):
    assert parse_amount(format_decimal(amount, format="#,##0.00", locale=locale)) == amount
    assert parse_amount(str(amount)) == amount


@pytest.mark.parametrize(
    ("document", "kind"),
    [
        ("219999830019", "rut"),
        ("21-999983-001-9", "rut"),
        ("21.999983.001.9", "rut"),
        ("219999830018", "unknown"),
        ("13353214", "ci"),
        ("1.335.321-4", "ci"),
        ("13353215", "unknown"),
        ("", "empty"),
        ("   ", "empty"),
        ("AB123456", "unknown"),
        ("RUT 219999830019", "unknown"),
    ],
)
def test_documents_are_classified_as_the_service_infers_them(document, kind):
    assert classify_document(document) == kind


def test_a_minimal_input_is_a_minimal_body():
    assert to_request(_values()).to_json() == {
        "lineas": [{"descripcion": "Café", "cantidad": "2", "precio": "122"}],
        "preciosIncluyenIva": True,
        "moneda": "UYU",
        "formaPago": 1,
    }


def test_every_optional_part_when_given():
    body = to_request(
        _values(
            documento=" 21-999983-001-9 ",
            nombre="Cliente",
            precios_incluyen_iva=False,
            moneda="USD",
            tipo_cambio="39,5",
            forma_pago="2",
            ref_id="cfe_123",
            ref_tipo="debito",
            ref_razon="Intereses",
            adenda="Mesa 4",
            lineas=[
                {
                    "descripcion": " Libro ",
                    "cantidad": "1,5",
                    "precio": "1.500,50",
                    "tasa": "exenta",
                    "categoria": "libros",
                }
            ],
        )
    ).to_json()
    assert body == {
        "lineas": [
            {"descripcion": "Libro", "cantidad": "1.5", "precio": "1500.50", "tasa": "exenta", "categoria": "libros"}
        ],
        "preciosIncluyenIva": False,
        "moneda": "USD",
        "formaPago": 2,
        "tipoCambio": "39.5",
        "receptor": {"documento": "21-999983-001-9", "nombre": "Cliente"},
        "referencia": {"idCfeEmitido": "cfe_123", "tipo": "debito", "razon": "Intereses"},
        "adenda": "Mesa 4",
    }


def test_an_exchange_rate_for_pesos_and_a_name_without_a_document_are_left_out():
    body = to_request(_values(tipo_cambio="40", nombre="Sin documento")).to_json()
    assert "tipoCambio" not in body and "receptor" not in body


def test_numbers_travel_as_exact_decimals_and_an_unchecked_one_is_refused():
    (line,) = to_request(_values(lineas=[{"descripcion": "x", "cantidad": "1,5", "precio": "1.500,50"}])).lines
    assert (line.quantity, line.price) == (Decimal("1.5"), Decimal("1500.50"))
    with pytest.raises(ValueError):  # the form refuses it first; the request is never built from it
        to_request(_values(lineas=[{"descripcion": "x", "cantidad": "dos", "precio": "1"}]))
