"""The real client's exchange method against a live service: an envelope its receiver refused for good, sent again
with `retry_exchange_envelope` (typed result, a double click replayed), and the service's refusals as the client's
errors (not in error, another company's, a read-only role)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from portal.client import CfeClient, Conflict, Forbidden, NotFound
from portal.client.cfe import CfeRequest
from portal.client.intercambio import RetriedExchangeEnvelope
from portal.service.intercambio import transport
from tests.support.envios import ENVIOS_CONFIG, drain
from tests.support.exchange import NORTE, REFUSED, RecordingTransport, to_norte


@pytest.fixture
def service_config(service_config):
    return {**service_config, **ENVIOS_CONFIG, "INTERCAMBIO_DELAY_SECONDS": 0}


@pytest.fixture
def as_user(live_service):
    from tests.conftest import mint_token

    client = CfeClient(live_service.url)
    return lambda email, company_id=1: client.as_user(mint_token(live_service.app, email), company_id=company_id)


def test_an_envelope_in_error_is_sent_again_once_and_refusals_are_typed(as_user, live_service, monkeypatch):
    wire = RecordingTransport(outcomes=[REFUSED])
    monkeypatch.setattr(transport, "deliver", wire)
    usuario = as_user("usuario@demo.uy")
    receipt = usuario.issue_receipt(CfeRequest.from_json(to_norte()), idempotency_key=f"x-{datetime.now()}")
    drain(live_service.app)
    before = datetime.now(UTC)
    envelope = usuario.get_receipt(receipt.id).exchange.envelope
    assert envelope.state == "error" and "550" in (envelope.last_error or "")
    # When it failed, read as a moment (the client's typed result), and no retry to come: it waits for one asked for.
    assert envelope.attempts == 1 and envelope.last_attempt is not None and envelope.next_attempt is None
    assert envelope.last_attempt.tzinfo is not None and envelope.last_attempt <= before

    with pytest.raises(Forbidden):
        as_user("soporte@demo.uy").retry_exchange_envelope(envelope.id)
    with pytest.raises(NotFound):
        as_user("admin@demo.uy", company_id=2).retry_exchange_envelope(envelope.id)

    retried = usuario.retry_exchange_envelope(envelope.id, idempotency_key="contract-retry-1")
    assert isinstance(retried, RetriedExchangeEnvelope) and not retried.replayed
    assert (retried.id, retried.state, retried.receiver_rut) == (envelope.id, "armado", NORTE)
    assert retried.receipt_ids == (receipt.id,) and "550" in (retried.previous_error or "")
    again = usuario.retry_exchange_envelope(envelope.id, idempotency_key="contract-retry-1")
    assert again.replayed and again.id == retried.id
    drain(live_service.app)
    assert len(wire.of("SOBRE")) == 2  # the first attempt and one retry, not two
    assert usuario.get_receipt(receipt.id).exchange.envelope.state == "entregado"
    with pytest.raises(Conflict) as refused:
        usuario.retry_exchange_envelope(envelope.id)
    assert refused.value.code == "sobre_no_reintentable"
