"""The sweep of smart-issuance requests left `confirmed`, on PostgreSQL, where it and an issue (or another sweep)
run at once: a request whose row another transaction holds is skipped without waiting, and settled once free."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from portal.service.inteligente import recovery
from portal.service.inteligente.models import SmartRequest
from portal.service.platform import db
from tests.integration.test_inteligente_recovery import (  # noqa: F401  # the fixture, and the tests run on PostgreSQL
    _left_confirmed,
    _preview,
    test_an_issue_finishing_after_the_sweep_failed_its_request_stores_nothing,
    test_the_sweep_fails_an_unfinished_request_links_an_issued_one_and_leaves_a_fresh_one,
    user,
)


def test_a_request_another_transaction_holds_is_skipped_then_settled(api_client, user, pg_service_app):  # noqa: F811
    request_id = _preview(api_client, user)
    _left_confirmed(pg_service_app, request_id, timedelta(minutes=6))
    with pg_service_app.app_context():
        holder = db.new_session()  # an issue's transaction (or another sweep) holding the request's row
        holder.scalar(select(SmartRequest).where(SmartRequest.id == request_id).with_for_update())
        try:
            assert recovery.settle_unfinished() == {"issued": 0, "failed": 0}  # skipped, not waited for
        finally:
            holder.rollback()
            holder.close()
        assert recovery.settle_unfinished() == {"issued": 0, "failed": 1}
