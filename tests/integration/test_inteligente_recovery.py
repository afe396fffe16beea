"""Smart-issuance requests a killed process left `confirmed` (confirmation committed, the issue never finished):
the worker's minute sweep settles them, issued with their receipt when one was stored, else failed saying why, and
never both with an issue that finishes late."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from portal.service.comprobante import issuing
from portal.service.comprobante.models import IssuedCfe
from portal.service.inteligente import recovery, tasks
from portal.service.inteligente.models import SmartRequest, SmartRequestEvent
from portal.service.platform import db, jobs
from tests.support import cfe_bodies as bodies

PREVIEW = "/api/v1/cfe/previsualizar-emision-inteligente"
CONFIRM = "/api/v1/cfe/confirmar-emision-inteligente"
CONSULT = "/api/v1/cfe/emision-inteligente/"
LINE = {"descripcion": "Consultoría", "cantidad": "2", "precio": "1500"}


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def _preview(api_client, user) -> str:
    answer = api_client.post(PREVIEW, json={"lineas": [LINE]}, headers=user)
    assert answer.status_code == 201, answer.json
    return answer.json["requestId"]


def _left_confirmed(app, request_id: str, ago: timedelta, cfe_id: str | None = None) -> None:
    """What a process killed after the confirmation's commit leaves: `confirmed`, since `ago`."""
    at = datetime.now(UTC) - ago
    with app.app_context():
        session = db.session()
        session.execute(
            update(SmartRequest)
            .where(SmartRequest.id == request_id)
            .values(state="confirmed", updated_at=at, created_at=at - timedelta(minutes=1), cfe_id=cfe_id)
        )
        session.execute(
            update(SmartRequestEvent)
            .where(SmartRequestEvent.request_id == request_id)
            .values(at=at - timedelta(minutes=1))
        )
        session.add(SmartRequestEvent(request_id=request_id, state="confirmed", at=at, actor="usuario@demo.uy"))
        session.commit()


def _receipts(app) -> int:
    with app.app_context():
        return db.session().scalar(select(func.count()).select_from(IssuedCfe))


def test_the_sweep_fails_an_unfinished_request_links_an_issued_one_and_leaves_a_fresh_one(
    api_client, user, service_app
):
    lost, stored, fresh = (_preview(api_client, user) for _ in range(3))
    receipt = api_client.post("/api/v1/comprobante/emitir", json=bodies.body(bodies.ETICKET), headers=user).json
    _left_confirmed(service_app, lost, timedelta(minutes=6))
    _left_confirmed(service_app, stored, timedelta(minutes=6), cfe_id=receipt["idCfeEmitido"])
    _left_confirmed(service_app, fresh, timedelta(minutes=1))
    before = _receipts(service_app)

    jobs.use_app(service_app)
    tasks.settle_unfinished()  # the periodic task, enqueued and run as the worker does
    jobs.run_pending()

    failed = api_client.get(CONSULT + lost, headers=user).json
    assert (failed["estado"], failed["final"], failed["cfeEmitidos"]) == ("failed", True, [])
    assert failed["error"]["codigo"] == "emision_interrumpida"
    assert "no se emitió ningún comprobante" in failed["error"]["mensaje"]
    assert [(e["estado"], e["por"]) for e in failed["lineaDeTiempo"]][-2:] == [
        ("confirmed", "usuario@demo.uy"),
        ("failed", "sistema"),
    ]
    english = api_client.get(CONSULT + lost, headers={**user, "Accept-Language": "en"}).json
    assert english["error"]["mensaje"].startswith("The issue was cut off"), english["error"]
    assert english["lineaDeTiempo"][-1]["detalle"] == f"emision_interrumpida: {english['error']['mensaje']}"

    issued = api_client.get(CONSULT + stored, headers=user).json
    assert (issued["estado"], issued["cfeEmitidos"], issued["error"]) == ("issued", [receipt["idCfeEmitido"]], None)
    assert issued["comprobante"]["idCfeEmitido"] == receipt["idCfeEmitido"]

    assert api_client.get(CONSULT + fresh, headers=user).json["estado"] == "confirmed"
    assert _receipts(service_app) == before  # nothing issued by the sweep

    with service_app.app_context():  # a second sweep finds nothing left to do
        assert recovery.settle_unfinished() == {"issued": 0, "failed": 0}
        later = recovery.settle_unfinished(datetime.now(UTC) + timedelta(minutes=5))
    assert later == {"issued": 0, "failed": 1}  # the fresh one, once its time has come


def test_an_issue_finishing_after_the_sweep_failed_its_request_stores_nothing(
    api_client, user, service_app, monkeypatch
):
    """The sweep and a slow issue race for the same request: whichever comes second sees it settled. An issue that
    finishes after the sweep marked its request failed stores no receipt (the user issues again: never twice)."""
    request_id = _preview(api_client, user)
    before = _receipts(service_app)
    real_issue = issuing.issue

    def slow_issue(principal, cfe, **kwargs):
        # Past the bound while issuing: the sweep runs before the receipt's transaction.
        db.session().execute(
            update(SmartRequest)
            .where(SmartRequest.id == request_id)
            .values(updated_at=datetime.now(UTC) - timedelta(minutes=10))
        )
        db.session().commit()
        assert recovery.settle_unfinished() == {"issued": 0, "failed": 1}
        return real_issue(principal, cfe, **kwargs)

    monkeypatch.setattr(issuing, "issue", slow_issue)
    answer = api_client.post(CONFIRM, json={"requestId": request_id}, headers=user)
    assert answer.status_code == 409 and answer.json["error"]["code"] == "solicitud_terminada", answer.json
    state = api_client.get(CONSULT + request_id, headers=user).json
    assert (state["estado"], state["cfeEmitidos"]) == ("failed", [])
    assert state["error"]["codigo"] == "emision_interrumpida"  # the sweep's reason stands
    assert _receipts(service_app) == before
