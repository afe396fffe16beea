"""Several service processes on one PostgreSQL (issue 31, target 3): a batch claims its CAE ranges without
waiting for another process's, and waits, when it must, in one order; a company's cache generation moves with
every change of what issuing keeps, so another process's change signs the next receipt."""

from __future__ import annotations

import threading

from sqlalchemy import create_engine, text

from portal.domain.uruguay_time import today_montevideo
from portal.service import create_app
from portal.service.comprobante.numbering import claim_ranges
from portal.service.platform import db
from tests.conftest import mint_token
from tests.postgres.test_postgres import wait_for_lock_waiters
from tests.support import cfe_bodies as bodies

EMITIR = "/api/v1/comprobante/emitir"
ETICKET, NO_RANGES = (1, 101), (1, 999)


def test_claiming_skips_ranges_another_transaction_holds_and_waiting_gets_them_once_it_commits(
    pg_service_app, postgres_server, pg_database
):
    holder = postgres_server.connect(pg_database)
    holder.execute("SELECT id FROM cae_range WHERE company_id = 1 AND tipo_cfe = 101 FOR UPDATE")
    got: dict[str, set] = {}

    def claim(name: str, wait: bool) -> None:
        with pg_service_app.app_context(), db.write_transaction() as session:
            got[name] = claim_ranges(session, [ETICKET, NO_RANGES], wait)

    try:
        claim("skipping", wait=False)
        assert got["skipping"] == {NO_RANGES}  # held elsewhere: not got, and not waited for
        waiter = threading.Thread(target=claim, args=("waiting", True))
        waiter.start()
        wait_for_lock_waiters(postgres_server, pg_database)
        assert "waiting" not in got
    finally:
        holder.commit()
        holder.close()
    waiter.join(timeout=30)
    assert got["waiting"] == {ETICKET, NO_RANGES}
    claim("free", wait=False)
    assert got["free"] == {ETICKET, NO_RANGES}


def test_a_change_made_through_another_connection_signs_the_next_receipt_of_a_process_that_kept_the_old(
    service_config,
):
    # Two app instances on one database, each with its own cache (a minute's lifetime, far longer than this
    # test): B's change, and plain SQL, reach A's next receipt through the company's cache generation only.
    a, b = (create_app({**service_config, "READ_CACHE_SECONDS": 60}) for _ in "ab")
    headers = {"Authorization": f"Bearer {mint_token(a, 'admin@demo.uy')}", "X-Empresa-Id": "1"}
    other = create_engine(service_config["DATABASE_URL"])
    try:
        client_a, client_b = a.test_client(), b.test_client()

        def issued() -> dict:
            answer = client_a.post(EMITIR, json=bodies.body(bodies.ETICKET), headers=headers)
            assert answer.status_code in (201, 409), answer.json
            return answer.json

        assert issued()["idCfeEmitido"]  # A keeps the issuer and the certificate now
        settings = client_b.get("/api/v1/empresa/configuracion", headers=headers).json
        changed = client_b.put(
            "/api/v1/empresa/configuracion",
            json={k: settings[k] for k in ("regimen", "resolucion", "formatoPapel")} | {"ivaAlDia": False},
            headers=headers,
        )
        assert changed.status_code == 200, changed.json
        receipt = client_a.get(
            "/api/v1/comprobante/getByIdCfeEmitido",
            query_string={"idCfeEmitido": issued()["idCfeEmitido"]},
            headers={**headers, "Accept": "application/xml"},
        )
        assert b"<ns0:IVAalDia>1</ns0:IVAalDia>" in receipt.data or b"IVAalDia>1<" in receipt.data

        with other.begin() as connection:
            connection.execute(text("UPDATE certificate SET retired_at = now() WHERE company_id = 1"))
        assert issued()["error"]["code"] == "sin_certificado_vigente"
        with other.begin() as connection:
            connection.execute(text("UPDATE certificate SET retired_at = NULL WHERE company_id = 1"))
            connection.execute(
                text("UPDATE cae_range SET vencimiento = :day WHERE company_id = 1 AND tipo_cfe = 101"),
                {"day": today_montevideo().replace(year=today_montevideo().year - 1)},
            )
        assert issued()["error"]["code"] == "cae_vencido"  # CAE ranges are read by every issue, never kept
    finally:
        other.dispose()
        for app in (a, b):
            app.extensions["db_engine"].dispose()


def test_every_change_of_what_issuing_keeps_bumps_the_company_generation_on_postgresql(pg_service_app, pg_url):
    engine = create_engine(pg_url)

    def generation(company_id: int = 1) -> int:
        with engine.connect() as connection:
            return connection.execute(
                text("SELECT cache_generation FROM company WHERE id = :id"), {"id": company_id}
            ).scalar_one()

    try:
        for change in (
            "UPDATE company SET telefono = '099 000 000' WHERE id = 1",
            "UPDATE empresa_config SET iva_al_dia = false WHERE company_id = 1",
            "INSERT INTO empresa_sucursal (company_id, codigo, nombre, domicilio, ciudad, departamento, "
            "predeterminada, created_at) VALUES (1, 77, 'Depósito', 'Ruta 1', 'Montevideo', 'Montevideo', false, "
            "now())",
            "DELETE FROM empresa_sucursal WHERE company_id = 1 AND codigo = 77",
            "UPDATE certificate SET name = 'renombrado' WHERE company_id = 1",
        ):
            before, other = generation(), generation(2)
            with engine.begin() as connection:
                connection.execute(text(change))
            assert (generation(), generation(2)) == (before + 1, other), change
    finally:
        engine.dispose()
