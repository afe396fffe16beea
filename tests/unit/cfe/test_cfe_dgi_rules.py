"""DGI's blocking validations that depend on the issuer, its CAE and the signing date: one receipt DGI
would reject per rule (docs/DGI-RULES.md names the test of each)."""

from __future__ import annotations

import dataclasses
from datetime import date, timedelta
from decimal import Decimal

import pytest
from lxml import etree

from portal.service.cfe import CfeValidationError, Emission, Numbering, parse_cfe_input, validate
from portal.service.cfe.rules import ui_threshold_on
from tests.unit.cfe.conftest import SIGNED_AT

UI = Decimal("6.1")
TODAY = SIGNED_AT.date()  # 2024-05-11
NS = {"c": "http://cfe.dgi.gub.uy"}


def _errors(body: dict, regimen: str = "general", signing_date: date = TODAY) -> set[tuple[str, str]]:
    emission = Emission(signing_date=signing_date, regimen=regimen)
    return {(e.field, e.code) for e in validate(parse_cfe_input(body), ui_value=UI, emission=emission).errors}


def _ticket(*items, **fields) -> dict:
    lines = items or ({"indFact": 3, "nomItem": "x", "cantidad": "1", "precioUnitario": "100"},)
    return {"tipoCFE": 101, "fchEmis": "2024-05-11", "fmaPago": 1, "items": list(lines), **fields}


def _small_ticket(**fields) -> dict:
    return _ticket(
        {"indFact": 16, "nomItem": "Empanada", "cantidad": "3", "precioUnitario": "90"}, mntBruto=3, **fields
    )


def _signed_errors(caught) -> set[tuple[str, str]]:
    return {(e.field, e.code) for e in caught.value.errors}


def test_b_c11_unit_price_must_be_above_zero():
    zero = {"indFact": 3, "nomItem": "Regalo mal cargado", "cantidad": "1", "precioUnitario": "0"}
    assert ("items[0].precioUnitario", "must_be_positive") in _errors(_ticket(zero))
    free = {"indFact": 5, "nomItem": "Docena de trece", "cantidad": "1", "precioUnitario": "0"}
    assert _errors(_ticket(free)) == set()


def test_a_c5_issue_date_at_most_60_days_after_signing():
    assert _errors(_ticket(fchEmis=(TODAY + timedelta(days=60)).isoformat())) == set()
    assert ("fchEmis", "too_far_ahead") in _errors(_ticket(fchEmis=(TODAY + timedelta(days=61)).isoformat()))


def test_a_c5_the_issue_reported_is_refused():
    # Issue 11: a receipt dated 2027-02-21 was signed on 2026-11-23.
    assert ("fchEmis", "too_far_ahead") in _errors(_ticket(fchEmis="2027-02-21"), signing_date=date(2026, 11, 23))


def test_f_c7_referenced_receipt_date_at_most_60_days_ahead(realistic):
    body = realistic[112]
    body["referencias"][0]["fechaCFEref"] = (TODAY + timedelta(days=70)).isoformat()
    assert ("referencias[0].fechaCFEref", "too_far_ahead") in _errors(body)


def test_a_c5_1_fch_valor_month_not_after_the_issue_month(realistic):
    body = realistic[182]  # issued 2024-05-31
    body["fchValor"] = "2024-05-01"
    assert _errors(body) == set()
    body["fchValor"] = "2024-06-01"
    assert ("fchValor", "after_issue_month") in _errors(body)


def test_a_c5_1_fch_valor_within_dgis_dates(realistic):
    body = realistic[182]
    body["fchValor"] = "2010-12-31"
    assert ("fchValor", "out_of_range") in _errors(body)


def test_a_c10_mnt_bruto_2_is_for_e_boleta_only():
    assert ("mntBruto", "not_supported") in _errors(_ticket(mntBruto=2))


@pytest.mark.parametrize("regimen", ["iva_minimo", "monotributo", "monotributo_mides"])
def test_a_c10_small_taxpayers_must_send_mnt_bruto_3(regimen):
    body = _small_ticket()
    assert _errors(body, regimen) == set()
    del body["mntBruto"]
    assert ("mntBruto", "regime_requires_3") in _errors(body, regimen)


def test_a_c10_mnt_bruto_3_only_for_small_taxpayers():
    assert ("mntBruto", "not_allowed_for_regime") in _errors(_small_ticket(), "general")


def test_b_c4_indicator_16_only_for_small_taxpayers():
    body = _ticket({"indFact": 16, "nomItem": "x", "cantidad": "1", "precioUnitario": "10"})
    assert ("items[0].indFact", "not_allowed_for_regime") in _errors(body, "general")


@pytest.mark.parametrize("ind_fact", [1, 2, 3, 11, 12])
def test_b_c4_small_taxpayers_cannot_use_iva_indicators(ind_fact):
    body = _small_ticket()
    body["items"].append({"indFact": ind_fact, "nomItem": "y", "cantidad": "1", "precioUnitario": "10"})
    assert ("items[1].indFact", "not_allowed_for_regime") in _errors(body, "iva_minimo")


def test_d_c7_small_taxpayers_cannot_discount_iva_indicators():
    body = _small_ticket(dscRcgGlobal=[{"tpoMovDR": "D", "glosaDR": "Promo", "valorDR": "10", "indFactDR": 3}])
    assert ("dscRcgGlobal[0].indFactDR", "not_allowed_for_regime") in _errors(body, "monotributo")
    body["dscRcgGlobal"][0]["indFactDR"] = 16
    assert _errors(body, "monotributo") == set()


def test_g_c5_1_exonerated_issuers_bill_no_taxed_items():
    assert ("items[0].indFact", "not_allowed_for_regime") in _errors(_ticket(), "exonerado")
    exempt = {"indFact": 1, "nomItem": "x", "cantidad": "1", "precioUnitario": "100"}
    assert _errors(_ticket(exempt), "exonerado") == set()


def test_b_c6_agent_indicator_needs_its_retentions():
    body = _ticket({"indFact": 3, "nomItem": "x", "cantidad": "1", "precioUnitario": "100", "indAgenteResp": "R"})
    assert ("items[0].retencPercep", "required") in _errors(body)


def test_tabla_e_threshold_was_10000_ui_until_october_2022():
    assert ui_threshold_on(date(2022, 10, 31)) == 10000
    assert ui_threshold_on(date(2022, 11, 1)) == 5000
    # 40,000 pesos net: above 5,000 UI x 6.1 but below 10,000 UI x 6.1.
    line = {"indFact": 3, "nomItem": "x", "cantidad": "1", "precioUnitario": "40000"}
    assert ("receptor", "required") not in _errors(_ticket(line, fchEmis="2022-10-31"), signing_date=date(2022, 10, 31))
    assert ("receptor", "required") in _errors(_ticket(line, fchEmis="2022-11-01"), signing_date=date(2022, 11, 1))


# Rules that need the CAE range: checked by the engine once the number is known (the issue transaction rolls
# the number back when they fail).


def _special(cae_especial: int, causal: int | None = None) -> Numbering:
    return Numbering(
        serie="A",
        nro=1,
        cae_id=90240000194,
        dnro=1,
        hnro=100,
        fec_venc=date(2026, 5, 10),
        cae_especial=cae_especial,
        causal_cae_esp=causal,
    )


@pytest.mark.parametrize("cae_especial", [2, 3, 4])
def test_g_c5_special_cae_requires_mnt_bruto_3(sign, issuer, cae_especial):
    with pytest.raises(CfeValidationError) as caught:
        sign(_ticket(), numbering=_special(cae_especial))
    assert ("mntBruto", "cae_requires_3") in _signed_errors(caught)


def test_a_c10_mnt_bruto_3_requires_a_special_cae(sign, issuer):
    small = dataclasses.replace(issuer, regimen="iva_minimo")
    with pytest.raises(CfeValidationError) as caught:
        sign(_small_ticket(), issuer=small)
    assert ("caeData.caeEspecial", "required") in _signed_errors(caught)


def test_g_c6_exonerated_cae_needs_its_causal(sign):
    body = _ticket({"indFact": 1, "nomItem": "x", "cantidad": "1", "precioUnitario": "100"})
    with pytest.raises(CfeValidationError) as caught:
        sign(body, numbering=_special(1))
    assert ("caeData.causalCAEEsp", "required") in _signed_errors(caught)
    assert sign(body, numbering=_special(1, causal=12)).xml


def test_iva_minimo_receipt_signs_schema_valid_without_iva(sign, issuer):
    small = dataclasses.replace(issuer, regimen="iva_minimo")
    signed = sign(_small_ticket(), issuer=small, numbering=_special(2))  # build_signed_cfe checks CFEDGI.xsd
    root = etree.fromstring(signed.xml)
    assert root.findtext(".//c:MntBruto", namespaces=NS) == "3"
    assert root.find(".//c:IVATasaBasica", NS) is None and root.find(".//c:MntIVATasaBasica", NS) is None
    assert root.findtext(".//c:MntNoGrv", namespaces=NS) == root.findtext(".//c:MntTotal", namespaces=NS) == "270.00"


def test_a_c17_iva_al_dia_is_written_from_the_issuer(sign, issuer):
    assert etree.fromstring(sign(_ticket()).xml).find(".//c:IVAalDia", NS) is None
    behind = dataclasses.replace(issuer, iva_al_dia=False)
    assert etree.fromstring(sign(_ticket(), issuer=behind).xml).findtext(".//c:IVAalDia", namespaces=NS) == "1"
    # A Monotributo issuer never writes it (DGI: "Si G-C5=3 o 4, no puede existir A-C17").
    mono = dataclasses.replace(issuer, iva_al_dia=False, regimen="monotributo")
    signed = sign(_small_ticket(), issuer=mono, numbering=_special(3))
    assert etree.fromstring(signed.xml).find(".//c:IVAalDia", NS) is None


def test_mnt_bruto_1_is_written_as_dgi_wants_it(sign):
    root = etree.fromstring(sign(_ticket(mntBruto=True)).xml)
    assert root.findtext(".//c:MntBruto", namespaces=NS) == "1"


def test_the_engine_applies_the_date_window_at_signing_time(sign):
    with pytest.raises(CfeValidationError) as caught:
        sign(_ticket(fchEmis="2024-07-11"))  # signed 2024-05-11: 61 days earlier
    assert ("fchEmis", "too_far_ahead") in _signed_errors(caught)


def test_a_c5_issue_date_within_dgis_calendar():
    assert ("fchEmis", "out_of_range") in _errors(_ticket(fchEmis="2011-09-30"), signing_date=date(2011, 9, 30))


def test_a_c3_a_c4_serie_and_number_of_the_cae():
    numbering = Numbering(serie="Ñ", nro=0, cae_id=90240000194, dnro=1, hnro=100, fec_venc=date(2026, 5, 10))
    assert {(field, code) for field, code, _ in numbering.problems(TODAY)} == {
        ("serie", "format"),
        ("nro", "out_of_range"),
    }


def test_a_c40_issuer_rut_check_digit(sign, issuer):
    with pytest.raises(ValueError, match="RUT emisor inválido"):
        sign(_ticket(), issuer=dataclasses.replace(issuer, rut="219999830018"))


def test_a_c127_at_most_20_retention_codes(realistic):
    body = realistic[182]
    line = body["items"][0]
    body["items"] = [{"retencPercep": [dict(line["retencPercep"][0], codRet=str(2183100 + i))]} for i in range(21)]
    assert ("items", "too_many") in _errors(body)


@pytest.mark.parametrize(
    ("regimen", "body", "cae_especial", "causal", "expected"),
    [
        ("general", _ticket(), 2, None, {("mntBruto", "cae_requires_3")}),
        ("iva_minimo", _small_ticket(), None, None, {("caeData.caeEspecial", "required")}),
        (
            "general",
            _ticket({"indFact": 3, "nomItem": "x", "cantidad": "1", "precioUnitario": "9"}),
            1,
            12,
            {("items[0].indFact", "not_allowed_for_regime")},
        ),
        (
            "general",
            _ticket({"indFact": 1, "nomItem": "x", "cantidad": "1", "precioUnitario": "9"}),
            1,
            None,
            {("caeData.causalCAEEsp", "required")},
        ),
        ("general", _ticket(), None, None, set()),
    ],
)
def test_a_receipt_checked_before_numbering_gets_the_same_cae_errors_as_a_full_validation(
    sign, issuer, regimen, body, cae_especial, causal, expected
):
    # Issuing validates before it takes a number, then signs with sign_validated_cfe (only the CAE's rules run
    # again): the outcome must be the full validation's, the same errors in the same order.
    assert _errors(body, regimen) == set()  # what issuing checks first
    options = {"issuer": dataclasses.replace(issuer, regimen=regimen)}
    if cae_especial is not None:
        options["numbering"] = _special(cae_especial, causal)
    outcomes = []
    for checked in (False, True):
        try:
            sign(body, checked=checked, **options)
            outcomes.append([])
        except CfeValidationError as exc:
            outcomes.append(exc.errors)
    assert outcomes[0] == outcomes[1]
    assert {(e.field, e.code) for e in outcomes[1]} == expected
