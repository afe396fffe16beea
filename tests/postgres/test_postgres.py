"""The service on a real PostgreSQL server: migrations, seed, issuing every type, idempotency, numbering under
concurrency (and the row locks behind it), smart issuance, and the OpenID Connect provider's tables."""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from urllib.parse import urlsplit

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from lxml import etree
from sqlalchemy import create_engine, func, inspect, select, update
from sqlalchemy.pool import NullPool

from portal.client import CfeClient
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe
from portal.service.migrations import alembic_config, upgrade
from portal.service.platform import db
from portal.service.platform.db import Base
from portal.service.platform.model_registry import load_all_models
from portal.service.platform.models import Certificate, Company, IdempotencyRecord, Membership, OAuthClient, User
from tests.support import cfe_bodies as bodies
from tests.support.cfe_bodies import issue as _issue
from tests.support.oidc import (
    authorize_path,
    client_auth,
    code_grant,
    exchange_code,
    refresh,
    sign_in_at_provider,
    token_request,
)

EMITIR = "/api/v1/comprobante/emitir"
GET = "/api/v1/comprobante/getByIdCfeEmitido"
PREVIEW = "/api/v1/cfe/previsualizar-emision-inteligente"
CONFIRM = "/api/v1/cfe/confirmar-emision-inteligente"
DIRECT = "/api/v1/cfe/emitir-inteligente"
CONSULT = "/api/v1/cfe/emision-inteligente/"
SERVICE_LINE = {"descripcion": "Consultoría", "cantidad": "10", "precio": "1500"}
ISSUERS = 32


@pytest.fixture
def user(auth_headers):
    return auth_headers("usuario@demo.uy")


def wait_for_lock_waiters(server, database: str, timeout: float = 10.0) -> None:
    """Block until a session of `database` waits for a lock (a row lock, or another's insert of a key)."""
    deadline = time.monotonic() + timeout
    with server.admin() as admin:
        while time.monotonic() < deadline:
            if admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'", (database,)
            ).fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError(f"no session of {database} waited for a lock within {timeout:.0f} s")


def _schema_differences(url: str) -> list:
    load_all_models()
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return compare_metadata(MigrationContext.configure(connection), Base.metadata)
    finally:
        engine.dispose()


# --- schema and demo data ----------------------------------------------------------------------------------


def test_migrations_build_exactly_the_models_on_postgresql_and_go_down_and_up_again(postgres_server, empty_pg_database):
    url = postgres_server.url(empty_pg_database)
    upgrade(url)
    assert _schema_differences(url) == []
    upgrade(url)  # a second run is a no-op
    assert _schema_differences(url) == []
    engine = create_engine(url, poolclass=NullPool)
    with engine.connect() as connection:
        assert engine.dialect.name == "postgresql"
        columns = {c["name"]: c["type"] for c in inspect(connection).get_columns("cfe_emitido")}
        # The types that differ from SQLite's storage classes really are PostgreSQL's.
        assert columns["tmst_firma"].timezone is True
        assert type(columns["xml"]).__name__ == "BYTEA"
        assert type(columns["input_json"]).__name__ == "JSON"
        assert (columns["mnt_total"].precision, columns["mnt_total"].scale) == (17, 2)
        cae_columns = {c["name"]: c["type"] for c in inspect(connection).get_columns("cae_range")}
        assert type(cae_columns["cae_id"]).__name__ == "BIGINT"  # 11-digit CAE numbers
    command.downgrade(alembic_config(url), "base")  # every branch's downgrade runs on PostgreSQL too
    with engine.connect() as connection:
        assert set(inspect(connection).get_table_names()) == {"alembic_version"}
    engine.dispose()
    upgrade(url)
    assert _schema_differences(url) == []


def _counts(session) -> dict[str, int]:
    return {
        model.__tablename__: session.scalar(select(func.count()).select_from(model))
        for model in (Company, User, Membership, OAuthClient, Certificate, CaeRangeRecord)
    }


def test_seed_creates_the_demo_data_and_a_second_run_changes_nothing(pg_service_app):
    from portal.domain.cfe_types import CFE_TYPES
    from portal.service.seed import seed_demo

    with pg_service_app.app_context():
        before = _counts(db.session())
        assert before["company"] == 2 and before["user_account"] == 3 and before["membership"] == 4
        assert before["certificate"] == 2 and before["oauth_client"] == 1 and before["cae_range"] == 2 * len(CFE_TYPES)
        demo = db.session().scalar(select(Company).where(Company.rut == "219999830019"))
        assert demo.id == 1 and demo.razon_social == "Demo S.A."
        cert = db.session().scalar(select(Certificate).where(Certificate.company_id == 1))
        assert isinstance(cert.key_encrypted, bytes) and cert.not_after.tzinfo is not None
        again = list(seed_demo())
        assert again[-1] == "demo data ready"
        assert not [line for line in again if "created" in line or "registered" in line], again
        assert _counts(db.session()) == before


# --- issuing ------------------------------------------------------------------------------------------------


def test_every_supported_type_is_issued_stored_and_served_back(api_client, user, pg_service_app):
    ticket = _issue(api_client, user, bodies.body(bodies.ETICKET))
    factura = _issue(api_client, user, bodies.body(bodies.EFACTURA))
    issued = [ticket, factura]
    for tipo, base in ((102, ticket), (103, ticket), (112, factura), (113, factura)):
        issued.append(_issue(api_client, user, bodies.note(tipo, base["tipoCFE"], base["serie"], base["nro"])))
    issued.append(_issue(api_client, user, bodies.body(bodies.EREMITO)))
    issued.append(_issue(api_client, user, bodies.body(bodies.ERESGUARDO)))
    assert sorted(r["tipoCFE"] for r in issued) == [101, 102, 103, 111, 112, 113, 181, 182]
    assert all(r["nro"] == 1 for r in issued)  # one counter per type
    for receipt in issued:
        query = {"idCfeEmitido": receipt["idCfeEmitido"]}
        as_json = api_client.get(GET, query_string=query, headers=user)
        assert as_json.status_code == 200 and as_json.json["totales"] == receipt["totales"]
        # timestamptz comes back in UTC: the API still says when it was signed in Uruguay's time, as the XML.
        assert as_json.json["tmstFirma"] == receipt["tmstFirma"] and receipt["tmstFirma"].endswith("-03:00")
        assert as_json.json["creadoEn"] == receipt["creadoEn"]
        xml = api_client.get(GET, query_string=query, headers={**user, "Accept": "application/xml"}).data
        digest = etree.fromstring(xml).findtext(".//{http://www.w3.org/2000/09/xmldsig#}DigestValue")
        assert receipt["codigoSeguridad"] == digest[:6]  # the bytes came back from bytea unchanged
        pdf = api_client.get(GET, query_string=query, headers={**user, "Accept": "application/pdf"})
        assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    with pg_service_app.app_context():
        stored = db.session().scalar(select(IssuedCfe).where(IssuedCfe.id == factura["idCfeEmitido"]))
        assert stored.mnt_total == Decimal(factura["totales"]["mntTotal"])
        assert stored.tmst_firma.tzinfo is not None and stored.created_at.tzinfo is not None
        assert stored.input_json["receptor"]["docRecep"] == "214844360018"
        assert isinstance(stored.xml, bytes) and stored.xml.startswith(b"<")


def test_numbers_are_sequential_and_a_failed_issue_consumes_none(api_client, user):
    assert [_issue(api_client, user, bodies.body(bodies.ETICKET))["nro"] for _ in range(3)] == [1, 2, 3]
    bad = bodies.body(bodies.EFACTURA)
    bad["receptor"] = {**bad["receptor"], "docRecep": "214844360019"}
    assert api_client.post(EMITIR, json=bad, headers=user).status_code == 422
    assert _issue(api_client, user, bodies.body(bodies.EFACTURA))["nro"] == 1


def test_an_exhausted_range_is_a_409(api_client, user, pg_service_app):
    with pg_service_app.app_context():
        db.session().execute(
            update(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)
            .values(next_nro=CaeRangeRecord.hnro + 1)
        )
        db.session().commit()
    answer = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=user)
    assert answer.status_code == 409 and answer.json["error"]["code"] == "cae_agotado"


def test_preview_links_and_collection_references_are_stored_and_read_back(api_client, user):
    link = api_client.post(
        "/api/v1/comprobante/previsualizar",
        json=bodies.body(bodies.EFACTURA),
        headers={**user, "Accept": "application/json"},
    )
    assert link.status_code == 201, link.json
    pdf = api_client.get(urlsplit(link.json["url"]).path, headers=user)
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")  # the PDF came back from bytea whole
    receipt = _issue(api_client, user, bodies.body(bodies.EFACTURA))
    for reference in ("COB-1", "COB-2", "COB-2"):
        answer = api_client.post(
            "/api/v1/comprobante/reaplicarReferencia",
            headers=user,
            json={
                "idCfeEmitido": receipt["idCfeEmitido"],
                "referenciaCobro": reference,
                "observacion": "Transferencia",
            },
        )
        assert answer.status_code == 200, answer.json
    assert answer.json["cambio"] is False
    assert [h["referenciaCobro"] for h in answer.json["historial"]] == ["COB-2", "COB-1"]
    assert (
        api_client.get(GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers=user).json[
            "referenciaCobro"
        ]
        == "COB-2"
    )


# --- idempotency --------------------------------------------------------------------------------------------


def test_same_key_same_body_replays_and_other_body_is_422(api_client, user, pg_service_app):
    first = _issue(api_client, user, bodies.body(bodies.ETICKET), **{"Idempotency-Key": "pos-1-0001"})
    again = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "pos-1-0001"})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first
    other = api_client.post(
        EMITIR, json=bodies.body(bodies.ETICKET) | {"fmaPago": 2}, headers={**user, "Idempotency-Key": "pos-1-0001"}
    )
    assert other.status_code == 422 and other.json["error"]["code"] == "idempotency_key_reused"
    assert _issue(api_client, user, bodies.body(bodies.ETICKET))["nro"] == first["nro"] + 1
    with pg_service_app.app_context():
        record = db.session().scalar(select(IdempotencyRecord).where(IdempotencyRecord.key == "pos-1-0001"))
        assert record.state == "done" and record.response_body["idCfeEmitido"] == first["idCfeEmitido"]
        assert record.created_at.tzinfo is not None
    with pg_service_app.app_context():
        from portal.service.platform.idempotency import purge_expired

        db.session().execute(update(IdempotencyRecord).values(created_at=func.now() - timedelta(hours=25)))
        db.session().commit()
        assert purge_expired() == 1


def test_a_key_whose_first_claim_is_still_uncommitted_gets_409_not_500(api_client, user, postgres_server, pg_database):
    """The race of two first claims, made deterministic: another transaction has inserted the same key but
    not committed. The request's own INSERT then waits on the unique index, and fails once that commits."""
    from portal.service.platform.idempotency import request_fingerprint

    payload = bodies.body(bodies.ETICKET)  # fingerprinted as sent
    competitor = postgres_server.connect(pg_database)
    competitor.execute(
        "INSERT INTO idempotency_key (company_id, scope, key, request_hash, state, created_at) "
        "VALUES (1, 'comprobante.emitir', 'racing', %s, 'in_progress', now())",
        (request_fingerprint(payload),),
    )
    outcome = {}

    def request_it():
        outcome["answer"] = api_client.post(
            EMITIR, json=bodies.body(bodies.ETICKET), headers={**user, "Idempotency-Key": "racing"}
        )

    worker = threading.Thread(target=request_it)
    worker.start()
    try:
        wait_for_lock_waiters(postgres_server, pg_database)
    finally:
        competitor.commit()
        competitor.close()
        worker.join(timeout=30)
    answer = outcome["answer"]
    assert answer.status_code == 409, answer.json
    assert answer.json["error"]["code"] == "idempotency_in_progress"


# --- numbering under concurrency ----------------------------------------------------------------------------


def test_numbering_waits_for_the_counter_row_lock_and_reads_the_committed_value(
    api_client, user, postgres_server, pg_database
):
    """SELECT ... FOR UPDATE really serialises issuers: a transaction holding the e-Ticket counter makes the
    request wait, and the request then numbers from the value that transaction committed."""
    holder = postgres_server.connect(pg_database)
    holder.execute("SELECT next_nro FROM cae_range WHERE company_id = 1 AND tipo_cfe = 101 FOR UPDATE")
    holder.execute("UPDATE cae_range SET next_nro = 41 WHERE company_id = 1 AND tipo_cfe = 101")
    outcome = {}
    worker = threading.Thread(
        target=lambda: outcome.setdefault(
            "answer", api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=user)
        )
    )
    worker.start()
    try:
        wait_for_lock_waiters(postgres_server, pg_database)
        assert "answer" not in outcome  # still waiting for the lock
    finally:
        holder.commit()
        holder.close()
        worker.join(timeout=30)
    assert outcome["answer"].status_code == 201, outcome["answer"].json
    assert outcome["answer"].json["nro"] == 41


def test_requests_that_hold_their_read_session_while_they_write_do_not_starve_each_other(pg_service_app):
    """What every issuing request does (the principal's look-up keeps the request session open, then a write
    transaction), 32 at once: a capped connection pool would hand all its connections to readers waiting for
    a writer's connection, and time out after 30 s."""
    all_reading = threading.Barrier(ISSUERS, timeout=15)

    def request_like(_):
        with pg_service_app.test_request_context():
            assert db.session().scalars(select(Membership.company_id)).all()
            all_reading.wait()
            with db.write_transaction() as session:
                return session.scalar(select(func.count()).select_from(CaeRangeRecord))

    with ThreadPoolExecutor(max_workers=ISSUERS) as pool:
        assert len(set(pool.map(request_like, range(ISSUERS)))) == 1


def test_32_concurrent_issuers_get_gapless_unique_numbers(live_service, live_token_for):
    client = CfeClient(live_service.url, read_timeout=60)
    token = live_token_for("usuario@demo.uy")
    start = threading.Barrier(ISSUERS)

    def issue(_):
        start.wait()
        return client.as_user(token).issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)

    with ThreadPoolExecutor(max_workers=ISSUERS) as pool:
        receipts = list(pool.map(issue, range(ISSUERS)))
    assert sorted(r.nro for r in receipts) == list(range(1, ISSUERS + 1))
    assert len({r.id for r in receipts}) == ISSUERS
    with live_service.app.app_context():
        stored = db.session().scalars(select(IssuedCfe.nro).where(IssuedCfe.tipo_cfe == 101)).all()
        counter = db.session().scalar(
            select(CaeRangeRecord.next_nro).where(CaeRangeRecord.company_id == 1, CaeRangeRecord.tipo_cfe == 101)
        )
    assert sorted(stored) == list(range(1, ISSUERS + 1)) and counter == ISSUERS + 1


def test_concurrent_retries_with_one_key_issue_one_receipt(live_service, live_token_for):
    from portal.client import Conflict

    client = CfeClient(live_service.url, read_timeout=60)
    token = live_token_for("usuario@demo.uy")
    key = uuid.uuid4().hex
    barrier = threading.Barrier(8)

    def issue(_):
        barrier.wait()
        try:
            return client.as_user(token).issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=key).id
        except Conflict:
            return "conflict"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(issue, range(8)))  # a 500 would raise here
    ids = {o for o in outcomes if o != "conflict"}
    assert len(ids) == 1, outcomes
    after = client.as_user(token).issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    assert after.nro == 2


# --- smart issuance -----------------------------------------------------------------------------------------


def _confirm(api_client, headers, preview, **extra):
    return api_client.post(
        CONFIRM,
        headers=headers,
        json={
            "requestId": preview["requestId"],
            "hashBorrador": preview["hashBorrador"],
            "advertenciasAceptadas": sorted({w["codigo"] for w in preview["advertencias"]}),
            **extra,
        },
    )


def test_smart_preview_then_confirm_issues_the_preview_once(api_client, user):
    answer = api_client.post(
        PREVIEW, json={"receptor": {"documento": "219999830019"}, "lineas": [SERVICE_LINE]}, headers=user
    )
    assert answer.status_code == 201, answer.json
    preview = answer.json
    pdf = api_client.get(urlsplit(preview["previsualizacionUrl"]).path, headers=user)
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    confirmed = _confirm(api_client, user, preview)
    assert confirmed.status_code == 200 and confirmed.json["estado"] == "issued", confirmed.json
    receipt = confirmed.json["comprobante"]
    assert receipt["tipoCFE"] == preview["borrador"]["tipoCFE"] == 111
    assert receipt["totales"] == preview["totales"]
    assert [e["estado"] for e in confirmed.json["lineaDeTiempo"]] == ["preview", "confirmed", "issued"]
    again = _confirm(api_client, user, preview)
    assert again.json["cfeEmitidos"] == confirmed.json["cfeEmitidos"]
    state = api_client.get(CONSULT + preview["requestId"], headers=user).json
    assert state["estado"] == "issued" and state["final"] is True
    assert datetime.fromisoformat(state["creadoEn"]).tzinfo is not None


def test_smart_direct_issue_with_one_idempotency_key_gives_one_receipt(api_client, user):
    first = api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers={**user, "Idempotency-Key": "erp-77"})
    again = api_client.post(DIRECT, json={"lineas": [SERVICE_LINE]}, headers={**user, "Idempotency-Key": "erp-77"})
    assert first.status_code == again.status_code == 201, first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.json["cfeEmitidos"] == again.json["cfeEmitidos"] and len(first.json["cfeEmitidos"]) == 1


# --- the OpenID Connect provider ----------------------------------------------------------------------------


def _code_flow(api_client, app, email):
    path, verifier = authorize_path()
    answer = sign_in_at_provider(api_client, path, email)
    tokens = exchange_code(api_client, app, answer, verifier)
    reused = token_request(api_client, app, **code_grant(app, answer, verifier))
    assert reused.status_code == 400  # the code row was deleted
    return tokens


def test_token_endpoint_userinfo_refresh_and_revocation(api_client, pg_service_app):
    tokens = _code_flow(api_client, pg_service_app, "admin@demo.uy")
    info = api_client.get("/oauth/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert info.status_code == 200, info.json
    assert info.json["email"] == "admin@demo.uy"
    assert [(c["rut"], c["rol"]) for c in info.json["empresas"]] == [
        ("219999830019", "admin"),
        ("211003420017", "admin"),
    ]
    assert info.json["empresas"][0]["certificados"][0]["vence"] > datetime.now(UTC).date().isoformat()
    fresh = refresh(api_client, pg_service_app, tokens["refresh_token"])
    assert fresh.status_code == 200 and fresh.json["refresh_token"] != tokens["refresh_token"]
    assert refresh(api_client, pg_service_app, tokens["refresh_token"]).status_code == 400
    # A token from the code flow is accepted by the API itself...
    bearer = {"Authorization": f"Bearer {fresh.json['access_token']}", "X-Empresa-Id": "1"}
    issued = api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=bearer)
    assert issued.status_code == 201, issued.json
    revoked = api_client.post(
        "/oauth/revoke",
        data={"token": fresh.json["refresh_token"], "token_type_hint": "refresh_token"},
        auth=client_auth(pg_service_app),
    )
    assert revoked.status_code == 200
    assert refresh(api_client, pg_service_app, fresh.json["refresh_token"]).status_code == 400
    # ...until its grant is revoked (signing out): then the API refuses it at once, on PostgreSQL too.
    assert api_client.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=bearer).status_code == 401


# --- operator commands --------------------------------------------------------------------------------------


def test_operator_commands_token_and_import_cert_with_a_long_subject(pg_service_app, pg_url, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from portal.service.__main__ import cli
    from portal.service.platform.certificates import certificate_info, generate_self_signed, to_pkcs12

    monkeypatch.setenv("CFE_DATABASE_URL", pg_url)
    runner = CliRunner()
    minted = runner.invoke(cli, ["token", "soporte@demo.uy"])
    assert minted.exit_code == 0, minted.output
    info = pg_service_app.test_client().get(
        "/oauth/userinfo", headers={"Authorization": f"Bearer {minted.output.strip()}"}
    )
    assert info.status_code == 200 and info.json["email"] == "soporte@demo.uy"
    # A CA puts the company's full name in CN and O: the subject outgrows the 120-character name column.
    long_name = "DEMO SOCIEDAD ANONIMA - CASA CENTRAL Y SUCURSALES DEL INTERIOR"  # 62 of CN's 64 characters
    key_pem, cert_pem = generate_self_signed("219999830019", long_name)
    subject = certificate_info(cert_pem).subject
    assert len(subject) > 120
    (tmp_path / "demo.p12").write_bytes(to_pkcs12(key_pem, cert_pem, None))
    imported = runner.invoke(
        cli, ["import-cert", str(tmp_path / "demo.p12"), "--empresa", "219999830019", "--password", ""]
    )
    assert imported.exit_code == 0, imported.output
    with pg_service_app.app_context():
        stored = (
            db.session()
            .scalars(select(Certificate).where(Certificate.company_id == 1).order_by(Certificate.id.desc()))
            .first()
        )
        assert stored.subject == subject and stored.name == subject[:120]
    too_long = runner.invoke(
        cli,
        ["import-cert", str(tmp_path / "demo.p12"), "--empresa", "219999830019", "--password", "", "--name", "x" * 121],
    )
    assert too_long.exit_code == 2 and "--name" in too_long.output


def test_the_logo_a_receipt_is_issued_with_is_stored_once_and_printed_from_the_snapshot(
    api_client, auth_headers, pg_service_app
):
    from portal.service.comprobante.models import PrintedLogo
    from tests.support.empresa_files import image

    admin = auth_headers("admin@demo.uy", 1)
    uploaded = api_client.put("/api/v1/empresa/logo", data=image(), content_type="image/png", headers=admin)
    assert uploaded.status_code in (200, 201), uploaded.json
    first, second = (_issue(api_client, admin, bodies.body(bodies.ETICKET)) for _ in range(2))
    assert api_client.delete("/api/v1/empresa/logo", headers=admin).status_code == 204
    with pg_service_app.app_context():
        assert db.session().scalar(select(func.count()).select_from(PrintedLogo)) == 1  # ON CONFLICT DO NOTHING
        stored = db.session().get(IssuedCfe, second["idCfeEmitido"])
        assert stored.print_paper == "a4" and stored.print_logo_sha256 is not None
    for receipt in (first, second):
        pdf = api_client.get(
            GET, query_string={"idCfeEmitido": receipt["idCfeEmitido"]}, headers={**admin, "Accept": "application/pdf"}
        )
        assert pdf.status_code == 200 and pdf.data.count(b"/Subtype /Image") == 2  # the QR and the logo kept
