"""Answers keep their own schema and the schema says what the server accepts: a required field is there even
when null, a body that may be left out is documented so, and an integer written `44904.0` is an integer."""

from __future__ import annotations

import re

import jsonschema_rs
import pytest

from portal.service.platform.openapi import WEBHOOKS
from tests.support import cfe_bodies as bodies

GET = "/api/v1/comprobante/getByIdCfeEmitido"
REAPPLY = "/api/v1/comprobante/reaplicarReferencia"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def test_the_first_reference_change_says_there_was_no_reference_before(api_client, user):
    receipt = bodies.issue(api_client, user, bodies.body(bodies.ETICKET))
    first = api_client.post(
        REAPPLY, json={"idCfeEmitido": receipt["idCfeEmitido"], "referenciaCobro": "C-1"}, headers=user
    )
    got = api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=user)
    schema = api_client.get("/api/v1/openapi.json").json["components"]["schemas"]["CambioReferencia"]
    assert "referenciaAnterior" in schema["required"]
    for change in (first.json["historial"][0], got.json["historialReferencias"][0]):
        assert "referenciaAnterior" in change and change["referenciaAnterior"] is None
        assert "observacion" not in change  # optional and absent: still left out


def test_a_body_that_may_be_left_out_is_documented_so_and_only_that_one(api_client, user):
    paths = api_client.get("/api/v1/openapi.json").json["paths"]
    optional = {
        (method, path)
        for path, methods in paths.items()
        for method, entry in methods.items()
        if "requestBody" in entry and not entry["requestBody"]["required"]
    }
    assert optional == {("post", "/api/v1/correo/comprobante/{cfe_id}/envios")}
    receipt = bodies.issue(api_client, user, bodies.body(bodies.EFACTURA))
    path = f"/api/v1/correo/comprobante/{receipt['idCfeEmitido']}/envios"
    # No body at all (no Content-Type either) is the same as {}: the last recipients, here none yet.
    for answer in (api_client.post(path, headers=user), api_client.post(path, json={}, headers=user)):
        assert answer.status_code == 422 and answer.json["error"]["fields"][0]["code"] == "sin_destinatarios"
    required = api_client.post("/api/v1/comprobante/emitir", data=b"", headers=user)
    assert required.status_code in (415, 422)
    assert api_client.post(REAPPLY, data=b"", headers={**user, "Content-Type": "application/json"}).status_code == 422


def test_an_integer_written_with_a_zero_fraction_is_an_integer(api_client, auth_headers):
    admin = auth_headers("admin@demo.uy", 1)
    created = api_client.post(
        "/api/v1/apikeys",
        json={"nombre": "ERP", "rateLimit": {"limite": 44904.0, "ventanaSegundos": 60.0}},
        headers=admin,
    )
    assert created.status_code == 201, created.json
    assert created.json["rateLimit"] == {"limite": 44904, "ventanaSegundos": 60}
    for bad in (44904.5, "44904", True):
        answer = api_client.post(
            "/api/v1/apikeys",
            json={"nombre": "ERP", "rateLimit": {"limite": bad, "ventanaSegundos": 60}},
            headers=admin,
        )
        assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"] == "rateLimit.limite"


def test_printed_texts_publish_the_characters_they_accept(api_client):
    schemas = api_client.get("/api/v1/openapi.json").json["components"]["schemas"]
    name = schemas["Receptor"]["properties"]["rznSocRecep"]["anyOf"][0]
    assert name["maxLength"] == 150 and "\\u202E" in name["pattern"]
    assert "\\u2028" not in schemas["Receptor"]["properties"]["rznSocRecep"]["anyOf"][0]["pattern"]
    assert "\\u2028" in schemas["BranchIn"]["properties"]["nombre"]["pattern"]  # one line: refused there
    assert "pattern" in schemas["NotaCreditoTotal"]["properties"]["razon"]


def test_every_schema_has_its_own_plain_name(api_client):
    """Two models of one name make pydantic publish module paths (`portal__service__x__Motivo`): an integrator's
    generated client would carry them. Each model the API publishes has a name of its own."""
    schemas = api_client.get("/api/v1/openapi.json").json["components"]["schemas"]
    assert [name for name in schemas if "__" in name or name.startswith("portal")] == []


def test_a_query_parameter_given_twice_is_refused_not_read_as_its_first_value(api_client, user):
    """Schemathesis' negative data: `receptor` is one string; `?receptor=a&receptor=b` is not one."""
    answer = api_client.get("/api/v1/comprobante/buscar?receptor=Norte&receptor=Sur", headers=user)
    assert answer.status_code == 422
    assert answer.json["error"]["fields"][0]["field"] == "receptor"
    assert api_client.get("/api/v1/comprobante/buscar?receptor=Norte", headers=user).status_code == 200


def test_a_field_is_taken_only_by_the_name_the_schema_gives_it(api_client, user):
    """The models take their Python names too (the service's own code builds them so); a request does not: a body
    or a query parameter in snake_case where the schema says camelCase is refused, not read."""
    documented = bodies.body(bodies.ETICKET)
    python_named = {("tipo_cfe" if name == "tipoCFE" else name): value for name, value in documented.items()}
    refused = api_client.post("/api/v1/comprobante/emitir", json=python_named, headers=user)
    assert refused.status_code == 422
    assert {(f["field"], f["code"]) for f in refused.json["error"]["fields"]} >= {
        ("tipo_cfe", "extra_forbidden"),
        ("tipoCFE", "missing"),
    }
    query = api_client.get("/api/v1/recibidos", query_string={"monto_desde": "5"}, headers=user)
    assert query.status_code == 422 and query.json["error"]["fields"][0]["code"] == "extra_forbidden"
    assert api_client.get("/api/v1/recibidos", query_string={"montoDesde": "5"}, headers=user).status_code == 200


def test_every_example_the_document_shows_is_what_its_schema_says(api_client):
    """A reader copies the examples: each JSON example of a body or an answer must validate against its own schema
    (the received list's example lacked two required fields after they were added); a webhook's body too."""
    document = api_client.get("/api/v1/openapi.json").json
    components = {"components": document["components"]}
    wrong, webhooks_shown = [], set()
    for path, methods in [*document["paths"].items(), *document["webhooks"].items()]:
        for method, operation in methods.items():
            bodies = [("body", operation.get("requestBody") or {})]
            bodies += [(status, answer) for status, answer in operation.get("responses", {}).items()]
            for where, part in bodies:
                content = (part.get("content") or {}).get("application/json") or {}
                examples = [content["example"]] if "example" in content else []
                examples += [named["value"] for named in (content.get("examples") or {}).values() if "value" in named]
                if not examples or "schema" not in content:
                    continue
                if path in document["webhooks"]:
                    webhooks_shown.add(path)
                validator = jsonschema_rs.Draft202012Validator({**content["schema"], **components})
                for example in examples:
                    errors = [str(error).splitlines()[0] for error in validator.iter_errors(example)]
                    if errors:
                        wrong.append(f"{method.upper()} {path} {where}: {errors[:2]}")
    assert not wrong, wrong
    assert "intercambio.aceptacion_confirmada" in webhooks_shown  # a delivery as its webhook receives it


def test_every_webhook_shows_what_its_integrator_receives(api_client):
    """An integrator writes the handler of an event from its example: every webhook the service registers shows at
    least one body as delivered, and every event of an example is the webhook it illustrates."""
    document = api_client.get("/api/v1/openapi.json").json
    assert set(document["webhooks"]) == set(WEBHOOKS)
    without = []
    for name, methods in document["webhooks"].items():
        media = methods["post"]["requestBody"]["content"]["application/json"]
        shown = [named["value"] for named in (media.get("examples") or {}).values()]
        if not shown:
            without.append(name)
        assert all(body["type"] == name for body in shown), name
    assert without == []


def _decimal_properties(node):
    """Every property of the document that takes a decimal as a JSON number or as text: (its number branch, its
    text branch)."""
    if isinstance(node, dict):
        branches = node.get("anyOf", ())
        number = next((b for b in branches if b.get("type") == "number"), None)
        text = next((b for b in branches if b.get("type") == "string"), None)
        if number is not None and text is not None:
            yield number, text
        for value in node.values():
            yield from _decimal_properties(value)
    elif isinstance(node, list):
        for value in node:
            yield from _decimal_properties(value)


def test_a_decimals_bounds_are_the_servers_as_a_number_and_as_text(api_client, auth_headers):
    """A bound such as 999999999999999.99 is 1e15 as a JSON number: published as a maximum it let 10^15 through a
    schema the server refused. Such bounds are exclusive powers of ten; and a decimal sent as text is a number
    within them ("0" is no quantity)."""
    document = api_client.get("/api/v1/openapi.json").json
    found = list(_decimal_properties(document["components"]))
    assert found
    for number, text in found:
        for bound in ("maximum", "minimum"):
            assert abs(number.get(bound, 0)) < 1e10, number  # larger ones are exclusive powers of ten
        if "pattern" in text:
            assert not re.search(text["pattern"], "abc"), text
    price = {"codigo": "P-1", "nombre": "Caro", "precio": 1e11}
    refused = api_client.post("/api/v1/productos", json=price, headers=auth_headers("admin@demo.uy", 1))
    assert refused.status_code == 422 and refused.json["error"]["fields"][0]["field"] == "precio", refused.json
    lines = document["components"]["schemas"]["LineaInteligente"]["properties"]["cantidad"]["anyOf"]
    quantity = next(b for b in lines if b["type"] == "string")["pattern"]
    assert not re.search(quantity, "0") and not re.search(quantity, "-2") and re.search(quantity, "0.5")


def test_a_text_measured_once_stripped_says_so_in_its_pattern(api_client, auth_headers):
    """A voiding reason is at least 3 characters once the spaces at its ends are stripped: "0" and a rare CJK
    character padded with no-break spaces met the published minLength, and the server refused it. Its pattern now
    says it; the server's rule is unchanged."""
    schemas = api_client.get("/api/v1/openapi.json").json["components"]["schemas"]
    pattern = schemas["AnulacionSolicitud"]["properties"]["motivo"]["pattern"]
    padded = "0\U0002fc74\u00a0\u00a0"
    assert not re.search(pattern, padded) and re.search(pattern, "Papeles rotos") and re.search(pattern, "a b")
    answer = api_client.post(
        "/api/v1/envios/anulaciones", json={"tipoCFE": 101, "motivo": padded}, headers=auth_headers("admin@demo.uy", 1)
    )
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"] == "motivo"
