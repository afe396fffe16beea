"""Customers on PostgreSQL, where two reads of new receivers (a person opening Clientes while the minute's task
runs) are two transactions at once."""

from __future__ import annotations

import threading

from tests.integration.test_clientes_api import (  # noqa: F401  # the fixture, and the tests run on PostgreSQL
    CLIENTES,
    _factura,
    test_a_receipt_that_commits_after_a_later_one_was_read_still_makes_its_customer,
    test_each_receiver_becomes_a_customer_once_and_edits_are_kept,
    user,
)
from tests.postgres.test_postgres import wait_for_lock_waiters
from tests.support.cfe_bodies import issue


def test_two_reads_of_the_same_new_receiver_at_once_add_it_once(api_client, user, postgres_server, pg_database):  # noqa: F811
    """Another read of the receipts (its customer added, its mark moved, not yet committed) while the list is
    asked for: the list waits for it and then finds the customer, instead of adding it again (a 500 on the
    unique index)."""
    assert api_client.get(CLIENTES, headers=user).status_code == 200  # the company's mark exists
    issue(api_client, user, _factura("211003420017", "Viajes Arapey S.R.L."))
    other = postgres_server.connect(pg_database)
    other.execute("SELECT read_until FROM cliente_lectura WHERE company_id = 1 FOR UPDATE")
    other.execute(
        "INSERT INTO cliente (company_id, doc_type, country, document, name, search_name, currency, payment_terms,"
        " source, created_at, updated_at) VALUES (1, 2, 'UY', '211003420017', 'Viajes Arapey S.R.L.',"
        " 'viajes arapey s.r.l.', 'UYU', 1, 'comprobante', now(), now())"
    )
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("answer", api_client.get(CLIENTES, headers=user)))
    worker.start()
    try:
        wait_for_lock_waiters(postgres_server, pg_database)
    finally:
        other.execute("UPDATE cliente_lectura SET read_until = now() WHERE company_id = 1")
        other.commit()
        other.close()
        worker.join(timeout=30)
    answer = outcome["answer"]
    assert answer.status_code == 200, answer.json
    assert [c["docRecep"] for c in answer.json["items"]] == ["211003420017"]
