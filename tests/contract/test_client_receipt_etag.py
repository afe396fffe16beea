"""The client's get_receipt against a live service: the answer kept by its ETag, asked again with If-None-Match,
a 304 reusing it; a change, or another company, language or credential, never served from what was kept."""

from __future__ import annotations

import uuid

import pytest

from portal.client import CfeClient, NotFound
from tests.support import cfe_bodies as bodies


@pytest.fixture
def client(live_service):
    return CfeClient(live_service.url)


def test_a_receipt_read_again_is_the_kept_answer_until_it_changes(client, live_token_for, monkeypatch):
    api = client.as_user(live_token_for("usuario@demo.uy"))
    issued = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    statuses: list[int] = []
    send = client._send

    def recorded(*args, **kwargs):
        response = send(*args, **kwargs)
        statuses.append(response.status_code)
        return response

    monkeypatch.setattr(client, "_send", recorded)
    first = api.get_receipt(issued.id)
    again = api.get_receipt(issued.id)
    assert statuses == [200, 304] and again is first and first.version.startswith('"')
    api.reapply_reference(issued.id, "COB-9")
    changed = api.get_receipt(issued.id)
    assert statuses[-1] == 200 and changed.collection_reference == "COB-9" and changed.version != first.version
    assert api.get_receipt(issued.id) is changed and statuses[-1] == 304
    english = client.as_user(live_token_for("usuario@demo.uy"), locale="en").get_receipt(issued.id)
    assert statuses[-1] == 200 and english is not changed
    other_company = client.as_user(live_token_for("admin@demo.uy"), company_id=2)
    with pytest.raises(NotFound):
        other_company.get_receipt(issued.id)


def test_a_receipt_that_waits_says_since_when_dgi_does_not_answer_until_it_does(client, live_service, live_token_for):
    """The typed receipt carries the outage (its `dgi.dgi_down_since`), and DGI answering again is a new answer,
    never the kept one: nothing of the receipt itself moved."""
    from portal.service.envios import outage

    api = client.as_user(live_token_for("usuario@demo.uy"))
    issued = api.issue_receipt(bodies.request(bodies.EFACTURA), idempotency_key=uuid.uuid4().hex)
    answering = api.get_receipt(issued.id)
    assert answering.dgi is not None and answering.dgi.dgi_down_since is None
    with live_service.app.app_context():
        outage.failed("No se pudo conectar con el servicio de DGI.", 30)
    down = api.get_receipt(issued.id)
    assert down is not answering and down.version != answering.version
    assert down.dgi is not None and down.dgi.dgi_down_since == api.dgi_notice().down_since is not None
    assert api.get_receipt(issued.id) is down
    with live_service.app.app_context():
        outage.answered()
    back = api.get_receipt(issued.id)
    assert back is not down and back.dgi is not None and back.dgi.dgi_down_since is None
    assert back.dgi.state == down.dgi.state == "pendiente"
