"""Issue #14's list of raw or technical texts that reached people, each answered now in the product's voice
(docs/VOICE.md). The service side through its API; the portal side through the portal. Some bullets are
proven elsewhere: the 405 page (test_portal_shell), the superseded smart preview (test_inteligente_portal),
the certificate's expiry date (test_dgi_api) and every message literal of the service (tests/unit/test_voice.py).
"""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from tests.support import cfe_bodies as bodies

EMITIR = "/api/v1/comprobante/emitir"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _messages(answer) -> dict[str, str]:
    assert answer.status_code == 422, answer.json
    return {f["field"]: f["message"] for f in answer.json["error"]["fields"]}


def _technical(text: str) -> bool:
    """Library English, an API field name, an ISO date, a double period."""
    return bool(re.search(r"\b(should|input|expected|found)\b|\b[a-z]+[A-Z]\w*|\d{4}-\d{2}-\d{2}|\.\.", text))


def test_a_price_with_too_many_whole_digits_is_said_in_spanish(api_client, user):
    body = bodies.body(bodies.EFACTURA)
    body["items"][0]["precioUnitario"] = "123456789012.5"
    message = _messages(api_client.post(EMITIR, json=body, headers=user))["items[0].precioUnitario"]
    assert message.startswith("Demasiadas cifras antes de la coma (máximo ")
    assert "Decimal input" not in message


def test_a_negative_total_names_the_amount_in_words_and_pesos(api_client, user):
    body = bodies.body(bodies.EFACTURA)
    body["items"] = [{"indFact": 3, "nomItem": "Consultoría", "cantidad": "1", "precioUnitario": "100"}]
    body["dscRcgGlobal"] = [{"tpoMovDR": "D", "glosaDR": "Descuento", "valorDR": "1000", "indFactDR": 3}]
    answer = api_client.post(EMITIR, json=body, headers=user)
    assert answer.status_code == 422
    said = [f["message"] for f in answer.json["error"]["fields"] if f["field"] == "dscRcgGlobal"]
    message = next(m for m in said if "tasa básica" in m)
    assert re.fullmatch(
        r"El total neto a tasa básica quedaría negativo \(-\d{1,3}(\.\d{3})*,\d\d\): revisá los descuentos\.", message
    ), message


def test_a_receipt_without_lines_says_one_is_needed(api_client, user):
    body = bodies.body(bodies.ETICKET)
    body["items"] = []
    assert _messages(api_client.post(EMITIR, json=body, headers=user)) == {
        "items": "Tiene que tener al menos un elemento."
    }


def test_a_date_out_of_dgi_range_is_said_dd_mm_yyyy(api_client, user):
    body = bodies.body(bodies.ETICKET)
    body["fchEmis"] = "2010-05-01"
    message = _messages(api_client.post(EMITIR, json=body, headers=user))["fchEmis"]
    assert message == "La fecha debe estar entre el 01/10/2011 y el 31/12/2050."


def test_a_smart_receiver_document_that_is_neither_rut_nor_ci_asks_in_words(api_client, user):
    answer = api_client.post(
        "/api/v1/cfe/previsualizar-emision-inteligente",
        json={"receptor": {"documento": "AB-123"}, "lineas": [{"descripcion": "Té", "cantidad": "1", "precio": "10"}]},
        headers=user,
    )
    message = _messages(answer)["receptor.documento"]
    assert message.startswith("No es un RUT ni una cédula válidos; indicá qué documento es")
    assert not _technical(message) and "tipoDoc" not in message


def test_an_unknown_receipt_is_not_found_in_your_company_without_field_names(api_client, user):
    answer = api_client.get("/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido=0123456789abcdef", headers=user)
    assert answer.status_code == 404
    assert answer.json["error"]["message"] == "No existe ese comprobante en tu empresa."


def test_xml_that_is_not_xml_is_explained_in_spanish_with_where(api_client, user):
    answer = api_client.post(
        "/api/v1/comprobante/firmarXml", data=b"hola", headers={**user, "Content-Type": "application/xml"}
    )
    assert answer.status_code == 422
    said = answer.json["error"]["message"] + " ".join(f["message"] for f in answer.json["error"]["fields"])
    assert "no empieza con una etiqueta (línea 1, columna 1)" in said
    assert "Start tag" not in said and "expected" not in said


def test_an_empty_sign_in_form_says_what_is_missing(api_client):
    from tests.support.oidc import authorize_path

    path = authorize_path()[0]
    page = api_client.get(path)
    token = BeautifulSoup(page.data, "html.parser").find("input", {"name": "csrf_token"})["value"]
    answer = api_client.post(path, data={"csrf_token": token, "email": "", "password": ""})
    assert answer.status_code == 422
    alert = BeautifulSoup(answer.data, "html.parser").find(attrs={"role": "alert"})
    assert alert.get_text(strip=True) == "Escribí tu correo electrónico y tu contraseña."
    english = api_client.post(path + "&ui_locales=en", data={"csrf_token": token, "email": "x", "password": ""})
    assert "Enter your e-mail and your password." in english.get_data(as_text=True)


def test_switching_to_a_company_whose_name_ends_in_a_period_has_one_period(signed_in):
    client = signed_in("admin@demo.uy")
    token = BeautifulSoup(client.get("/").data, "html.parser").find("input", {"name": "csrf_token"})["value"]
    client.post("/empresa", data={"company_id": "1", "csrf_token": token})
    text = BeautifulSoup(client.get("/").data, "html.parser").get_text(" ", strip=True)
    assert "Demo S.A.: ahora trabajás en esta empresa." in text
    assert "S.A.." not in text
