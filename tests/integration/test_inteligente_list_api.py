"""The list of a company's smart-issuance requests: newest first, filters that add up (state, creator,
days in Montevideo, the receipt's number as people type it), stable keyset pages, only the caller's company."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from portal.service.comprobante.models import CaeRangeRecord
from portal.service.inteligente.models import SmartRequest
from portal.service.platform import db

LIST = "/api/v1/cfe/emision-inteligente"
DIRECT = "/api/v1/cfe/emitir-inteligente"
PREVIEW = "/api/v1/cfe/previsualizar-emision-inteligente"
CONFIRM = "/api/v1/cfe/confirmar-emision-inteligente"
LINE = {"descripcion": "Café", "cantidad": "2", "precio": "122"}


def _issue(api_client, headers) -> dict:
    answer = api_client.post(DIRECT, json={"lineas": [LINE]}, headers=headers)
    assert answer.status_code == 201, answer.json
    return answer.json


def _set_created(service_app, request_id: str, moment: datetime) -> None:
    with service_app.app_context():
        db.session().execute(update(SmartRequest).where(SmartRequest.id == request_id).values(created_at=moment))
        db.session().commit()


def _ids(answer) -> list[str]:
    assert answer.status_code == 200, answer.json
    return [item["requestId"] for item in answer.json["items"]]


@pytest.fixture
def made(api_client, auth_headers, service_app):
    """Company 1: two issued (usuario, admin), one previewed, one failed; company 2: one issued. Created
    on known moments (UTC) so that days and order are certain."""
    usuario, admin = auth_headers("usuario@demo.uy"), auth_headers("admin@demo.uy", company_id=1)
    issued = _issue(api_client, usuario)
    by_admin = _issue(api_client, admin)
    previewed = api_client.post(PREVIEW, json={"lineas": [LINE]}, headers=usuario).json
    doomed = api_client.post(PREVIEW, json={"lineas": [LINE]}, headers=usuario).json
    with service_app.app_context():
        db.session().execute(
            update(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)
            .values(next_nro=CaeRangeRecord.hnro + 1)
        )
        db.session().commit()
    failed = api_client.post(
        CONFIRM, headers=usuario, json={"requestId": doomed["requestId"], "hashBorrador": doomed["hashBorrador"]}
    )
    assert failed.status_code == 409 and failed.json["error"]["code"] == "cae_agotado"
    other = _issue(api_client, auth_headers("admin@demo.uy", company_id=2))
    moments = {  # Montevideo is UTC-3: 02:30 UTC on the 20th is still the 19th there
        issued["requestId"]: datetime(2026, 11, 19, 15, 0, tzinfo=UTC),
        by_admin["requestId"]: datetime(2026, 11, 20, 2, 30, tzinfo=UTC),
        previewed["requestId"]: datetime(2026, 11, 20, 14, 0, tzinfo=UTC),
        doomed["requestId"]: datetime(2026, 11, 21, 9, 0, tzinfo=UTC),
        other["requestId"]: datetime(2026, 11, 21, 10, 0, tzinfo=UTC),
    }
    for request_id, moment in moments.items():
        _set_created(service_app, request_id, moment)
    return {
        "issued": issued,
        "by_admin": by_admin,
        "previewed": previewed,
        "failed": doomed,
        "other": other,
        "newest_first": [doomed["requestId"], previewed["requestId"], by_admin["requestId"], issued["requestId"]],
    }


def test_newest_first_with_the_receipt_or_the_failure_and_never_another_companys(api_client, auth_headers, made):
    answer = api_client.get(LIST, headers=auth_headers("soporte@demo.uy"))
    assert _ids(answer) == made["newest_first"] and answer.json["siguienteCursor"] is None
    items = {item["requestId"]: item for item in answer.json["items"]}
    issued = items[made["issued"]["requestId"]]
    receipt = made["issued"]["comprobante"]
    assert issued["estado"] == "issued" and issued["modo"] == "direct" and issued["creadoPor"] == "usuario@demo.uy"
    assert issued["comprobante"] == {
        "idCfeEmitido": receipt["idCfeEmitido"],
        "tipoCFE": 101,
        "serie": "A",
        "nro": receipt["nro"],
        "tpoMoneda": "UYU",
        "mntTotal": "244.00",
    }
    assert issued["creadoEn"].startswith("2026-11-19T15:00:00")
    failed = items[made["failed"]["requestId"]]
    assert failed["estado"] == "failed" and failed["codigoError"] == "cae_agotado" and "comprobante" not in failed
    assert items[made["previewed"]["requestId"]]["estado"] == "preview"
    other = api_client.get(LIST, headers=auth_headers("admin@demo.uy", company_id=2))
    assert _ids(other) == [made["other"]["requestId"]]


@pytest.mark.parametrize("typed", ["A-{n}", "A {n:07d}", "A{n}", "{n}", "a-{n}", "A-{n:07d}", "A - {n}"])
def test_the_receipt_number_typed_any_way_finds_the_request(api_client, auth_headers, made, typed):
    number = made["issued"]["comprobante"]["nro"]
    soporte = auth_headers("soporte@demo.uy")
    answer = api_client.get(LIST, query_string={"numero": typed.format(n=number)}, headers=soporte)
    assert _ids(answer) == [made["issued"]["requestId"]]  # company 2's receipt may share the number: not listed


def test_a_number_of_another_serie_or_not_issued_finds_nothing(api_client, auth_headers, made):
    soporte = auth_headers("soporte@demo.uy")
    number = made["issued"]["comprobante"]["nro"]
    assert _ids(api_client.get(LIST, query_string={"numero": f"B-{number}"}, headers=soporte)) == []
    assert _ids(api_client.get(LIST, query_string={"numero": "9999999"}, headers=soporte)) == []


def test_state_creator_and_days_filter_and_add_up(api_client, auth_headers, made):
    soporte = auth_headers("soporte@demo.uy")

    def ids(**filters):
        return _ids(api_client.get(LIST, query_string=filters, headers=soporte))

    assert ids(estado="issued") == [made["by_admin"]["requestId"], made["issued"]["requestId"]]
    assert ids(estado="failed") == [made["failed"]["requestId"]]
    assert ids(creadoPor="ADMIN@") == [made["by_admin"]["requestId"]]  # a prefix, whatever the case
    assert ids(creadoPor="usuario@demo.uy", estado="issued") == [made["issued"]["requestId"]]
    assert ids(creadoPor="%") == []  # a wildcard is a character, not a pattern
    # 02:30 UTC on the 20th is the 19th in Montevideo
    assert ids(desde="2026-11-19", hasta="2026-11-19") == [made["by_admin"]["requestId"], made["issued"]["requestId"]]
    assert ids(desde="2026-11-20") == [made["failed"]["requestId"], made["previewed"]["requestId"]]
    assert ids(hasta="2026-11-18") == [] and ids(desde="2026-11-21", hasta="2026-11-19") == []


def test_a_lapsed_preview_is_listed_as_expired_without_anyone_consulting_it(
    api_client, auth_headers, made, service_app
):
    previewed = made["previewed"]["requestId"]
    with service_app.app_context():
        db.session().execute(
            update(SmartRequest)
            .where(SmartRequest.id == previewed)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        db.session().commit()
    soporte = auth_headers("soporte@demo.uy")
    assert _ids(api_client.get(LIST, query_string={"estado": "expired"}, headers=soporte)) == [previewed]
    assert _ids(api_client.get(LIST, query_string={"estado": "preview"}, headers=soporte)) == []


def test_pages_follow_the_cursor_without_repeating_or_skipping_even_on_equal_moments(
    api_client, auth_headers, made, service_app
):
    soporte = auth_headers("soporte@demo.uy")
    same = datetime(2026, 11, 20, 14, 0, tzinfo=UTC)  # three requests created in the same microsecond
    for key in ("previewed", "by_admin", "issued"):
        _set_created(service_app, made[key]["requestId"], same)
    everything = _ids(api_client.get(LIST, headers=soporte))
    seen, cursor = [], None
    while True:
        page = api_client.get(
            LIST, query_string={"limite": 1, **({"cursor": cursor} if cursor else {})}, headers=soporte
        )
        seen += _ids(page)
        if len(seen) == 1:
            newer = api_client.post(PREVIEW, json={"lineas": [LINE]}, headers=auth_headers("usuario@demo.uy"))
            assert newer.status_code == 201  # a newer request arrives meanwhile: the pages do not shift
        cursor = page.json.get("siguienteCursor")
        if not cursor:
            break
        assert len(page.json["items"]) == 1
    assert seen == everything and len(set(seen)) == 4


def test_the_default_page_is_20_and_at_most_100(api_client, auth_headers, service_app):
    usuario = auth_headers("usuario@demo.uy")
    for _ in range(21):
        _issue(api_client, usuario)
    first = api_client.get(LIST, headers=usuario).json
    assert len(first["items"]) == 20 and first["siguienteCursor"]
    rest = api_client.get(LIST, query_string={"cursor": first["siguienteCursor"]}, headers=usuario).json
    assert len(rest["items"]) == 1 and rest["siguienteCursor"] is None
    assert len(api_client.get(LIST, query_string={"limite": 100}, headers=usuario).json["items"]) == 21


@pytest.mark.parametrize(
    ("field", "value", "code", "message"),
    [
        (
            "numero",
            "A--15",
            "numero_invalido",
            "Escribí la serie y el número, como A-15 o A 0000015, o solo el número.",
        ),
        (
            "numero",
            "Factura 15",
            "numero_invalido",
            "Escribí la serie y el número, como A-15 o A 0000015, o solo el número.",
        ),
        ("estado", "emitida", "estado_invalido", "Elegí un estado: preview, confirmed, issued, failed o expired."),
        (
            "desde",
            "23/11/2026",
            "fecha_invalida",
            "Esa fecha no es válida: se escribe AAAA-MM-DD.",
        ),
        ("hasta", "0", "fecha_invalida", "Esa fecha no es válida: se escribe AAAA-MM-DD."),
        ("limite", "101", "limite_invalido", "Pedí entre 1 y 100 por página."),
        ("limite", "0", "limite_invalido", "Pedí entre 1 y 100 por página."),
        (
            "cursor",
            "ei_3f2a",
            "cursor_invalido",
            "Ese cursor no es válido: usá el que dio la página anterior, o pedí la primera página sin cursor.",
        ),
    ],
)
def test_bad_filters_are_422_with_a_message_for_people(api_client, auth_headers, field, value, code, message):
    answer = api_client.get(LIST, query_string={field: value}, headers=auth_headers("soporte@demo.uy"))
    assert answer.status_code == 422
    error = answer.json["error"]
    assert error["code"] == "validation_error" and error["requestId"]
    assert error["fields"] == [{"field": field, "code": code, "message": message}]


def test_a_misspelt_filter_is_refused_rather_than_ignored(api_client, auth_headers):
    answer = api_client.get(LIST, query_string={"state": "issued"}, headers=auth_headers("soporte@demo.uy"))
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"] == "state"


def test_every_role_may_read_and_a_bearer_token_is_required(api_client, auth_headers, made):
    for email in ("admin@demo.uy", "usuario@demo.uy", "soporte@demo.uy"):
        assert _ids(api_client.get(LIST, headers=auth_headers(email, company_id=1))) == made["newest_first"]
    assert api_client.get(LIST).status_code == 401
    assert api_client.get(LIST, headers={"X-API-Key": "cfe_live_not_a_key"}).status_code == 401


def test_the_operation_is_documented_with_its_filters_an_example_and_every_status(api_client):
    doc = api_client.get("/api/v1/openapi.json").json
    operation = doc["paths"][LIST]["get"]
    assert {p["name"] for p in operation["parameters"] if p["in"] == "query"} == {
        "estado",
        "creadoPor",
        "desde",
        "hasta",
        "numero",
        "cursor",
        "limite",
    }
    assert {"200", "401", "403", "422", "500"} <= set(operation["responses"])
    assert operation["security"] == [{"bearerAuth": []}]
    example = doc["components"]["schemas"]["ListaSolicitudes"]["examples"][0]
    assert example["items"][0]["comprobante"]["serie"] == "A" and example["siguienteCursor"]


def test_a_request_says_its_moments_as_the_list_and_every_other_answer_does(api_client, auth_headers):
    """The list said a request's `creadoEn` as "...Z" and the request itself as "...+00:00" (its timeline and
    `venceEn` too): one moment, two spellings, between two answers about the same request."""
    headers = auth_headers("usuario@demo.uy")
    preview = api_client.post(PREVIEW, json={"lineas": [LINE]}, headers=headers)
    assert preview.status_code == 201 and preview.json["venceEn"].endswith("Z")
    one = api_client.get(f"{LIST}/{preview.json['requestId']}", headers=headers).json
    listed = next(i for i in api_client.get(LIST, headers=headers).json["items"] if i["requestId"] == one["requestId"])
    assert one["creadoEn"] == listed["creadoEn"] and one["creadoEn"].endswith("Z")
    assert one["venceEn"].endswith("Z") and all(event["en"].endswith("Z") for event in one["lineaDeTiempo"])


@pytest.mark.parametrize("typed", ["A-0000000", "0", " \t00000000 "])
def test_a_number_zero_is_refused_as_the_documented_pattern_says(api_client, auth_headers, typed):
    """No receipt is number 0: the query's pattern (the OpenAPI document's) refuses it, where the list answered 500."""
    answer = api_client.get(LIST, query_string={"numero": typed}, headers=auth_headers("soporte@demo.uy"))
    assert answer.status_code == 422 and answer.json["error"]["fields"][0]["field"] == "numero", answer.json
