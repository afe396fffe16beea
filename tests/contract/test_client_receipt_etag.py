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
