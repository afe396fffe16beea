"""Received envelopes on PostgreSQL: intake, duplicates decided by what is stored (E02, S20), the list with its
cursor and totals, and the answers' lease."""

from __future__ import annotations

import io

from portal.service.platform import jobs
from tests.support import recibidos as sup


def _upload(api_client, headers, data: bytes) -> dict:
    answer = api_client.post(
        "/api/v1/recibidos",
        data={"archivos": [(io.BytesIO(data), "s.xml")]},
        headers=headers,
        content_type="multipart/form-data",
    )
    assert answer.status_code == 201, answer.json
    return answer.json["sobres"][0]


def test_received_envelopes_on_postgresql(api_client, auth_headers, service_app):
    user = auth_headers("usuario@demo.uy")
    first = _upload(api_client, user, sup.envelope([sup.cfe(1), sup.cfe(2)], idemisor=1))
    assert (first["estado"], first["aceptados"]) == ("AS", 2)
    second = _upload(api_client, user, sup.envelope([sup.cfe(2), sup.cfe(3)], idemisor=2))
    assert (second["aceptados"], second["rechazados"]) == (1, 1)
    assert _upload(api_client, user, sup.envelope([sup.cfe(4)], idemisor=2))["motivos"][0]["codigo"] == "S20"
    page = api_client.get("/api/v1/recibidos", query_string={"limite": 2}, headers=user).json
    rest = api_client.get(
        "/api/v1/recibidos", query_string={"limite": 2, "cursor": page["siguienteCursor"]}, headers=user
    ).json
    assert len(page["items"]) + len(rest["items"]) == 4 and page["totales"][0]["cantidad"] == 3
    jobs.use_app(service_app)
    try:
        jobs.run_pending()  # each answer is delivered through the directory's channel to the supplier, once
    finally:
        jobs.use_app(None)
    detail = api_client.get(f"/api/v1/recibidos/{first['recibidos'][0]}", headers=user).json
    assert [(r["tipo"], r["intentos"]) for r in detail["respuestas"]] == [("ACKSobre", 1), ("ACKCFE", 1)]
    assert {r["estado"] for r in detail["respuestas"]} <= {"enviado", "sin_destino"}
