"""Every list of the API keeps one contract: `cursor` and `limite` in, `items` and `siguienteCursor` out
(OpenAPI says so), and no list takes `limit`/`offset` or answers `siguiente`."""

from __future__ import annotations

import pytest

# The lists that page (the rest are complete lists that answer `items` and never a cursor).
PAGED = (
    "/api/v1/envios/sobres",
    "/api/v1/envios/pendientes",
    "/api/v1/envios/reportes",
    "/api/v1/envios/anulaciones",
    "/api/v1/comprobante/buscar",
    "/api/v1/cfe/emision-inteligente",
    "/api/v1/empresa/auditoria",
    "/api/v1/apikeys",
)
COMPLETE = (
    "/api/v1/empresa/sucursales",
    "/api/v1/empresa/certificados",
    "/api/v1/empresa/cae",
    "/api/v1/receptores",
    "/api/v1/correo/buzon",
)


@pytest.fixture
def spec(api_client):
    return api_client.get("/api/v1/openapi.json").json


def _schema(spec: dict, ref: str) -> dict:
    return spec["components"]["schemas"][ref.rsplit("/", 1)[1]]


def _answer(spec: dict, path: str) -> dict:
    content = spec["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    return _schema(spec, content["$ref"])


@pytest.mark.parametrize("path", PAGED)
def test_a_paged_list_takes_cursor_and_limite_and_answers_items_and_the_next_cursor(spec, path):
    parameters = {p["name"]: p for p in spec["paths"][path]["get"]["parameters"] if p["in"] == "query"}
    assert {"cursor", "limite"} <= parameters.keys() and not {"limit", "offset"} & parameters.keys()
    assert parameters["limite"]["schema"]["minimum"] == 1
    answer = _answer(spec, path)
    assert {"items", "siguienteCursor"} <= answer["properties"].keys() and "siguiente" not in answer["properties"]
    assert answer["properties"]["items"]["type"] == "array"


@pytest.mark.parametrize("path", COMPLETE)
def test_a_complete_list_answers_items(spec, path):
    answer = _answer(spec, path)
    assert answer["properties"]["items"]["type"] == "array" and len(answer["properties"]) == 1
