"""The company's settings on PostgreSQL, where two admins' requests are two transactions at once."""

from __future__ import annotations

import threading

from tests.integration.test_empresa_api import BASE, BRANCH, upload_cae, upload_cert
from tests.postgres.test_postgres import wait_for_lock_waiters
from tests.support.empresa_files import cae_xml, p12


def _answer_after(holder, request, postgres_server, pg_database):
    """`request`'s answer, sent while `holder` (another admin's transaction, its statements run) is open: the
    request must wait for it, and is answered once `holder` commits."""
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("answer", request()))
    worker.start()
    try:
        wait_for_lock_waiters(postgres_server, pg_database, timeout=5)
        assert "answer" not in outcome  # still waiting for the other admin
    finally:
        holder.commit()
        holder.close()
        worker.join(timeout=30)
    return outcome["answer"]


def test_two_admins_retiring_the_two_certificates_in_force_at_once_leave_one(
    api_client, auth_headers, postgres_server, pg_database
):
    """Another admin's retirement of the other certificate, not yet committed: the request waits for it and
    then refuses to retire the last one that signs, instead of leaving the company unable to issue."""
    admin = auth_headers("admin@demo.uy", 1)
    other = upload_cert(api_client, admin, p12(valid_to_days=200))
    assert other.status_code == 201, other.json
    [first] = [
        c["id"]
        for c in api_client.get(f"{BASE}/certificados", headers=admin).json["items"]
        if c["id"] != other.json["id"]
    ]
    holder = postgres_server.connect(pg_database)
    holder.execute("SELECT id FROM certificate WHERE id = %s FOR UPDATE", (other.json["id"],))
    holder.execute("UPDATE certificate SET retired_at = now() WHERE id = %s", (other.json["id"],))
    answer = _answer_after(
        holder,
        lambda: api_client.post(f"{BASE}/certificados/{first}/baja", headers=admin),
        postgres_server,
        pg_database,
    )
    assert answer.status_code == 409, answer.json
    assert answer.json["error"]["code"] == "unico_certificado_vigente"


def test_a_cae_upload_waits_for_another_upload_of_the_company_to_end(
    api_client, auth_headers, postgres_server, pg_database
):
    """Two overlapping files uploaded at once each found no overlap, and both ranges numbered receipts. An upload
    now holds the company until it commits: another one in progress makes it wait, then it checks what that one
    stored; the overlap itself is refused as before (test_empresa_api)."""
    admin = auth_headers("admin@demo.uy", 1)
    holder = postgres_server.connect(pg_database)
    # What another upload holds until it commits (cae_ranges.upload); issuing's KEY SHARE does not make it wait.
    holder.execute("SELECT id FROM company WHERE id = 1 FOR NO KEY UPDATE")
    answer = _answer_after(
        holder,
        lambda: upload_cae(api_client, admin, cae_xml(tipo=111, serie="C", dnro=1, hnro=2500)),
        postgres_server,
        pg_database,
    )
    assert answer.status_code == 201, answer.json
    issuing = postgres_server.connect(pg_database)  # a receipt's insert holds the company's KEY SHARE ...
    issuing.execute("SELECT id FROM company WHERE id = 1 FOR KEY SHARE")
    try:  # ... and an upload does not wait for it
        assert (
            upload_cae(
                api_client, admin, cae_xml(tipo=111, serie="D", dnro=1, hnro=100, cae_id=90260000018)
            ).status_code
            == 201
        )
    finally:
        issuing.rollback()
        issuing.close()


def test_a_branch_made_the_default_by_another_admin_meanwhile_is_not_retired(
    api_client, auth_headers, postgres_server, pg_database
):
    """Another admin makes Pocitos the default while this one retires it: the retirement read Pocitos as it was
    before that commit (not the default) and retired the branch receipts are issued from. It now waits for the
    change and refuses (409 sucursal_predeterminada)."""
    admin = auth_headers("admin@demo.uy", 1)
    created = api_client.post(f"{BASE}/sucursales", json=BRANCH, headers=admin)
    assert created.status_code == 201, created.json
    pocitos = created.json["id"]
    holder = postgres_server.connect(pg_database)
    holder.execute("SELECT id FROM empresa_sucursal WHERE company_id = 1 FOR UPDATE")
    holder.execute("UPDATE empresa_sucursal SET predeterminada = (id = %s) WHERE company_id = 1", (pocitos,))
    answer = _answer_after(
        holder,
        lambda: api_client.post(f"{BASE}/sucursales/{pocitos}/baja", headers=admin),
        postgres_server,
        pg_database,
    )
    assert answer.status_code == 409, answer.json
    assert answer.json["error"]["code"] == "sucursal_predeterminada"


def test_the_members_page_in_the_databases_order_of_names_every_one_once(api_client, auth_headers, service_app):
    """The cursor holds lower(name) as PostgreSQL folds it, and the next page starts past it in PostgreSQL's
    collation: names with accents and capitals are each listed once, in the order the database sorts them."""
    from portal.service.platform import db
    from portal.service.platform.models import Membership, User

    with service_app.app_context():
        session = db.session()
        for n, name in enumerate(["Ñandú Gómez", "ana Pérez", "Ángela Ruiz", "Zoe Díaz", "bruno Sosa", "Ana Paz"]):
            user = User(email=f"p{n}@demo.uy", name=name, password_hash="!")
            session.add(user)
            session.flush()
            session.add(Membership(user_id=user.id, company_id=1, role="usuario"))
        session.commit()
    admin = auth_headers("admin@demo.uy", 1)
    whole = api_client.get("/api/v1/empresa/miembros", headers=admin).json["items"]
    walked, cursor = [], None
    while True:
        query = {"limite": 2, **({"cursor": cursor} if cursor else {})}
        page = api_client.get("/api/v1/empresa/miembros", query_string=query, headers=admin).json
        walked += [m["email"] for m in page["items"]]
        cursor = page["siguienteCursor"]
        if cursor is None:
            break
    assert walked == [m["email"] for m in whole] and len(walked) == 9
