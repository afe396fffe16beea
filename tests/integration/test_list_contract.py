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
    "/api/v1/empresa/miembros",
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


# Every list that pages, as an integrator meets it: the seed's and those of the areas added since.
EVERY_PAGED = (*PAGED, "/api/v1/clientes", "/api/v1/productos", "/api/v1/recibidos", "/api/v1/empresa/avisos")


@pytest.mark.parametrize("path", EVERY_PAGED)
def test_the_last_page_says_so_with_a_null_cursor_on_every_list(api_client, auth_headers, spec, path):
    """Half the lists left `siguienteCursor` out on the last page and the other half answered it null: a client
    written against one (`data["siguienteCursor"]`) broke on the other. Every list answers it, null at the end."""
    answer = api_client.get(path, headers=auth_headers("admin@demo.uy", 1))
    assert answer.status_code == 200
    assert "siguienteCursor" in answer.json and answer.json["siguienteCursor"] is None
    assert "siguienteCursor" in _answer(spec, path).get("required", [])
