"""Characters that would change how a printed or signed receipt reads (bidi overrides, invisible and private-use
characters, a text of only spaces) are refused with a 422 naming the field, in every text that goes into a CFE;
other ways of writing a space or a line break are normalised (docs/DGI-RULES.md, "Characters in texts")."""

from __future__ import annotations

import pytest

from tests.support import cfe_bodies as bodies

EMITIR = "/api/v1/comprobante/emitir"
PREVIEW = "/api/v1/comprobante/previsualizar"
GET = "/api/v1/comprobante/getByIdCfeEmitido"

REFUSED = [
    ("\u202e", "bidi_control"),  # RIGHT-TO-LEFT OVERRIDE
    ("\u202d", "bidi_control"),  # LEFT-TO-RIGHT OVERRIDE
    ("\u2067", "bidi_control"),  # RIGHT-TO-LEFT ISOLATE
    ("\u200f", "bidi_control"),  # RIGHT-TO-LEFT MARK
    ("\u200b", "invisible_char"),  # ZERO WIDTH SPACE
    ("\u200d", "invisible_char"),  # ZERO WIDTH JOINER
    ("\u2060", "invisible_char"),  # WORD JOINER
    ("\ufeff", "invisible_char"),  # BYTE ORDER MARK
    ("\U000e0041", "invisible_char"),  # TAG LATIN CAPITAL LETTER A
    ("\ue000", "private_use"),
    ("\U000f0001", "private_use"),
]


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _problems(answer) -> dict[str, tuple[str, str]]:
    assert answer.status_code == 422, answer.json
    assert answer.json["error"]["code"] == "validation_error"
    return {f["field"]: (f["code"], f["message"]) for f in answer.json["error"]["fields"]}


@pytest.mark.parametrize(("char", "code"), REFUSED)
@pytest.mark.parametrize("field", ["receptor.rznSocRecep", "items[0].nomItem", "adenda"])
def test_a_spoofing_character_is_refused_by_issue_and_preview_naming_the_field(api_client, user, char, code, field):
    body = bodies.body(bodies.EFACTURA)
    text = f"Pago {char}100"
    if field == "adenda":
        body["adenda"] = text
    elif field == "items[0].nomItem":
        body["items"][0]["nomItem"] = text
    else:
        body["receptor"] = {**body["receptor"], "rznSocRecep": text}
    for url in (EMITIR, PREVIEW):
        problems = _problems(api_client.post(url, json=body, headers=user))
        assert problems[field][0] == code
        assert f"U+{ord(char):04X}" in problems[field][1]


@pytest.mark.parametrize("name", ["   ", "\u00a0\u00a0\u00a0", " \u3000 "])
def test_a_receiver_name_of_only_spaces_is_refused(api_client, user, name):
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "rznSocRecep": name}
    assert _problems(api_client.post(EMITIR, json=body, headers=user))["receptor.rznSocRecep"][0] == "blank"


def test_other_spaces_and_line_separators_are_normalised_in_what_is_signed(api_client, user):
    body = bodies.body(bodies.EFACTURA)
    body["receptor"] = {**body["receptor"], "rznSocRecep": "Viajes\u00a0Arapey\u2009S.R.L."}
    body["adenda"] = "Orden 1\u2028Orden 2\u2029Fin"
    issued = bodies.issue(api_client, user, body)
    got = api_client.get(GET, query_string={"idCfeEmitido": issued["idCfeEmitido"]}, headers=user).json
    assert got["receptor"]["rznSocRecep"] == "Viajes Arapey S.R.L."
    assert got["adenda"] == "Orden 1\nOrden 2\nFin"
    xml = api_client.get(
        GET, query_string={"idCfeEmitido": issued["idCfeEmitido"]}, headers={**user, "Accept": "application/xml"}
    ).get_data(as_text=True)
    assert "<RznSocRecep>Viajes Arapey S.R.L.</RznSocRecep>" in xml and "\u00a0" not in xml


def test_a_one_line_company_text_refuses_a_line_separator(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    branch = {"codigo": 7, "nombre": "Pocitos\u2028Centro", "domicilio": "Av. Brasil 2890", "ciudad": "Montevideo"}
    answer = api_client.post("/api/v1/empresa/sucursales", json={**branch, "departamento": "Montevideo"}, headers=admin)
    assert _problems(answer)["nombre"][0] == "control_chars"
    spoofed = {**branch, "nombre": "Pocitos\u202e", "departamento": "Montevideo"}
    assert _problems(api_client.post("/api/v1/empresa/sucursales", json=spoofed, headers=admin))["nombre"][0] == (
        "bidi_control"
    )


def test_a_note_reason_and_a_smart_issue_line_refuse_them_too(api_client, user):
    factura = bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    reason = {"idCfeEmitido": factura["idCfeEmitido"], "razon": "Error\u200b"}
    problems = _problems(api_client.post("/api/v1/comprobante/notaCreditoTotal", json=reason, headers=user))
    assert problems["razon"][0] == "invisible_char"
    smart = {"lineas": [{"descripcion": "Consultor\u00eda \u202e", "cantidad": "1", "precio": "100"}]}
    problems = _problems(api_client.post("/api/v1/cfe/previsualizar-emision-inteligente", json=smart, headers=user))
    assert problems["lineas[0].descripcion"][0] == "bidi_control"
