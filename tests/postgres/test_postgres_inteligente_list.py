"""The list of smart-issuance requests on PostgreSQL: the number join, the expired-state expression, the
case-insensitive creator prefix and keyset pages over equal timestamps read the same as on SQLite."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from portal.service.inteligente.models import SmartRequest
from portal.service.platform import db

LIST = "/api/v1/cfe/emision-inteligente"
LINE = {"descripcion": "Café", "cantidad": "2", "precio": "122"}


def test_the_request_list_filters_and_pages_on_postgresql(api_client, auth_headers, pg_service_app):
    usuario = auth_headers("usuario@demo.uy")
    issued = [
        api_client.post("/api/v1/cfe/emitir-inteligente", json={"lineas": [LINE]}, headers=usuario).json
        for _ in range(3)
    ]
    lapsed = api_client.post(
        "/api/v1/cfe/previsualizar-emision-inteligente", json={"lineas": [LINE]}, headers=usuario
    ).json
    same = datetime(2026, 11, 20, 14, 0, 0, 123456, tzinfo=UTC)
    with pg_service_app.app_context():
        db.session().execute(
            update(SmartRequest).where(SmartRequest.id.in_([i["requestId"] for i in issued])).values(created_at=same)
        )
        db.session().execute(
            update(SmartRequest)
            .where(SmartRequest.id == lapsed["requestId"])
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
        db.session().commit()

    seen, cursor = [], None
    while True:
        page = api_client.get(
            LIST, query_string={"limite": 1, **({"cursor": cursor} if cursor else {})}, headers=usuario
        ).json
        seen += [item["requestId"] for item in page["items"]]
        cursor = page.get("siguienteCursor")
        if not cursor:
            break
    assert seen[0] == lapsed["requestId"] and sorted(seen[1:]) == sorted(i["requestId"] for i in issued)
    assert len(set(seen)) == 4

    wanted = issued[1]["comprobante"]
    found = api_client.get(
        LIST,
        query_string={"numero": f"{wanted['serie']} {wanted['nro']:07d}", "creadoPor": "USUARIO@"},
        headers=usuario,
    ).json
    assert [item["requestId"] for item in found["items"]] == [issued[1]["requestId"]]
    assert found["items"][0]["comprobante"]["mntTotal"] == "244.00"
    expired = api_client.get(LIST, query_string={"estado": "expired"}, headers=usuario).json
    assert [item["requestId"] for item in expired["items"]] == [lapsed["requestId"]]
