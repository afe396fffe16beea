"""What issuing reads before the write lock (the rules, the issuer, the signing key) may refuse a request; a
retry of an issue that succeeded must still get its receipt back, whatever changed since."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from portal.service.platform import db
from portal.service.platform.models import Certificate
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue as _issue

EMITIR = "/api/v1/comprobante/emitir"


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def test_a_retry_replays_its_receipt_after_the_certificate_expired_and_a_new_request_is_refused(
    api_client, user, service_app
):
    first = _issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "before-expiry"})
    with service_app.app_context():
        session = db.session()
        for certificate in session.scalars(select(Certificate).where(Certificate.company_id == 1)):
            certificate.not_after = datetime.now(UTC) - timedelta(days=1)
        session.commit()  # a commit of Certificate empties the process's read cache (readcache.watch)

    again = api_client.post(
        EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "before-expiry"}
    )
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["idCfeEmitido"] == first["idCfeEmitido"]

    fresh = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "after"})
    assert fresh.status_code == 409, fresh.json
    # Refused before any number was taken: the next receipt, once a certificate is valid, follows the first.
    with service_app.app_context():
        session = db.session()
        for certificate in session.scalars(select(Certificate).where(Certificate.company_id == 1)):
            certificate.not_after = datetime.now(UTC) + timedelta(days=30)
        session.commit()
    assert _issue(api_client, user, bodies.body(bodies.ETICKET))["nro"] == first["nro"] + 1
