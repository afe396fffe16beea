"""Business rules: each case names the field path and stable code an integrator would receive."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from portal.service.cfe import CfeValidationError, Numbering, parse_cfe_input, validate
from portal.service.cfe.rules import ensure_valid, numbering_errors

UI = Decimal("6.1")  # 5,000 UI = 30,500 pesos


def _errors(body: dict, ui: Decimal = UI) -> set[tuple[str, str]]:
    return {(e.field, e.code) for e in validate(parse_cfe_input(body), ui_value=ui).errors}


def _ticket(amount: str = "100", **fields) -> dict:
    return {
        "tipoCFE": 101,
        "fchEmis": "2024-05-11",
        "fmaPago": 1,
        "items": [{"indFact": 3, "nomItem": "x", "cantidad": "1", "precioUnitario": amount}],
        **fields,
    }


@pytest.mark.parametrize("tipo", [101, 102, 103, 111, 112, 113, 181, 182])
def test_realistic_inputs_pass(realistic, tipo):
    assert _errors(realistic[tipo]) == set()


@pytest.mark.parametrize(
    "doc_type, number, code",
    [
        (2, "219999830018", "check_digit"),
        (2, "21999983001", "format"),
        (3, "13353215", "check_digit"),
        (3, "1.335.321-5", "check_digit"),
        (1, "913353215", "check_digit"),
        (3, "12A", "format"),
    ],
)
def test_check_digits(realistic, doc_type, number, code):
    body = realistic[111] if doc_type == 2 else _ticket(receptor={})
    body["receptor"] = {**body["receptor"], "tipoDocRecep": doc_type, "docRecep": number}
    assert ("receptor.docRecep", code) in _errors(body)


def test_valid_documents_pass():
    for doc_type, number in ((3, "1.234.567-2"), (3, "34020101"), (1, "934020101"), (2, "21-100342-001-7")):
        assert _errors(_ticket(receptor={"tipoDocRecep": doc_type, "docRecep": number})) == set()


def test_efactura_requires_a_rut_receiver(realistic):
    body = realistic[111]
    body["receptor"] = {**body["receptor"], "tipoDocRecep": 3, "docRecep": "13353214"}
    assert ("receptor.tipoDocRecep", "rut_required") in _errors(body)
    del body["receptor"]
    assert ("receptor", "required") in _errors(body)


def test_efactura_needs_name_and_address(realistic):
    body = realistic[112]
    body["receptor"] = {"tipoDocRecep": 2, "docRecep": "214844360018"}
    assert {
        ("receptor.rznSocRecep", "required"),
        ("receptor.dirRecep", "required"),
        ("receptor.ciudadRecep", "required"),
    } <= _errors(body)


def test_country_rules():
    assert ("receptor.codPaisRecep", "not_allowed") in _errors(
        _ticket(receptor={"tipoDocRecep": 3, "codPaisRecep": "AR", "docRecep": "13353214"})
    )
    assert ("receptor.codPaisRecep", "not_allowed") in _errors(
        _ticket(receptor={"tipoDocRecep": 6, "codPaisRecep": "US", "docRecep": "20111222"})
    )
    assert ("receptor.codPaisRecep", "required") in _errors(_ticket(receptor={"tipoDocRecep": 5, "docRecep": "X1"}))
    assert _errors(_ticket(receptor={"tipoDocRecep": 5, "codPaisRecep": "99", "docRecep": "X1"})) == set()
    assert ("receptor.tipoDocRecep", "required") in _errors(_ticket(receptor={"docRecep": "13353214"}))


def test_eticket_identification_threshold_in_ui():
    # 5,000 UI x 6.1 = 30,500 pesos of net amount (without IVA).
    assert _errors(_ticket("30500")) == set()
    assert ("receptor", "required") in _errors(_ticket("30500.01"))
    assert ("receptor", "required") not in _errors(_ticket("30500.01"), ui=Decimal("7"))
    # IVA-inclusive: 37,210 gross is 30,500 net at 22%.
    assert _errors(_ticket("37210", mntBruto=1)) == set()
    assert ("receptor", "required") in _errors(_ticket("37211", mntBruto=1))
    # Foreign currency converts with tpoCambio: 800 USD x 39 = 31,200 pesos.
    assert ("receptor", "required") in _errors(_ticket("800", tpoMoneda="USD", tpoCambio="39"))
    assert _errors(_ticket("700", tpoMoneda="USD", tpoCambio="39")) == set()
    assert ("receptor", "required") not in _errors(
        _ticket("30500.01", receptor={"tipoDocRecep": 3, "docRecep": "13353214"})
    )


def test_eticket_with_retentions_always_identifies():
    body = _ticket("10")
    body["items"][0].update(indAgenteResp="R", retencPercep=[{"codRet": "2183158", "valRetPerc": "1"}])
    assert ("receptor", "required") in _errors(body)


def test_retentions_need_ind_agente_resp():
    body = _ticket("10", receptor={"tipoDocRecep": 3, "docRecep": "13353214"})
    body["items"][0]["retencPercep"] = [{"codRet": "2183158", "valRetPerc": "1"}]
    assert ("items[0].indAgenteResp", "required") in _errors(body)


def test_remito_and_resguardo_always_identify_the_receiver(realistic):
    for tipo in (181, 182):
        body = realistic[tipo]
        del body["receptor"]
        assert ("receptor", "required") in _errors(body)


@pytest.mark.parametrize("tipo, limit", [(111, 200), (112, 200), (181, 200), (182, 200)])
def test_line_limits(realistic, tipo, limit):
    body = realistic[tipo]
    line = body["items"][0]
    body["items"] = [line] * limit
    assert ("items", "too_many") not in _errors(body)
    body["items"] = [line] * (limit + 1)
    assert ("items", "too_many") in _errors(body)


def test_an_eticket_takes_700_lines(realistic):
    body = realistic[102]
    body["items"] = body["items"] * 700
    assert ("items", "too_many") not in _errors(body)


def test_701_lines_are_refused_by_the_model_itself():
    with pytest.raises(CfeValidationError) as caught:
        parse_cfe_input(_ticket() | {"items": [_ticket()["items"][0]] * 701})
    assert ("items", "too_many") in {(e.field, e.code) for e in caught.value.errors}


def test_ind_fact_per_type(realistic):
    ticket = _ticket()
    ticket["items"][0]["indFact"] = 8
    assert ("items[0].indFact", "not_allowed") in _errors(ticket)
    remito = realistic[181]
    remito["items"][0]["indFact"] = 3
    assert ("items[1].indFact", "not_allowed") not in _errors(remito)
    assert ("items[0].indFact", "not_allowed") in _errors(remito)
    resguardo = realistic[182]
    resguardo["items"][1]["indFact"] = 8
    assert ("items[1].indFact", "not_allowed") in _errors(resguardo)


def test_fields_a_type_does_not_have(realistic):
    remito = realistic[181]
    remito["items"][0]["precioUnitario"] = "10"
    remito["fmaPago"] = 1
    assert {("items[0].precioUnitario", "not_applicable"), ("fmaPago", "not_applicable")} <= _errors(remito)
    resguardo = realistic[182]
    resguardo["items"][0]["nomItem"] = "x"
    resguardo["items"][1]["retencPercep"][0].pop("mntSujetoaRet")
    assert {("items[0].nomItem", "not_applicable"), ("items[1].retencPercep[0].mntSujetoaRet", "required")} <= _errors(
        resguardo
    )
    del realistic[181]["tipoTraslado"]
    assert ("tipoTraslado", "required") in _errors(realistic[181])
    assert ("tipoTraslado", "not_applicable") in _errors(_ticket(tipoTraslado=1))


def test_free_delivery_must_be_worth_zero():
    body = _ticket("10")
    body["items"][0]["indFact"] = 5
    assert ("items[0].precioUnitario", "must_be_zero") in _errors(body)
    body["items"][0]["precioUnitario"] = "0"
    assert _errors(body) == set()


def test_notes_need_a_reference_of_their_family(realistic):
    note = realistic[112]
    note["referencias"] = []
    assert ("referencias", "required") in _errors(note)
    note["referencias"] = [{"tpoDocRef": 101, "serie": "A", "nroCFERef": 1}]
    assert ("referencias[0].tpoDocRef", "not_allowed") in _errors(note)
    note["referencias"] = [{"tpoDocRef": 111, "serie": "A", "nroCFERef": 1}] * 2
    assert ("referencias[1]", "duplicate") in _errors(note)
    note["referencias"] = [{"indGlobal": 1, "serie": "A"}]
    assert {("referencias[0].razonRef", "required"), ("referencias[0].serie", "not_applicable")} <= _errors(note)
    note["referencias"] = [{"tpoDocRef": 111, "razonRef": "x"}]
    assert {("referencias[0].serie", "required"), ("referencias[0].nroCFERef", "required")} <= _errors(note)


def test_currency_exchange_rate_and_dates():
    assert ("tpoCambio", "required") in _errors(_ticket(tpoMoneda="USD"))
    assert ("tpoMoneda", "not_allowed") in _errors(_ticket(tpoMoneda="XYZ"))
    assert _errors(_ticket(tpoMoneda="UYI", tpoCambio="6.123")) == set()
    assert ("fchVenc", "before_issue_date") in _errors(_ticket(fchVenc="2024-05-10"))
    assert ("fmaPago", "required") in _errors({k: v for k, v in _ticket().items() if k != "fmaPago"})


def test_ind_fact_4_needs_the_other_iva():
    body = _ticket("100")
    body["items"][0]["indFact"] = 4
    assert ("mntIVAOtra", "required") in _errors(body)
    assert _errors(dict(body, mntIVAOtra="5.00")) == set()


def test_negative_totals_are_refused():
    body = _ticket("100", dscRcgGlobal=[{"tpoMovDR": "D", "glosaDR": "x", "valorDR": "150", "indFactDR": 3}])
    assert ("dscRcgGlobal", "negative_total") in _errors(body)


@pytest.mark.parametrize(
    "body, field, code",
    [
        ({"items": [{"cantidad": "1.2345"}]}, "items[0].cantidad", "decimal_places"),
        ({"items": [{"precioUnitario": "1.1234567"}]}, "items[0].precioUnitario", "decimal_places"),
        ({"tpoCambio": "39.1234"}, "tpoCambio", "decimal_places"),
        ({"items": [{"descuentoMonto": "1.234"}]}, "items[0].descuentoMonto", "decimal_places"),
        ({"items": [{"nomItem": "x" * 81}]}, "items[0].nomItem", "too_long"),
        ({"items": [{"uniMed": "metros"}]}, "items[0].uniMed", "too_long"),
        ({"tipoCFE": 999}, "tipoCFE", "not_allowed"),
        ({"colorFavorito": "azul"}, "colorFavorito", "unknown_field"),
        ({"adenda": "a\x00b"}, "adenda", "invalid"),
    ],
)
def test_shape_errors_come_back_as_field_errors(body, field, code):
    base = _ticket()
    items = body.pop("items", None)
    if items:
        base["items"][0].update(items[0])
    base.update(body)
    with pytest.raises(CfeValidationError) as caught:
        parse_cfe_input(base)
    found = {(e.field, e.code) for e in caught.value.errors}
    assert (field, code) in found
    assert all(e.message and not e.message.startswith("Input") for e in caught.value.errors)  # Spanish


def test_json_text_keeps_decimals_exact():
    cfe = parse_cfe_input(
        b'{"tipoCFE": 101, "fchEmis": "2024-05-11", "fmaPago": 1, "items": '
        b'[{"indFact": 3, "nomItem": "x", "cantidad": 0.1, "precioUnitario": 0.3}]}'
    )
    assert cfe.items[0].cantidad == Decimal("0.1") and cfe.items[0].precio_unitario == Decimal("0.3")


def test_ensure_valid_raises_with_all_errors():
    with pytest.raises(CfeValidationError) as caught:
        ensure_valid(parse_cfe_input(_ticket(tpoMoneda="USD", fchVenc="2024-01-01")), ui_value=UI)
    assert {e.field for e in caught.value.errors} == {"tpoCambio", "fchVenc"}


def test_numbering_problems():
    numbering = Numbering(serie="A", nro=101, cae_id=90240000194, dnro=1, hnro=100, fec_venc=date(2024, 5, 1))
    codes = {(e.field, e.code) for e in numbering_errors(numbering, date(2024, 5, 11))}
    assert codes == {("caeData.nro", "out_of_range"), ("caeData.fecVenc", "cae_expired")}


def test_every_field_is_documented_for_openapi():
    from pydantic import BaseModel

    from portal.service.cfe import model

    models = [
        obj
        for obj in vars(model).values()
        # the request's parts; a base that only lends behaviour (xmlchars.PrintedText) has no fields of its own
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not BaseModel and obj.model_fields
    ]
    assert len(models) == 10  # ComplFiscal (zona K) is the ninth, Contingencia (a paper CFC keyed in) the tenth
    for cls in models:
        assert cls.model_config.get("json_schema_extra", {}).get("examples"), cls.__name__
        for name, info in cls.model_fields.items():
            assert info.description, f"{cls.__name__}.{name}"
    schema = model.CfeInput.model_json_schema()
    assert {"tipoCFE", "fchEmis", "items", "receptor", "adenda"} <= set(schema["properties"])
    assert schema["additionalProperties"] is False
    for example in schema["examples"]:
        parse_cfe_input(example)


def test_build_refuses_an_expired_cae_at_signing_time(realistic, sign):
    expired = Numbering(serie="A", nro=1, cae_id=90240000194, dnro=1, hnro=10, fec_venc=date(2024, 5, 10))
    with pytest.raises(CfeValidationError) as caught:
        sign(realistic[101], numbering=expired)  # issued and signed on 2024-05-11
    assert [(e.field, e.code) for e in caught.value.errors] == [("caeData.fecVenc", "cae_expired")]


def test_gtin_codes_carry_a_valid_check_digit(realistic):
    body = realistic[111]
    body["items"][0]["codItem"] = [
        {"tpoCod": "GTIN13", "cod": "7730000000017"},
        {"tpoCod": "GTIN8", "cod": "96385074"},
        {"tpoCod": "INT1", "cod": "anything"},
    ]
    assert {e for e in _errors(body) if e[0].startswith("items")} == {("items[0].codItem[0].cod", "check_digit")}


def test_amounts_and_dates_past_what_dgi_admits_are_refused():
    huge_line = {"indFact": 3, "nomItem": "x", "cantidad": "100000", "precioUnitario": "99999999999"}
    assert ("items[0].precioUnitario", "too_large") in _errors({**_ticket(), "items": [huge_line]})
    each_fits = {"indFact": 3, "nomItem": "x", "cantidad": "60000", "precioUnitario": "10000000000"}
    found = _errors({**_ticket(), "items": [each_fits, each_fits]})
    assert ("items", "too_large") in found and not any(field.startswith("items[") for field, _code in found)
    assert ("fchVenc", "out_of_range") in _errors(_ticket(fchVenc="2100-01-01"))
    assert not _errors(_ticket(fchVenc="2050-12-31"))
