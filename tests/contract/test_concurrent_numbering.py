"""32 concurrent issuers against a live service get gapless, duplicate-free numbers."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

from portal.client import CfeClient
from tests.support import cfe_bodies as bodies

ISSUERS = 32


def test_32_concurrent_issuers_get_gapless_unique_numbers(live_service, live_token_for):
    client = CfeClient(live_service.url, read_timeout=60)
    token = live_token_for("usuario@demo.uy")

    def issue(_):
        return client.as_user(token).issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)

    with ThreadPoolExecutor(max_workers=ISSUERS) as pool:
        receipts = list(pool.map(issue, range(ISSUERS)))
    numbers = sorted(r.nro for r in receipts)
    assert numbers == list(range(1, ISSUERS + 1))
    assert len({r.id for r in receipts}) == ISSUERS


def test_concurrent_retries_with_one_key_issue_one_receipt(live_service, live_token_for):
    from portal.client import Conflict

    client = CfeClient(live_service.url, read_timeout=60)
    token = live_token_for("usuario@demo.uy")
    key = uuid.uuid4().hex

    def issue(_):
        try:
            return client.as_user(token).issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=key).id
        except Conflict:
            return "conflict"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(issue, range(8)))
    ids = {o for o in outcomes if o != "conflict"}
    assert len(ids) == 1, outcomes  # every caller that got a receipt got the same one
    after = client.as_user(token).issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    assert after.nro == 2  # and only one number was used
