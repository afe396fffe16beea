"""The issuing form filled from the catalogues: a line's products suggested as its description is typed, the
customer with the typed document filling the empty receiver fields (before DGI, never over what was typed), and
the day's exchange rate filling an empty rate field with whose rate it is."""

from __future__ import annotations

import json
import random
import uuid
from decimal import Decimal

import pytest

from portal.client import CfeClient
from portal.client.clientes import CustomerChanges, NewCustomer
from portal.client.productos import ProductFields
from portal.domain.identifiers import ci_check_digit
from portal.domain.uruguay_time import today_montevideo
from portal.service.cotizaciones.rates import rate_on
from portal.service.platform import db
from portal.web.comprobantes import payload
from tests.integration.test_comprobantes_portal import HTMX, soup
from tests.support.html import csrf

PRODUCTS = "/comprobantes/nuevo/productos"
CHECK = "/comprobantes/nuevo/documento"
RATE = "/comprobantes/nuevo/cotizacion"


@pytest.fixture
def api(live_service, live_token_for):
    return CfeClient(live_service.url).as_user(live_token_for("usuario@demo.uy"), company_id=1)


@pytest.fixture
def usuario(signed_in):
    return signed_in("usuario@demo.uy")


def _fills(page) -> dict[str, str]:
    return {e["data-fill-field"]: e["data-fill-value"] for e in page.select("[data-fill-field]")}


def test_a_lines_description_suggests_the_products_it_starts(api, usuario):
    word = "Yerba" + uuid.uuid4().hex[:6]
    api.create_product(
        ProductFields(
            code="YER-" + word[-6:], name=f"{word} 1 kg", price=Decimal("122"), unit="kg", price_includes_tax=True
        )
    )

    page = soup(usuario.get(PRODUCTS, query_string={"lines-2-nom_item": word[:9]}, headers=HTMX))

    buttons = page.select("[data-testid=product-suggestions] button[data-product-pick]")
    picked = next(json.loads(b["data-product-pick"]) for b in buttons if word in b.get_text())
    assert picked == {
        "cod_item": "YER-" + word[-6:],
        "nom_item": f"{word} 1 kg",
        "uni_med": "kg",
        "ind_fact": "3",
        "precio": "122",
        "precio_otro": "100",  # 122 with IVA at 22 % is 100 without
        "con_iva": True,
        "nota": "",  # a product in pesos on a receipt in pesos
    }
    assert {b["data-line"] for b in buttons} == {"2"}
    assert not page.select("[data-testid=price-conversion]")
    assert not soup(usuario.get(PRODUCTS, query_string={"lines-0-nom_item": "Y"}, headers=HTMX)).select("button")


def _picked(usuario, word: str, code: str, **form) -> dict:
    page = soup(usuario.get(PRODUCTS, query_string={"lines-0-nom_item": word, **form}, headers=HTMX))
    picks = (json.loads(b["data-product-pick"]) for b in page.select("button[data-product-pick]"))
    return next(pick for pick in picks if pick["cod_item"] == code)


def test_a_product_in_another_currency_is_priced_in_the_receipts_with_the_days_rate(api, usuario, service_app):
    word = "Licencia" + uuid.uuid4().hex[:6]
    api.create_product(ProductFields(code="LIC-" + word[-6:], name=word, price=Decimal("10"), currency="USD"))
    api.create_product(ProductFields(code="SOP-" + word[-6:], name=word + " soporte", price=Decimal("122")))
    today = today_montevideo()
    with service_app.app_context():
        dollar = rate_on(db.session(), "USD", today).sell
    shown_day = today.strftime("%d/%m/%Y")

    licence, support = "LIC-" + word[-6:], "SOP-" + word[-6:]
    in_pesos = _picked(usuario, word, licence, tpo_moneda="UYU", fch_emis=shown_day)
    in_dollars = _picked(usuario, word, licence, tpo_moneda="USD", fch_emis=shown_day, tpo_cambio="40")
    support_in_dollars = _picked(usuario, word, support, tpo_moneda="USD", fch_emis=shown_day, tpo_cambio="40")
    unknown = _picked(usuario, word, licence, tpo_moneda="JPY", fch_emis=shown_day)

    pesos = (Decimal("10") * dollar).quantize(Decimal("0.01"))
    assert Decimal(in_pesos["precio"].replace(",", ".")) == pesos
    rate_shown, pesos_shown = f"{dollar:.3f}".replace(".", ","), f"{pesos:.2f}".replace(".", ",")  # under 1.000
    assert in_pesos["nota"] == f"U$S\u00a010,00 a {rate_shown} = $\u00a0{pesos_shown}"
    assert in_dollars["precio"] == "10" and in_dollars["nota"] == ""  # the same currency: nothing to convert
    # A product in pesos on a receipt in dollars: at the rate in the form (the receipt's), 122 / 40.
    assert support_in_dollars["precio"] == "3,05" and support_in_dollars["precio_otro"] == "3,721"  # with IVA
    assert support_in_dollars["nota"] == "$\u00a0122,00 a 40,000 = U$S\u00a03,05"
    assert unknown["precio"] is None and "no hay cotización de JPY" in unknown["nota"]


def _new_ci() -> str:
    body = f"{random.randint(1_000_000, 9_999_999)}"
    return body + str(ci_check_digit(body))


def test_a_known_customer_fills_the_empty_receiver_fields_the_email_currency_and_terms(api, usuario):
    ci = _new_ci()
    details = CustomerChanges(
        address="Rambla 1234",
        city="Punta del Este",
        department="Maldonado",
        email="compras@cliente.uy",
        currency="USD",
        payment_terms=2,
        credit_days=30,
    )
    api.create_customer(NewCustomer(doc_type=3, document=ci, name="Ana Cliente", details=details))

    empty = soup(usuario.get(CHECK, query_string={"tipo_doc_recep": "3", "doc_recep": ci}, headers=HTMX))
    typed = soup(
        usuario.get(
            CHECK,
            query_string={"tipo_doc_recep": "3", "doc_recep": ci, "rzn_soc_recep": "Otro nombre", "tpo_moneda": "EUR"},
            headers=HTMX,
        )
    )

    assert _fills(empty) == {
        "rzn_soc_recep": "Ana Cliente",
        "dir_recep": "Rambla 1234",
        "ciudad_recep": "Punta del Este",
        "depto_recep": "Maldonado",
        "enviar_a": "compras@cliente.uy",
        "tpo_moneda": "USD",
        "fma_pago": "2",
    }
    assert "desde el cliente Ana Cliente" in empty.select_one("[data-testid=customer-filled]").get_text()
    assert "rzn_soc_recep" not in _fills(typed) and "tpo_moneda" not in _fills(typed)
    record = json.loads(empty.select_one("#dgi_completado")["value"])
    # Another document without a customer puts back what the customer filled, but not what was typed since.
    other = soup(
        usuario.get(
            CHECK,
            query_string={
                "tipo_doc_recep": "3",
                "doc_recep": _new_ci(),
                "dgi_completado": json.dumps(record),
                "tpo_moneda": "USD",
                "enviar_a": "yo@cambie.uy",
                "rzn_soc_recep": "Ana Cliente",
            },
            headers=HTMX,
        )
    )
    assert _fills(other).get("tpo_moneda") == "UYU" and "enviar_a" not in _fills(other)


def test_a_foreign_customer_picked_by_passport_fills_the_export_receiver_and_its_country(api, usuario):
    """A buyer abroad is kept in the catalogue with a passport DGI does not register: typing that passport on the
    issuing form (an e-Factura de Exportación) fills its name, address, e-mail, currency and terms as a RUT does,
    and the document's country over the form's default UY."""
    passport = f"PX{random.randint(100000, 999999)}"
    details = CustomerChanges(
        address="500 Market Street", city="San Francisco", email="ap@acme.example", currency="USD", payment_terms=2
    )
    api.create_customer(NewCustomer(doc_type=5, document=passport, name="Acme Inc.", country="US", details=details))

    filled = soup(
        usuario.get(
            CHECK,
            query_string={"tipo_doc_recep": "5", "doc_recep": passport.lower(), "cod_pais_recep": "UY"},
            headers=HTMX,
        )
    )
    unknown = soup(usuario.get(CHECK, query_string={"tipo_doc_recep": "5", "doc_recep": "ZZ0000001"}, headers=HTMX))

    assert _fills(filled) == {
        "rzn_soc_recep": "Acme Inc.",
        "dir_recep": "500 Market Street",
        "ciudad_recep": "San Francisco",
        "enviar_a": "ap@acme.example",
        "tpo_moneda": "USD",
        "fma_pago": "2",
        "cod_pais_recep": "US",
    }
    assert "Acme Inc." in filled.select_one("[data-testid=customer-filled]").get_text()
    assert _fills(unknown) == {}


def test_the_days_rate_fills_an_empty_rate_field_and_says_whose_it_is(usuario, service_app):
    today = today_montevideo()
    with service_app.app_context():
        expected = rate_on(db.session(), "USD", today)
    shown = today.strftime("%d/%m/%Y")

    filled = soup(
        usuario.get(RATE, query_string={"tpo_moneda": "USD", "fch_emis": shown, "tpo_cambio": ""}, headers=HTMX)
    )
    kept = soup(
        usuario.get(RATE, query_string={"tpo_moneda": "USD", "fch_emis": shown, "tpo_cambio": "41,5"}, headers=HTMX)
    )
    value = _fills(filled)["tpo_cambio"]
    back_to_pesos = soup(
        usuario.get(
            RATE, query_string={"tpo_moneda": "UYU", "tpo_cambio": value, "cotizacion_completada": value}, headers=HTMX
        )
    )

    assert Decimal(value.replace(",", ".")) == expected.sell
    # The demo's rates are the stand-in's: invented, and said so, never "Cotización BCU".
    said = f"Cotización del simulador del BCU (no oficial) del {expected.day.strftime('%d/%m/%Y')}"
    assert said in filled.get_text() and "Cotización BCU" not in filled.get_text()
    assert _fills(kept) == {} and "simulador del BCU (no oficial)" in kept.get_text()
    assert _fills(back_to_pesos) == {"tpo_cambio": ""}


def test_a_rate_the_bcu_published_is_proposed_as_the_bcus_in_both_languages(usuario, service_app):
    from portal.service.cotizaciones import bcu, rates

    today = today_montevideo()
    with service_app.app_context():
        session = db.session()
        rates.store(session, [bcu.PublishedRate(today, "ARS", Decimal("0.034"), Decimal("0.0351"))])
        session.commit()
    query = {"tpo_moneda": "ARS", "fch_emis": today.strftime("%d/%m/%Y"), "tpo_cambio": ""}
    spanish = soup(usuario.get(RATE, query_string=query, headers=HTMX)).get_text()
    assert f"Cotización BCU del {today:%d/%m/%Y}" in spanish and "simulador" not in spanish
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(usuario)})
    query["tpo_moneda"] = "USD"  # the demo's dollar is the stand-in's
    english = soup(usuario.get(RATE, query_string=query, headers=HTMX)).get_text()
    assert "BCU stand-in's rate (not official) of" in english


def test_a_rate_with_more_decimals_than_a_cfe_carries_is_proposed_rounded(usuario, service_app):
    """TpoCambio (A-C111) has 3 decimals (DGI's TipCambioType): a day's rate kept with 4 (an operator's correction,
    `cotizaciones fijar ... 43.1255`) is proposed as 43,126, as smart issuance does, not as a rate the receipt
    would be refused for."""
    from portal.service.cotizaciones import bcu, rates

    today = today_montevideo()
    with service_app.app_context():
        session = db.session()
        rates.store(session, [bcu.PublishedRate(today, "EUR", Decimal("43.1"), Decimal("43.1255"))], rates.OPERATOR)
        session.commit()
    shown = today.strftime("%d/%m/%Y")
    filled = soup(
        usuario.get(RATE, query_string={"tpo_moneda": "EUR", "fch_emis": shown, "tpo_cambio": ""}, headers=HTMX)
    )
    assert _fills(filled)["tpo_cambio"] == "43,126"


def test_a_picked_products_code_goes_in_the_line():
    line = {"nom_item": "Yerba", "cod_item": "YER-1", "cantidad": Decimal(1), "precio_unitario": Decimal(10)}
    body = payload.build_body({"tipo_cfe": 101, "lines": [line], "fch_emis": today_montevideo()})
    assert body.cfe.lines[0].codes[0].code == "YER-1"
    assert payload._line_data(body.cfe.lines[0])["cod_item"] == "YER-1"


def test_smart_issuance_takes_the_customers_name_currency_and_terms_for_what_is_still_default(api, usuario):
    ci = _new_ci()
    details = CustomerChanges(currency="USD", payment_terms=2, credit_days=30)
    api.create_customer(NewCustomer(doc_type=3, document=ci, name="Beto Cliente", details=details))
    ask = "/inteligente/nueva/documento"

    fresh = soup(usuario.get(ask, query_string={"documento": ci, "moneda": "UYU", "forma_pago": "1"}, headers=HTMX))
    chosen = soup(
        usuario.get(
            ask, query_string={"documento": ci, "nombre": "Otro", "moneda": "EUR", "forma_pago": "1"}, headers=HTMX
        )
    )

    assert _fills(fresh) == {"nombre": "Beto Cliente", "moneda": "USD", "forma_pago": "2"}
    assert "Cliente: Beto Cliente." in fresh.get_text()
    assert _fills(chosen) == {"forma_pago": "2"}


def test_in_english_the_proposed_rate_has_a_decimal_point_and_is_read_back(usuario, service_app):
    """The form proposed 43,126 to an English reader, who reads forty-three thousand; and the rate typed was read
    only the Spanish way."""
    from portal.service.cotizaciones import bcu, rates

    today = today_montevideo()
    with service_app.app_context():
        session = db.session()
        rates.store(session, [bcu.PublishedRate(today, "EUR", Decimal("43.1"), Decimal("43.1255"))], rates.OPERATOR)
        session.commit()
    usuario.post("/idioma", data={"lang": "en", "next": "/", "csrf_token": csrf(usuario)})
    shown = today.strftime("%d/%m/%Y")
    filled = soup(
        usuario.get(RATE, query_string={"tpo_moneda": "EUR", "fch_emis": shown, "tpo_cambio": ""}, headers=HTMX)
    )
    assert _fills(filled)["tpo_cambio"] == "43.126"
    kept = soup(
        usuario.get(RATE, query_string={"tpo_moneda": "EUR", "fch_emis": shown, "tpo_cambio": "43.126"}, headers=HTMX)
    )
    assert _fills(kept) == {}  # the rate typed stands: read as 43.126, not asked about


def test_a_receipt_in_unidades_indexadas_is_offered_the_days_ui_value(usuario, service_app):
    """The form asked the service for "UYI" (the CFE's code), which the rates call "UI": such a receipt was never
    offered a rate."""
    today = today_montevideo()
    with service_app.app_context():
        expected = rate_on(db.session(), "UI", today)
    assert expected is not None
    shown = today.strftime("%d/%m/%Y")
    filled = soup(
        usuario.get(RATE, query_string={"tpo_moneda": "UYI", "fch_emis": shown, "tpo_cambio": ""}, headers=HTMX)
    )
    assert Decimal(_fills(filled)["tpo_cambio"].replace(",", ".")) == expected.sell.quantize(Decimal("0.001"))
