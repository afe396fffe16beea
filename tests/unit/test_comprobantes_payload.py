"""The issuing form's data as the client's typed request, and the service's error paths back onto the form.
The request's JSON is checked against the service's own input model, so the portal cannot drift from the API."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from portal.client.cfe import field_path
from portal.service.cfe import parse_cfe_input
from portal.web.comprobantes.forms import renumbered
from portal.web.comprobantes.payload import build_body, form_data
from portal.web.numbers import AmbiguousNumber, parse_decimal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("  ", None),
        (None, None),
        ("122", Decimal("122")),
        ("1234,56", Decimal("1234.56")),
        ("1.234,56", Decimal("1234.56")),
        ("1,234.56", Decimal("1234.56")),
        ("39,250", Decimal("39.250")),
        ("0,5", Decimal("0.5")),
        ("1 500", Decimal("1500")),
        ("-3", Decimal("-3")),
        ("1.234.567", Decimal(1234567)),
        ("1,234,567", Decimal(1234567)),
        ("85.5", Decimal("85.5")),
        ("0.125", Decimal("0.125")),
        ("1234.500", Decimal("1234.500")),
    ],
)
def test_numbers_are_read_as_typed_in_uruguay_or_with_a_decimal_point(text, expected):
    assert parse_decimal(text) == expected


@pytest.mark.parametrize("text", ["doce", "1,2,3.4.5x", "1e3", "NaN", "12.", ",5", "1,5,3", "12.34,5", "1.2.3"])
def test_anything_else_is_not_a_number(text):
    with pytest.raises(ValueError):
        parse_decimal(text)


@pytest.mark.parametrize("text", ["1.500", "39.250", "-2.000"])
def test_a_lone_dot_before_three_digits_is_ambiguous_on_a_fiscal_document(text):
    with pytest.raises(AmbiguousNumber):
        parse_decimal(text)


@given(st.decimals(min_value=0, max_value=Decimal("99999999999"), places=2, allow_nan=False))
def test_uruguayan_formatting_reads_back_exactly(value):
    whole, cents = f"{value:.2f}".split(".")
    grouped = f"{int(whole):,}".replace(",", ".")
    assert parse_decimal(f"{grouped},{cents}") == value


def _line(**values) -> dict:
    return {
        "ind_fact": 3,
        "nom_item": "",
        "cantidad": Decimal(1),
        "uni_med": "",
        "precio_unitario": None,
        "descuento": None,
        **values,
    }


def _form(**values) -> dict:
    data = {
        "tipo_cfe": 101,
        "fch_emis": date(2026, 11, 22),
        "fma_pago": 1,
        "fch_venc": None,
        "tpo_moneda": "UYU",
        "tpo_cambio": None,
        "mnt_bruto": True,
        "tipo_traslado": 1,
        "tipo_doc_recep": "",
        "cod_pais_recep": "UY",
        "doc_recep": "",
        "rzn_soc_recep": "",
        "dir_recep": "",
        "ciudad_recep": "",
        "depto_recep": "",
        "lines": [_line(nom_item="Café", cantidad=Decimal(2), precio_unitario=Decimal(122))],
        "ref_tipo": 101,
        "ref_serie": "",
        "ref_nro": "",
        "ref_razon": "",
        "ref_fecha": None,
        "adenda": "",
    }
    data.update(values)
    return data


def test_an_eticket_body_is_what_the_service_accepts_and_blank_lines_are_skipped():
    lines = [
        _line(nom_item="Café", cantidad=Decimal(2), precio_unitario=Decimal(122)),
        _line(),
        _line(
            ind_fact=2,
            nom_item="Medialuna",
            cantidad=Decimal(3),
            uni_med="u",
            precio_unitario=Decimal(44),
            descuento=Decimal("1.50"),
        ),
    ]
    body = build_body(_form(lines=lines))
    assert body.cfe.to_json() == {
        "tipoCFE": 101,
        "fchEmis": "2026-11-22",
        "fmaPago": 1,
        "mntBruto": 1,
        "tpoMoneda": "UYU",
        "items": [
            {"indFact": 3, "nomItem": "Café", "cantidad": "2", "precioUnitario": "122"},
            {
                "indFact": 2,
                "nomItem": "Medialuna",
                "cantidad": "3",
                "uniMed": "u",
                "precioUnitario": "44",
                "descuentoMonto": "1.50",
            },
        ],
    }
    assert body.line_rows == (0, 2)
    parse_cfe_input(body.cfe.to_json())


def test_an_efactura_in_dollars_carries_the_receiver_and_the_exchange_rate():
    body = build_body(
        _form(
            tipo_cfe=111,
            fma_pago=2,
            fch_venc=date(2026, 12, 22),
            tpo_moneda="USD",
            tpo_cambio=Decimal("39.250"),
            mnt_bruto=False,
            tipo_doc_recep="2",
            doc_recep=" 21-484436-001-8 ",
            rzn_soc_recep="DGI",
            dir_recep="Fernandez Crespo 1534",
            ciudad_recep="Montevideo",
            depto_recep="Montevideo",
            cod_pais_recep="ar",
        )
    )
    assert body.cfe.to_json()["receptor"] == {
        "tipoDocRecep": 2,
        "codPaisRecep": "UY",
        "docRecep": "21-484436-001-8",
        "rznSocRecep": "DGI",
        "dirRecep": "Fernandez Crespo 1534",
        "ciudadRecep": "Montevideo",
        "deptoRecep": "Montevideo",
    }
    sent = body.cfe.to_json()
    assert (sent["tpoCambio"], sent["fchVenc"], "mntBruto" in sent) == ("39.250", "2026-12-22", False)
    assert parse_cfe_input(body.cfe.to_json()).receptor.doc_recep == "214844360018"


def test_a_foreign_document_keeps_its_country_and_uyu_sends_no_exchange_rate():
    body = build_body(_form(tipo_doc_recep="5", doc_recep="AB123", cod_pais_recep="ar", tpo_cambio=Decimal(40)))
    assert body.cfe.to_json()["receptor"] == {"tipoDocRecep": 5, "codPaisRecep": "AR", "docRecep": "AB123"}
    assert "tpoCambio" not in body.cfe.to_json()


def test_an_eremito_has_no_prices_payment_or_currency():
    body = build_body(
        _form(
            tipo_cfe=181,
            tipo_traslado=2,
            lines=[_line(nom_item="Manzanas", cantidad=Decimal(10), uni_med="kg", precio_unitario=Decimal(5))],
        )
    )
    assert body.cfe.to_json() == {
        "tipoCFE": 181,
        "fchEmis": "2026-11-22",
        "tipoTraslado": 2,
        "items": [{"nomItem": "Manzanas", "cantidad": "10", "uniMed": "kg"}],
    }


@pytest.mark.parametrize(
    ("tipo_cfe", "ventas_sin_iva", "mnt_bruto", "expected"),
    [
        (101, "", True, 1),  # prices with IVA included
        (111, "", False, None),  # IVA added to the prices
        (101, "1", True, 3),  # an IVA mínimo or Monotributo company: sales without IVA, whatever the switch
        (112, "1", False, 3),  # its notes too
        (181, "1", True, None),  # an e-Remito carries no prices at all
    ],
)
def test_dgis_mnt_bruto_follows_the_switch_or_the_sale_without_iva(tipo_cfe, ventas_sin_iva, mnt_bruto, expected):
    body = build_body(_form(tipo_cfe=tipo_cfe, ventas_sin_iva=ventas_sin_iva, mnt_bruto=mnt_bruto))
    assert body.cfe.gross_amounts == expected
    assert body.cfe.to_json().get("mntBruto") == expected


def test_a_note_carries_its_reference_and_an_empty_one_lets_the_service_say_so():
    body = build_body(
        _form(
            tipo_cfe=102, ref_tipo=101, ref_serie="a", ref_nro="12", ref_razon="Devolución", ref_fecha=date(2026, 11, 1)
        )
    )
    assert body.cfe.to_json()["referencias"] == [
        {"tpoDocRef": 101, "serie": "A", "nroCFERef": 12, "razonRef": "Devolución", "fechaCFEref": "2026-11-01"}
    ]
    parse_cfe_input(body.cfe.to_json())
    assert build_body(_form(tipo_cfe=102)).cfe.references == ()
    assert build_body(_form(ref_serie="A")).cfe.references == ()  # only notes refer


@pytest.mark.parametrize(
    ("path", "renamed"),
    [
        ("items[1].precioUnitario", "lines[1].unit_price"),
        ("receptor.docRecep", "receiver.document"),
        ("items[0].retencPercep[0].codRet", "lines[0].retentions[0].code"),
        ("referencias[0].fechaCFEref", "references[0].issue_date"),
        ("corrigeA", "corrects"),
        ("receptor.docRecep.extra", "receptor.docRecep.extra"),
        ("caeData.hNro", "caeData.hNro"),
    ],
)
def test_the_client_names_field_errors_after_the_request(path, renamed):
    assert field_path(path) == renamed


def test_removing_a_line_renumbers_the_rest():
    posted = MultiDict(
        [
            ("csrf_token", "t"),
            ("lines-0-nom_item", "a"),
            ("lines-0-cantidad", "1"),
            ("lines-3-nom_item", "b"),
            ("lines-7-nom_item", "c"),
            ("lines-7-cantidad", "3"),
        ]
    )
    kept = renumbered(posted, drop=3)
    assert list(kept.items(multi=True)) == [
        ("csrf_token", "t"),
        ("lines-0-nom_item", "a"),
        ("lines-0-cantidad", "1"),
        ("lines-1-nom_item", "c"),
        ("lines-1-cantidad", "3"),
    ]
    assert renumbered(posted).getlist("lines-1-nom_item") == ["b"]


def test_an_eresguardo_line_is_one_retention_and_comes_back_to_the_form():
    data = {
        "tipo_cfe": 182,
        "tpo_moneda": "UYU",
        "tipo_doc_recep": "2",
        "doc_recep": "214844360018",
        "lines": [
            {"cod_ret": " 2183165 ", "tasa": Decimal("50"), "base": Decimal("22000.00"), "valor": Decimal("11000.00")}
        ],
    }
    request = build_body(data).cfe
    body = request.to_json()
    assert "fmaPago" not in body and "mntBruto" not in body
    assert body["items"] == [
        {"retencPercep": [{"codRet": "2183165", "tasa": "50", "mntSujetoaRet": "22000.00", "valRetPerc": "11000.00"}]}
    ]
    again = form_data(request)["lines"][0]
    assert (again["cod_ret"], again["valor"], again["base"]) == ("2183165", Decimal("11000.00"), Decimal("22000.00"))


def test_a_line_without_a_unit_comes_back_to_the_form_with_the_unit_empty():
    request = build_body({"tipo_cfe": 101, "lines": [{"nom_item": "Café", "cantidad": Decimal(1)}]}).cfe
    assert form_data(replace(request, lines=(replace(request.lines[0], unit="N/A"),)))["lines"][0]["uni_med"] == ""
    assert form_data(replace(request, lines=(replace(request.lines[0], unit="kg"),)))["lines"][0]["uni_med"] == "kg"
