"""Totals by DGI's formulas: DGI's own samples to the cent, hand-checked cases, and properties."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from portal import paths
from portal.service.cfe.amounts import (
    Totals,
    compute_totals,
    iva_tolerance_problems,
    iva_within_dgi_tolerance,
    line_amount,
    other_way_price,
    qr_amount,
    round2,
)
from portal.service.cfe.model import CfeInput, Item

NS = {"c": "http://cfe.dgi.gub.uy"}
D = Decimal


def _cfe(tipo=101, items=(), **fields) -> CfeInput:
    return CfeInput(tipo_cfe=tipo, fma_pago=1, items=[Item(**item) for item in items], **fields)


def test_dgi_sample_eticket_to_the_cent():
    totals = compute_totals(
        _cfe(
            101,
            [
                dict(ind_fact=3, nom_item="Bananas", cantidad=D(40), precio_unitario=D(4200)),
                dict(ind_fact=2, nom_item="Manzanas", cantidad=D(18), precio_unitario=D(22)),
                dict(ind_fact=1, nom_item="Papas", cantidad=D(12), precio_unitario=D(35)),
            ],
            mnt_bruto=1,
        )
    )
    assert totals.mnt_no_grv == D("420")
    assert totals.mnt_neto_iva_tasa_min == D("360")
    assert totals.mnt_neto_iva_tasa_basica == D("137704.92")
    assert totals.mnt_iva_tasa_min == D("36")
    assert totals.mnt_iva_tasa_basica == D("30295.08")
    assert totals.mnt_total == D("168816")
    assert totals.mnt_pagar == D("168816")
    assert totals.cant_lin_det == 3
    assert totals.line_amounts == (D("168000"), D("396"), D("420"))


_TOTAL_FIELDS = {
    "MntNoGrv": "mnt_no_grv",
    "MntNetoIvaTasaMin": "mnt_neto_iva_tasa_min",
    "MntNetoIVATasaBasica": "mnt_neto_iva_tasa_basica",
    "MntIVATasaMin": "mnt_iva_tasa_min",
    "MntIVATasaBasica": "mnt_iva_tasa_basica",
    "MntTotal": "mnt_total",
    "MontoNF": "monto_nf",
    "MntPagar": "mnt_pagar",
}


def _sample_cfes():
    envelope = etree.parse(str(paths.dgi_samples_dir() / "Sob_219999830019_Ej_Mod_19072016.xml"))
    return {int(cfe.findtext(".//c:TipoCFE", namespaces=NS)): cfe for cfe in envelope.findall("c:CFE", NS)}


def _from_sample(cfe_element) -> tuple[CfeInput, etree._Element]:
    doc = cfe_element[0]
    items = [
        dict(
            ind_fact=int(item.findtext("c:IndFact", namespaces=NS)),
            nom_item=item.findtext("c:NomItem", namespaces=NS),
            cantidad=D(item.findtext("c:Cantidad", namespaces=NS)),
            precio_unitario=D(item.findtext("c:PrecioUnitario", namespaces=NS)),
        )
        for item in doc.findall("c:Detalle/c:Item", NS)
    ]
    tipo = int(doc.findtext(".//c:TipoCFE", namespaces=NS))
    bruto = doc.findtext(".//c:MntBruto", namespaces=NS)
    cfe = _cfe(tipo, items, mnt_bruto=int(bruto) if bruto else None)
    return cfe, doc.find("c:Encabezado/c:Totales", NS)


def test_dgi_sample_efactura_read_from_the_envelope():
    cfe, totales = _from_sample(_sample_cfes()[111])
    totals = compute_totals(cfe)
    assert totals.mnt_neto_iva_tasa_basica == D(totales.findtext("c:MntNetoIVATasaBasica", namespaces=NS)) == D(20000)
    assert totals.mnt_iva_tasa_basica == D(totales.findtext("c:MntIVATasaBasica", namespaces=NS)) == D(4400)
    assert totals.mnt_total == D(totales.findtext("c:MntTotal", namespaces=NS)) == D(24400)
    assert totals.monto_nf == D(totales.findtext("c:MontoNF", namespaces=NS)) == D(5000)
    assert totals.mnt_pagar == D(totales.findtext("c:MntPagar", namespaces=NS)) == D(29400)


@pytest.mark.parametrize("tipo", [101, 102, 103, 111, 112])
def test_every_dgi_sample_total_is_reproduced(tipo):
    cfe, totales = _from_sample(_sample_cfes()[tipo])
    totals = compute_totals(cfe)
    compared = 0
    for element, attribute in _TOTAL_FIELDS.items():
        published = totales.findtext(f"c:{element}", namespaces=NS)
        if published is not None:
            assert getattr(totals, attribute) == D(published.strip()), element
            compared += 1
    assert compared >= 4
    assert totals.cant_lin_det == int(totales.findtext("c:CantLinDet", namespaces=NS))


def test_line_amount_formula_and_rounding():
    item = Item(
        ind_fact=3,
        nom_item="x",
        cantidad=D("3.333"),
        precio_unitario=D("1.005005"),
        descuento_monto=D("0.5"),
        recargo_mnt=D("0.25"),
    )
    assert line_amount(item) == round2(D("3.333") * D("1.005005") - D("0.5") + D("0.25")) == D("3.10")
    assert round2(D("0.005")) == D("0.01") and round2(D("-0.005")) == D("-0.01")  # half-up, not banker's


def test_a_price_the_other_way_round_is_at_its_indicators_rate_rounded_half_up_to_four_places():
    assert other_way_price(D("320"), 3, includes_iva=True) == D("262.2951")  # 320 / 1.22 = 262.29508...
    assert other_way_price(D("100"), 3, includes_iva=False) == D("122.0000")
    assert other_way_price(D("110"), 2, includes_iva=True) == D("100.0000")  # IVA mínima, 10 %
    assert other_way_price(D("0.0025"), 3, includes_iva=False) == D("0.0031")  # 0.00305: half up, not to even
    assert other_way_price(D("0.0015"), 2, includes_iva=False) == D("0.0017")  # 0.00165
    for ind_fact in (1, 4, 10, 16):  # no IVA rate of their own: the price is the same either way
        assert other_way_price(D("99.99"), ind_fact, includes_iva=True) == D("99.99")


@settings(max_examples=100, deadline=None)
@given(
    cents=st.integers(min_value=0, max_value=10**13),
    ind_fact=st.sampled_from((2, 3)),
)
def test_a_net_price_in_cents_comes_back_from_its_price_with_iva(cents, ind_fact):
    net = D(cents) / 100
    gross = other_way_price(net, ind_fact, includes_iva=False)
    assert gross == net * (1 + (D(22) if ind_fact == 3 else D(10)) / 100)  # exact: no rounding needed
    assert other_way_price(gross, ind_fact, includes_iva=True) == net


def test_global_discounts_surcharges_non_billable_and_retentions():
    totals = compute_totals(
        _cfe(
            111,
            [
                dict(
                    ind_fact=3,
                    nom_item="a",
                    cantidad=D(1),
                    precio_unitario=D(1000),
                    ind_agente_resp="R",
                    retenc_percep=[dict(cod_ret="2183158", val_ret_perc=D(50))],
                ),
                dict(
                    ind_fact=2,
                    nom_item="b",
                    cantidad=D(1),
                    precio_unitario=D(500),
                    ind_agente_resp="A",
                    retenc_percep=[dict(cod_ret="2181410", val_ret_perc=D(7))],
                ),
                dict(ind_fact=6, nom_item="c", cantidad=D(1), precio_unitario=D(300)),
                dict(ind_fact=7, nom_item="d", cantidad=D(1), precio_unitario=D(100)),
                dict(ind_fact=10, nom_item="e", cantidad=D(1), precio_unitario=D(40)),
            ],
            dsc_rcg_global=[
                dict(tpo_mov_dr="D", glosa_dr="desc", valor_dr=D(100), ind_fact_dr=3),
                dict(tpo_mov_dr="R", glosa_dr="rec", valor_dr=D(20), ind_fact_dr=2),
                dict(tpo_mov_dr="D", glosa_dr="nf", valor_dr=D(10), ind_fact_dr=7),
            ],
        )
    )
    assert totals.mnt_neto_iva_tasa_basica == D(900) and totals.mnt_iva_tasa_basica == D(198)
    assert totals.mnt_neto_iva_tasa_min == D(520) and totals.mnt_iva_tasa_min == D(52)
    assert totals.mnt_expo_y_asim == D(40)
    assert totals.mnt_total == D(900 + 198 + 520 + 52 + 40)
    assert totals.monto_nf == D(300 - (100 - 10))  # a discount on an IndFact 7 line makes it less negative
    assert totals.retenc_percep == (("2181410", D(7)), ("2183158", D(50)))
    assert totals.mnt_tot_retenido == D(50) and totals.mnt_tot_cred_fisc == D(7)  # 2181xxx is a fiscal credit
    assert totals.mnt_pagar == totals.mnt_total + D(50) + D(210)


def test_eresguardo_and_eremito_totals():
    resguardo = compute_totals(
        _cfe(
            182,
            [
                dict(retenc_percep=[dict(cod_ret="2183165", mnt_sujetoa_ret=D(22000), val_ret_perc=D(11000))]),
                dict(
                    ind_fact=9, retenc_percep=[dict(cod_ret="2183165", mnt_sujetoa_ret=D(2000), val_ret_perc=D(1000))]
                ),
            ],
        )
    )
    assert resguardo.mnt_tot_retenido == D(10000) and resguardo.retenc_percep == (("2183165", D(10000)),)
    assert qr_amount(182, resguardo) == D(10000)
    remito = compute_totals(_cfe(181, [dict(nom_item="x", cantidad=D(3))]))
    assert remito.cant_lin_det == 1 and remito.mnt_total == 0 and qr_amount(181, remito) == 0


_AMOUNTS = st.decimals(min_value=D("0.000001"), max_value=D("99999.999999"), places=6, allow_nan=False)
_QUANTITIES = st.decimals(min_value=D("0.001"), max_value=D("9999.999"), places=3, allow_nan=False)
_LINES = st.lists(
    st.fixed_dictionaries(
        {
            "ind_fact": st.sampled_from([1, 2, 3, 6, 7, 10, 11, 12, 16]),
            "nom_item": st.just("x"),
            "cantidad": _QUANTITIES,
            "precio_unitario": _AMOUNTS,
        }
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(lines=_LINES, bruto=st.booleans())
def test_total_is_the_sum_of_its_parts(lines, bruto):
    t = compute_totals(_cfe(111, lines, mnt_bruto=bruto))
    assert t.mnt_total == (
        t.mnt_no_grv
        + t.mnt_expo_y_asim
        + t.mnt_impuesto_perc
        + t.mnt_iva_en_susp
        + t.mnt_neto_iva_tasa_min
        + t.mnt_neto_iva_tasa_basica
        + t.mnt_neto_iva_otra
        + t.mnt_iva_tasa_min
        + t.mnt_iva_tasa_basica
        + t.mnt_iva_otra
    )
    assert t.mnt_pagar == t.mnt_total + t.mnt_tot_retenido + t.monto_nf
    for value in (t.mnt_total, t.mnt_pagar, t.mnt_neto_iva_tasa_basica, t.mnt_iva_tasa_min):
        assert value == round2(value)  # never more than 2 decimals
    for ind_fact, net, iva, rate in (
        (3, t.mnt_neto_iva_tasa_basica, t.mnt_iva_tasa_basica, D(22)),
        (2, t.mnt_neto_iva_tasa_min, t.mnt_iva_tasa_min, D(10)),
    ):
        gross = sum((a for a, line in zip(t.line_amounts, lines, strict=True) if line["ind_fact"] == ind_fact), D(0))
        if bruto:
            # IVA-inclusive prices: net + IVA is the gross exactly, and IVA stays within DGI's cent.
            assert net + iva == gross
            assert iva_within_dgi_tolerance(net, rate, iva)
        else:
            assert net == gross and iva == round2(net * rate / 100)
    assert iva_tolerance_problems(t) == []


@settings(max_examples=100, deadline=None)
@given(lines=_LINES, bruto=st.booleans(), data=st.data())
def test_line_order_does_not_matter(lines, bruto, data):
    shuffled = data.draw(st.permutations(lines))
    first = compute_totals(_cfe(111, lines, mnt_bruto=bruto))
    second = compute_totals(_cfe(111, shuffled, mnt_bruto=bruto))
    fields = [f for f in Totals.__dataclass_fields__ if f != "line_amounts"]
    assert {f: getattr(first, f) for f in fields} == {f: getattr(second, f) for f in fields}
    assert sorted(first.line_amounts) == sorted(second.line_amounts)


def _gross_efactura(*items) -> Totals:
    return compute_totals(_cfe(111, [dict(nom_item="x", **item) for item in items], mnt_bruto=1))


def test_iva_included_efactura_totals_the_price_on_the_shelf():
    """Issue 11: 12.000 at 22% and 3 x 450 - 50 at 10%, prices including IVA, total exactly 13.300,00."""
    t = _gross_efactura(
        dict(ind_fact=3, cantidad=D(1), precio_unitario=D(12000)),
        dict(ind_fact=2, cantidad=D(3), precio_unitario=D(450), descuento_monto=D(50)),
    )
    assert t.line_amounts == (D("12000.00"), D("1300.00"))
    assert (t.mnt_neto_iva_tasa_basica, t.mnt_iva_tasa_basica) == (D("9836.07"), D("2163.93"))
    assert (t.mnt_neto_iva_tasa_min, t.mnt_iva_tasa_min) == (D("1181.82"), D("118.18"))
    assert t.mnt_total == t.mnt_pagar == D("13300.00")
    assert iva_tolerance_problems(t) == []


def test_iva_included_credit_note_of_2000_is_exactly_2000():
    t = compute_totals(
        _cfe(112, [dict(ind_fact=3, nom_item="Devolución", cantidad=D(1), precio_unitario=D(2000))], mnt_bruto=1)
    )
    assert (t.mnt_neto_iva_tasa_basica, t.mnt_iva_tasa_basica, t.mnt_total) == (D("1639.34"), D("360.66"), D("2000.00"))


def test_net_prices_keep_dgis_formula():
    t = compute_totals(_cfe(111, [dict(ind_fact=3, nom_item="x", cantidad=D(1), precio_unitario=D("9836.07"))]))
    assert (t.mnt_iva_tasa_basica, t.mnt_total) == (D("2163.94"), D("12000.01"))  # round2(net x 22%)


def test_dgi_tolerance_is_one_cent_per_rate():
    assert iva_within_dgi_tolerance(D("9836.07"), D(22), D("2163.93"))  # 2163.9354 - 0.0054
    assert iva_within_dgi_tolerance(D("100.00"), D(22), D("22.01"))
    assert not iva_within_dgi_tolerance(D("100.00"), D(22), D("22.02"))
    assert not iva_within_dgi_tolerance(D("100.00"), D(10), D("9.98"))
    bad = Totals(line_amounts=(), mnt_neto_iva_tasa_basica=D("100.00"), mnt_iva_tasa_basica=D("22.05"))
    assert iva_tolerance_problems(bad) == ["MntIVATasaBasica"]


def test_mnt_bruto_accepts_the_old_boolean():
    assert CfeInput.model_validate({"tipoCFE": 101, "mntBruto": True, "items": [{"nomItem": "x"}]}).mnt_bruto == 1
    assert CfeInput.model_validate({"tipoCFE": 101, "mntBruto": False, "items": [{"nomItem": "x"}]}).mnt_bruto is None
    assert CfeInput.model_validate({"tipoCFE": 101, "mntBruto": 3, "items": [{"nomItem": "x"}]}).mnt_bruto == 3
