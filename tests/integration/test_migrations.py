"""The migrations build exactly the schema the models declare, for the service and the portal."""

from __future__ import annotations

import importlib
import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.operations import Operations
from flask import Flask
from sqlalchemy import column, create_engine, table, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.comprobante.models import IssuedCfe
from portal.service.intercambio.models import SenderNumbering
from portal.service.migrations import alembic_config, upgrade
from portal.service.platform import counters
from portal.service.platform.db import Base
from portal.service.platform.i18n import said
from portal.service.platform.model_registry import load_all_models
from portal.service.recibidos.models import ExchangeNumbering
from tests.support import exchange_numbers as numbers
from tests.support import recibidos as sup
from tests.support.i18n import asked_in


def _differences(url: str, metadata) -> list:
    engine = create_engine(url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), metadata)
    engine.dispose()
    return diff


def test_service_migrations_match_the_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'service.db'}"
    upgrade(url)
    load_all_models()
    assert _differences(url, Base.metadata) == []


def test_portal_migrations_match_the_models(tmp_path):
    from portal.web.activity import PortalBase
    from portal.web.activity import upgrade as portal_upgrade

    url = f"sqlite:///{tmp_path / 'portal.db'}"
    portal_upgrade(url)
    assert _differences(url, PortalBase.metadata) == []


def test_migrating_twice_changes_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'service.db'}"
    upgrade(url)
    upgrade(url)
    assert _differences(url, Base.metadata) == []


def test_signature_times_stored_on_sqlite_in_montevideo_digits_move_to_utc_and_back(tmp_path):
    """0015_utc: SQLite kept cfe_emitido.tmst_firma as Montevideo's wall-clock digits; UtcDateTime reads UTC."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "heads")
    command.downgrade(config, "0008_comprobante_search")
    engine = create_engine(url)  # foreign keys off: one bare row is enough
    cfe = table("cfe_emitido", *(column(name) for name in _CFE_ROW))
    with engine.begin() as connection:
        connection.execute(cfe.insert().values(**_CFE_ROW))

    def stored() -> str:
        with engine.connect() as connection:
            return connection.execute(text("SELECT tmst_firma FROM cfe_emitido")).scalar_one()

    command.upgrade(config, "heads")
    assert stored() == "2026-11-24 00:30:15.123456"  # 21:30:15 at UTC-3
    load_all_models()
    with Session(engine) as session:
        signed = session.get(IssuedCfe, "cfe_1").tmst_firma
    assert signed == datetime(2026, 11, 23, 21, 30, 15, 123456, tzinfo=MONTEVIDEO)
    command.downgrade(config, "0008_comprobante_search")
    assert stored() == _CFE_ROW["tmst_firma"]
    engine.dispose()


_CFE_ROW = {
    "id": "cfe_1",
    "company_id": 1,
    "cae_range_id": 1,
    "tipo_cfe": 101,
    "serie": "A",
    "nro": 1,
    "fch_emis": "2026-11-23",
    "tmst_firma": "2026-11-23 21:30:15.123456",
    "tpo_moneda": "UYU",
    "mnt_total": 100,
    "mnt_pagar": 100,
    "input_json": "{}",
    "issuer_json": "{}",
    "totals_json": "{}",
    "xml": b"<CFE/>",
    "digest": "x",
    "security_code": "abc123",
    "qr_url": "https://example.invalid/qr",
    "certificate_id": 1,
    "dgi_status": "pendiente",
    "created_by": "admin@demo.uy",
    "created_at": "2026-11-24 00:30:16.000000",
}


def test_the_books_amounts_are_filled_from_each_receipts_stored_totals(tmp_path):
    """0240_cfe_importes_libro: the receipts issued before it get their book amounts out of totals_json (an
    absent amount is zero), in batches of ids, and keep them when migrated again."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0200_list_filter_indexes")
    engine = create_engine(url)  # foreign keys off: bare rows are enough
    totals = '{"mntNoGrv": "700.50", "mntNetoIVATasaBasica": "15000.00", "mntIVATasaBasica": "3300.00"}'
    rows = [
        {
            **_CFE_ROW,
            "id": f"cfe_{i:02d}",
            "nro": i,
            "totals_json": totals if i % 2 else "{}",
            "receptor_busqueda": None,
        }
        for i in range(1, 12)
    ]
    cfe = table("cfe_emitido", *(column(name) for name in rows[0]))
    with engine.begin() as connection:
        connection.execute(cfe.insert(), rows)
    command.upgrade(config, "heads")
    load_all_models()

    def stored() -> dict:
        with Session(engine) as session:
            return {
                record.id: (
                    record.mnt_no_grv,
                    record.mnt_neto_iva_tasa_basica,
                    record.mnt_iva_tasa_basica,
                    record.mnt_iva_otra,
                )
                for record in session.query(IssuedCfe)
            }

    with_amounts = (Decimal("700.50"), Decimal("15000.00"), Decimal("3300.00"), Decimal("0.00"))
    expected = {row["id"]: with_amounts if row["nro"] % 2 else (Decimal("0.00"),) * 4 for row in rows}
    assert stored() == expected
    # The same fill in batches of four ids (three UPDATEs, the last one short).
    migration = importlib.import_module("portal.service.migrations.versions.0240_cfe_importes_libro")
    with engine.begin() as connection:
        connection.execute(
            text("UPDATE cfe_emitido SET mnt_no_grv = 0, mnt_neto_iva_tasa_basica = 0, mnt_iva_tasa_basica = 0")
        )
        monkeypatch = pytest.MonkeyPatch()
        monkeypatch.setattr(migration, "BATCH", 4)
        try:
            with Operations.context(MigrationContext.configure(connection)):
                migration._backfill()
        finally:
            monkeypatch.undo()
    assert stored() == expected
    engine.dispose()


def test_a_note_dgi_rejected_before_gives_back_what_it_took_from_its_receipt(tmp_path):
    """0320_nota_rechazada_sin_monto: a note rejected before issuing gave its amounts back applies 0 to its
    receipt; an accepted note's amount stays."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0310_cfe_answer_version")
    engine = create_engine(url)  # foreign keys off: bare rows are enough
    rows = [
        {**_CFE_ROW, "id": "factura", "tipo_cfe": 111, "nro": 1},
        {**_CFE_ROW, "id": "rechazada", "tipo_cfe": 112, "nro": 2, "dgi_status": "rechazado"},
        {**_CFE_ROW, "id": "aceptada", "tipo_cfe": 112, "nro": 3, "dgi_status": "aceptado"},
    ]
    cfe = table("cfe_emitido", *(column(name) for name in rows[0]))
    links = table(
        "cfe_nota_referencia", *(column(n) for n in ("company_id", "note_id", "original_id", "is_credit", "amount"))
    )
    with engine.begin() as connection:
        connection.execute(cfe.insert(), rows)
        connection.execute(
            links.insert(),
            [
                {"company_id": 1, "note_id": note, "original_id": "factura", "is_credit": True, "amount": 40}
                for note in ("rechazada", "aceptada")
            ],
        )
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        amounts = dict(connection.execute(text("SELECT note_id, amount FROM cfe_nota_referencia")).all())
    assert {note: Decimal(str(amount)) for note, amount in amounts.items()} == {
        "rechazada": Decimal(0),
        "aceptada": Decimal(40),
    }
    engine.dispose()


def _in_english(texts: str | dict | None) -> str | None:
    """What a reader asking in English is told of a stored message (None: the row has no texts)."""
    if texts is None:
        return None
    with asked_in(Flask(__name__), "en"):
        return said(json.loads(texts) if isinstance(texts, str) else texts)


def _migrated_texts(tmp_path, before: str, table: str, row: dict, column: str, sentences: list[str]) -> list:
    """Rows of `table` (`row` with `column` set to each sentence; a callable value is called with the row's
    number) stored at revision `before`, then every migration run: each row's `column`_texts, said in English."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, before)
    engine = create_engine(url)  # foreign keys off: bare rows are enough
    rows = [
        {**{k: v(i) if callable(v) else v for k, v in row.items()}, "id": i, column: sentence}
        for i, sentence in enumerate(sentences, start=1)
    ]
    with engine.begin() as connection:
        connection.execute(table_of(table, rows[0]).insert(), rows)
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        stored = connection.execute(text(f"SELECT {column}_texts FROM {table} ORDER BY id")).scalars().all()  # noqa: S608
    engine.dispose()
    return [_in_english(texts) for texts in stored]


def table_of(name: str, row: dict):
    return table(name, *(column(key) for key in row))


def test_an_exchange_envelopes_spanish_error_stored_before_is_said_in_english(tmp_path):
    """0360_intercambio_sobre_textos: the errors kept as Spanish sentences alone get their catalogue message (the
    values read back out of the sentence); a receiver's own words stay as they were."""
    row = {
        "company_id": 1,
        "receiver_rut": "211003420017",
        "idemisor": lambda i: i,
        "file_name": "sobre.xml",
        "xml": b"<EnvioCFE_entreEmpresas/>",
        "cfe_count": 1,
        "certificate_id": 1,
        "state": "error",
        "ack_motives": "[]",
        "attempts": 1,
        "created_at": "2026-11-24 00:30:16.000000",
    }
    said = _migrated_texts(
        tmp_path,
        "0082_intercambio_envios",
        "intercambio_sobre",
        row,
        "last_error",
        ["El receptor no tomó el sobre.", "El servicio de intercambio no respondió en 20 s.", "HTTP 503"],
    )
    assert said == ["The receiver did not take the envelope.", "The exchange service did not answer in 20 s.", None]


def test_the_reason_of_a_number_voided_by_dgis_rejection_stored_before_is_said_in_english(tmp_path):
    """0361_anulacion_motivo_textos: a rejection's void gets its message and codes; an operator's reason, even
    one that reads the same, is the operator's words and stays as typed."""
    row = {
        "company_id": 1,
        "cae_range_id": 1,
        "tipo_cfe": 111,
        "serie": "A",
        "nro_desde": lambda i: i,
        "nro_hasta": lambda i: i,
        "fecha": "2026-11-23",
        "source": lambda i: "operador" if i == 3 else "rechazo_dgi",
        "created_by": "DGI",
        "created_at": "2026-11-24 00:30:16.000000",
    }
    said = _migrated_texts(
        tmp_path,
        "0161_cfc_anulacion_libreta",
        "dgi_anulacion",
        row,
        "reason",
        [
            "Comprobante anulado por rechazo de DGI (E14)",
            "Comprobante anulado por rechazo de DGI (E02, E07)",
            "Comprobante anulado por rechazo de DGI (E14)",
        ],
    )
    assert said == ["Receipt voided by DGI's rejection (E14)", "Receipt voided by DGI's rejection (E02, E07)", None]


def test_envelope_and_daily_report_errors_stored_before_are_said_in_english(tmp_path):
    """0362_envios_error_textos: an envelope's S08 note and error, and a daily report's error, kept as Spanish
    sentences alone get their catalogue message with its values; DGI's own words stay as they were."""
    envelope = {
        "company_id": 1,
        "idemisor": lambda i: i,
        "file_name": "Sob.xml",
        "xml": b"<EnvioCFE/>",
        "cfe_count": 2,
        "certificate_id": 1,
        "state": "respondido",
        "ack_motives": "[]",
        "attempts": 1,
        "created_at": "2026-11-24 00:30:16.000000",
    }
    s08 = (
        "DGI ya tenía un sobre con este número (S08): estado de cada comprobante consultado a DGI; 1 con respuesta "
        "de DGI, 1 que DGI no recibió van en un sobre nuevo."
    )
    said = _migrated_texts(
        tmp_path,
        "0361_anulacion_motivo_textos",
        "dgi_sobre",
        envelope,
        "last_error",
        [s08, "DGI no respondió en 30 s.", "Algo que dijo otro"],
    )
    assert said == [
        "DGI already had an envelope with this number (S08): each receipt's state was asked of DGI; 1 with DGI's "
        "answer, 1 that DGI did not receive go in a new envelope.",
        "DGI did not answer in 30 s.",
        None,
    ]


def test_a_daily_reports_error_stored_before_is_said_in_english(tmp_path):
    report = {
        "company_id": 1,
        "fecha": "2026-11-23",
        "sec_envio": lambda i: i,
        "file_name": "Rep.xml",
        "xml": b"<Reporte/>",
        "cfe_count": 1,
        "certificate_id": 1,
        "state": "armado",
        "ack_motives": "[]",
        "attempts": 1,
        "created_by": "sistema",
        "created_at": "2026-11-24 00:30:16.000000",
    }
    said = _migrated_texts(
        tmp_path,
        "0361_anulacion_motivo_textos",
        "dgi_reporte_diario",
        report,
        "last_error",
        ["No se pudo conectar con el servicio de DGI.", "DGI no aceptó el pedido (código 12): Firma inválida."],
    )
    assert said == ["Could not connect to DGI's service.", "DGI did not accept the request (code 12): Firma inválida."]


def test_a_smart_requests_error_stored_before_is_said_in_english(tmp_path):
    """0363_inteligente_textos: a request's error kept as its Spanish sentence alone gets its catalogue message;
    words of no message of the catalogue (numbering's own) stay as they were."""
    request = {
        "company_id": 1,
        "mode": "preview",
        "state": "failed",
        "input_json": "{}",
        "draft_json": "{}",
        "draft_hash": "0" * 64,
        "totals_json": "{}",
        "inferences_json": "[]",
        "warnings_json": "[]",
        "error_code": "emision_interrumpida",
        "created_by": "usuario@demo.uy",
        "created_at": "2026-11-24 00:30:16.000000",
        "updated_at": "2026-11-24 00:30:16.000000",
    }
    said = _migrated_texts(
        tmp_path,
        "0370_inteligente_confirmadas",
        "emision_inteligente",
        request,
        "error_message",
        [
            "La emisión se interrumpió antes de terminar y no se emitió ningún comprobante. Previsualizá de nuevo.",
            "Se agotaron los números de CAE para el tipo 101. Pedí un nuevo CAE a DGI.",
        ],
    )
    assert said == ["The issue was cut off before it finished and no receipt was issued. Preview it again.", None]


def test_a_smart_requests_timeline_stored_before_is_said_in_english(tmp_path):
    """0363_inteligente_textos: each detail of the timeline kept as a Spanish sentence alone gets its catalogue
    message with its values, a failure's message within it too; a receipt's number stays as it was."""
    event = {
        "request_id": "ei_1",
        "state": lambda i: ["preview", "preview", "confirmed", "confirmed", "expired", "failed", "failed", "issued"][
            i - 1
        ],
        "at": "2026-11-24 00:30:16.000000",
        "actor": "usuario@demo.uy",
    }
    said = _migrated_texts(
        tmp_path,
        "0370_inteligente_confirmadas",
        "emision_inteligente_evento",
        event,
        "detail",
        [
            "1 advertencia",
            "2 advertencias",
            "Advertencias aceptadas: ninguna",
            "Advertencias aceptadas: total_inusual, cae_por_agotarse",
            "La previsualización venció sin confirmarse.",
            "emision_interrumpida: La emisión se interrumpió antes de terminar y no se emitió ningún comprobante. "
            "Previsualizá de nuevo.",
            "cae_agotado: Se agotaron los números de CAE para el tipo 101. Pedí un nuevo CAE a DGI.",
            "CFE 101 A-12",
        ],
    )
    assert said == [
        "1 warning",
        "2 warnings",
        "Warnings accepted: none",
        "Warnings accepted: total_inusual, cae_por_agotarse",
        "The preview expired without being confirmed.",
        "emision_interrumpida: The issue was cut off before it finished and no receipt was issued. Preview it again.",
        "cae_agotado: Se agotaron los números de CAE para el tipo 101. Pedí un nuevo CAE a DGI.",
        None,
    ]


def test_why_a_customers_email_failed_stored_before_is_said_in_english(tmp_path):
    """0364_correo_envio_textos: a send's error kept as its Spanish sentence alone gets its catalogue message with
    its values; an older wording that is no message of the catalogue stays as it was."""
    send = {
        "company_id": 1,
        "cfe_id": "cfe_1",
        "recipients": '["a@cliente.com.uy"]',
        "state": "fallido",
        "attempts": 1,
        "next_attempt_at": "2026-11-24 00:30:16.000000",
        "created_by": "usuario@demo.uy",
        "created_at": "2026-11-24 00:30:16.000000",
    }
    said = _migrated_texts(
        tmp_path,
        "0040_correo_plantilla",
        "correo_envio",
        send,
        "last_error",
        [
            "El servidor de correo rechazó: rechazo@cliente.com.uy (550 5.1.1 No such user)",
            "No se pudo conectar con el servidor de correo (no respondió, rechazó la conexión o la cortó); se vuelve "
            "a intentar.",
            "El servidor de correo no admite este envío: STARTTLS",
        ],
    )
    assert said == [
        "The mail server refused: rechazo@cliente.com.uy (550 5.1.1 No such user)",
        "Could not connect to the mail server (it did not answer, refused the connection or dropped it); it will be "
        "tried again.",
        None,
    ]


def test_why_dgi_was_counted_down_stored_before_is_said_in_english(tmp_path):
    """0365_dgi_estado_textos: the outage's last error kept as its Spanish sentence alone gets its catalogue
    message with its values; words of no message stay as they were."""
    said = _migrated_texts(
        tmp_path,
        "0362_envios_error_textos",
        "dgi_estado",
        {"failures": 3, "down_since": "2026-11-24 00:30:16.000000"},
        "last_error",
        ["No se pudo conectar con el servicio de DGI.", "DGI no respondió en 30 s.", "Algo que dijo otro"],
    )
    assert said == ["Could not connect to DGI's service.", "DGI did not answer in 30 s.", None]


_READ_TIMEOUT = "HTTPSConnectionPool(host='efactura.dgi.gub.uy', port=6460): Read timed out. (read timeout=30)"
_REFUSED = (
    "HTTPSConnectionPool(host='efactura.dgi.gub.uy', port=6460): Max retries exceeded with url: "
    "/ePrueba/ws_consultasPrueba (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at "
    "0x7f3a2c1d0e50>: Failed to establish a new connection: [Errno 111] Connection refused'))"
)


def test_why_ws_consultas_did_not_answer_stored_before_is_said_in_english_without_the_librarys_text(tmp_path):
    """0400_envios_consultas_textos: ws_consultas' failures kept as Spanish f-strings (the connection's with the
    network library's text), or as the message "...: {error}" the catalogue no longer has, become what the code
    stores now, said in the reader's language; words of no message stay as they were."""
    old = "No se pudo conectar con ws_consultas de DGI: {error}"
    between = json.dumps(
        {"mensaje": f"No se pudo conectar con ws_consultas de DGI: {_REFUSED}", "plantilla": old,
         "valores": {"error": _REFUSED}}
    )  # fmt: skip
    sentences = [
        f"No se pudo conectar con ws_consultas de DGI: {_READ_TIMEOUT}",
        f"No se pudo conectar con ws_consultas de DGI: {_REFUSED}"[:500],
        f"No se pudo conectar con ws_consultas de DGI: {_REFUSED}"[:500],
        "DGI rechazó la consulta: Servicio no disponible",
        "DGI respondió con un DOCTYPE.",
        "Algo que dijo otro",
    ]
    envelope = {
        "company_id": 1,
        "idemisor": lambda i: i,
        "file_name": "Sob.xml",
        "xml": b"<EnvioCFE/>",
        "cfe_count": 2,
        "certificate_id": 1,
        "state": "recibido",
        "ack_motives": "[]",
        "attempts": 1,
        "created_at": "2026-11-24 00:30:16.000000",
        "last_error_texts": lambda i: between if i == 3 else None,
    }
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0365_dgi_estado_textos")
    engine = create_engine(url)
    rows = [{**{k: v(i) if callable(v) else v for k, v in envelope.items()}, "id": i, "last_error": sentence}
            for i, sentence in enumerate(sentences, start=1)]  # fmt: skip
    outage = {"id": 1, "failures": 3, "down_since": "2026-11-24 00:30:16.000000", "last_error": sentences[0]}
    with engine.begin() as connection:
        connection.execute(table_of("dgi_sobre", rows[0]).insert(), rows)
        connection.execute(table_of("dgi_estado", outage).insert(), [outage])
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        envelopes = connection.execute(text("SELECT last_error, last_error_texts FROM dgi_sobre ORDER BY id")).all()
        down = connection.execute(text("SELECT last_error, last_error_texts FROM dgi_estado")).one()
    engine.dispose()
    assert [_in_english(texts) for _error, texts in envelopes] == [
        "DGI's ws_consultas did not answer in time.",
        "Could not connect to DGI's ws_consultas.",
        "Could not connect to DGI's ws_consultas.",
        "DGI refused the lookup: Servicio no disponible",
        "DGI answered with a DOCTYPE.",
        None,
    ]
    assert [error for error, _texts in envelopes] == [
        "ws_consultas de DGI no respondió a tiempo.",
        "No se pudo conectar con ws_consultas de DGI.",
        "No se pudo conectar con ws_consultas de DGI.",
        *sentences[3:],
    ]
    assert down[0] == "ws_consultas de DGI no respondió a tiempo."
    assert _in_english(down[1]) == "DGI's ws_consultas did not answer in time."


def test_received_envelopes_and_answers_stored_before_keep_the_numbers_they_were_sent_with(tmp_path):
    """0380_recibidos_numeros_propios: the envelopes and answers already stored keep the numbers their signed answers
    were sent with (their ids), and each company's counters go on after its largest, so none is given again."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, sup.BEFORE_NUMBERING)
    engine = create_engine(url)  # foreign keys off: bare rows are enough
    with engine.begin() as connection:
        sup.store_before_numbering(connection)
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        sup.assert_numbered(connection)
    with Session(engine) as session:  # company 2's next envelope comes after the largest number it sent (5)
        assert counters.take(session, ExchangeNumbering.last_id_receptor, 2) == 6
        assert counters.take(session, ExchangeNumbering.last_id_respuesta, 3) == 1
        assert counters.take(session, ExchangeNumbering.last_id_receptor, 4) == 1  # a company with no row yet gets one
        session.rollback()
    again = {**sup.stored_envelope(1, company_id=1), "id": 8, "id_receptor": 1}  # company 1's number 1 once more
    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(table_of("recibidos_sobre", again).insert(), [again])
    command.downgrade(config, sup.BEFORE_NUMBERING)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM recibidos_sobre")).scalar_one() == 7
    engine.dispose()


def test_envelopes_and_notices_sent_before_leave_each_companys_counters_after_their_numbers(tmp_path):
    """0390_intercambio_numeros_propios: each notice keeps the number of its file name (one that repeated an earlier
    notice's is counted under its company's next free number), and each company's counters of Idemisor and
    IDComunicacion start after the numbers already used, so the next envelope and notice never repeat one."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, numbers.BEFORE_SENDER_NUMBERING)
    engine = create_engine(url)  # foreign keys off: bare rows are enough
    with engine.begin() as connection:
        numbers.store_before_sender_numbering(connection)
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        numbers.assert_sender_numbered(connection)
    with Session(engine) as session:
        assert counters.take(session, SenderNumbering.last_idemisor, 1) == 6  # after 5, not after the count of 3
        assert counters.take(session, SenderNumbering.last_id_comunicacion, 1) == 5
        assert counters.take(session, SenderNumbering.last_id_comunicacion, 3) == 1
        assert counters.take(session, SenderNumbering.last_idemisor, 4) == 1  # a company with no row yet gets one
        session.rollback()
    again = {**numbers.notice_row(6, 1, 3), "id_comunicacion": 3}  # company 1's notice 3 once more
    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(table_of("intercambio_aviso", again).insert(), [again])
    command.downgrade(config, numbers.BEFORE_SENDER_NUMBERING)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM intercambio_aviso")).scalar_one() == 5
    engine.dispose()


_NOW = datetime(2025, 12, 31, 12, tzinfo=UTC)


def test_the_stand_ins_rates_stored_as_the_bcus_before_say_they_are_the_stand_ins(tmp_path):
    """0371_cotizaciones_simulador: a "bcu" row holding exactly what the stand-in publishes for its day is the
    stand-in's (and so is the next year's UI its 31 December set); the BCU's own figures and an operator's stay."""
    from portal.service.cotizaciones import bcu

    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0101_cotizaciones")
    command.upgrade(config, "0006_indices")
    engine = create_engine(url)
    invented = bcu.standin_rates(("USD", "UI"), date(2025, 12, 30), date(2025, 12, 31))
    real = bcu.PublishedRate(date(2025, 12, 29), "USD", Decimal("43.512"), Decimal("43.678"))
    rows = [
        {
            "day": r.day,
            "currency": r.currency,
            "buy": str(r.buy),
            "sell": str(r.sell),
            "source": "bcu",
            "updated_at": _NOW,
        }
        for r in (*invented, real)
    ] + [{"day": date(2025, 12, 26), "currency": "USD", "buy": 1, "sell": 1, "source": "operador", "updated_at": _NOW}]
    ui_row = {
        "year": 2026,
        "value": str(invented[-1].sell),
        "source": "BCU, UI al 31/12/2025",
        "verified": True,
        "updated_at": _NOW,
    }
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM ui_value WHERE year = 2026"))
        connection.execute(table_of("cotizacion", rows[0]).insert(), rows)
        connection.execute(table_of("ui_value", ui_row).insert(), [ui_row])
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        sources = connection.execute(text("SELECT day, currency, source FROM cotizacion")).all()
        ui = connection.execute(text("SELECT source, verified FROM ui_value WHERE year = 2026")).one()
    engine.dispose()
    assert {(str(day), currency): source for day, currency, source in sources} == {
        ("2025-12-30", "USD"): "simulador",
        ("2025-12-31", "USD"): "simulador",
        ("2025-12-30", "UI"): "simulador",
        ("2025-12-31", "UI"): "simulador",
        ("2025-12-29", "USD"): "bcu",
        ("2025-12-26", "USD"): "operador",
    }
    assert tuple(ui) == ("Simulador del BCU (no oficial), UI al 31/12/2025", 0)


def test_why_an_exchange_mailbox_could_not_be_read_stored_before_is_said_in_english(tmp_path):
    """0381_recibidos_buzon_textos: a mailbox's error kept as its Spanish sentence alone gets its catalogue message;
    the server's own words inside stay as they were, and a sentence that reads as none of ours is left alone."""
    row = {"company_id": lambda i: i, "url_encrypted": b"x", "enabled": True, "last_uid": 0}
    said = _migrated_texts(
        tmp_path,
        "0380_recibidos_numeros_propios",
        "recibidos_buzon",
        row,
        "last_error",
        ["No se pudo leer el buzón: [Errno 111] Connection refused", "Otra cosa"],
    )
    assert said == ["Could not read the mailbox: [Errno 111] Connection refused", None]


def test_a_notice_stored_with_spanish_counts_and_a_types_code_reads_in_english(tmp_path):
    """0410_aviso_numeros_y_tipos: a notice's count kept grouped the Spanish way ("99.994") and its CAE named by
    the type's code ("CAE tipo 121 serie A") are said as an English reader writes and names them."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0330_aviso_textos")
    name = {"plantilla": "CAE tipo {tipo} serie {serie}", "valores": {"tipo": "121", "serie": "A"}}
    share = {"plantilla": "queda el {share} de sus números ({left})", "valores": {"share": "19%", "left": "99.994"}}
    message = {
        "mensaje": "El CAE tipo 121 serie A: queda el 19% de sus números (99.994). Pedí un CAE nuevo a DGI.",
        "plantilla": "El {name}: {first}. Pedí un CAE nuevo a DGI.",
        "valores": {"name": name, "first": share},
    }
    action = {"accion": "Cargar un CAE nuevo", "plantilla": "Cargar un CAE nuevo", "valores": {}}
    row = {
        "id": 1,
        "company_id": 1,
        "key": "cae:1",
        "kind": "cae",
        "state": "warning",
        "message": message["mensaje"],
        "action": "Cargar un CAE nuevo",
        "link": "/empresa/cae",
        "created_at": "2026-11-24 00:30:16.000000",
        "texts": json.dumps({"mensaje": message, "accion": action}),
    }
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(table_of("aviso", row).insert(), [row])
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        texts = json.loads(connection.execute(text("SELECT texts FROM aviso")).scalar_one())
    engine.dispose()
    assert _in_english(texts["mensaje"]) == (
        "The Export e-Factura CAE series A: 19% of its numbers are left (99,994). Ask DGI for a new CAE."
    )
    assert said(texts["mensaje"]) == (
        "El CAE de e-Factura de exportación serie A: queda el 19% de sus números (99.994). Pedí un CAE nuevo a DGI."
    )


def _dgi_silence_notices(*messages: dict) -> list[dict]:
    """Rows of `aviso` for the compliance watch's "DGI no responde" concern, one per stored message, ids from 1."""
    action = {"accion": "Ver qué hacer", "plantilla": "Ver qué hacer", "valores": {}}
    return [
        {
            "id": notice_id,
            "company_id": 1,
            "key": "dgi_caido",
            "kind": "dgi_caido",
            "state": "warning",
            "message": message["mensaje"],
            "action": "Ver qué hacer",
            "link": "/envios/contingencia",
            "created_at": "2026-11-24 00:30:16.000000",
            "texts": json.dumps({"mensaje": message, "accion": action}),
        }
        for notice_id, message in enumerate(messages, start=1)
    ]


def test_a_notice_of_dgis_silence_stored_with_its_hours_written_with_a_point_reads_in_each_language(tmp_path):
    """0420_aviso_horas: the hours of "DGI no responde hace {since}" were kept as "{n} horas" with n "1.5" (a
    Spanish reader read "1.5 horas"); they are said as each reader writes a decimal. The exchange directory's
    whole hours under the same template stay as they were."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0410_aviso_numeros_y_tipos")
    template = "DGI no responde hace {since}. Se sigue emitiendo: todo sale solo en cuanto DGI responda."
    silent = {
        "mensaje": "DGI no responde hace 1.5 horas. Se sigue emitiendo: todo sale solo en cuanto DGI responda.",
        "plantilla": template,
        "valores": {"since": {"plantilla": "{n} horas", "valores": {"n": "1.5"}}},
    }
    directory = {
        "mensaje": "El directorio de receptores electrónicos de DGI se actualizó hace 50 horas.",
        "plantilla": "El directorio de receptores electrónicos de DGI se actualizó hace {ago}.",
        "valores": {"ago": {"plantilla": "{n} horas", "valores": {"n": "50"}}},
    }
    rows = _dgi_silence_notices(silent, directory)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(table_of("aviso", rows[0]).insert(), rows)
    command.upgrade(config, "heads")
    with engine.connect() as connection:
        silent, directory = (
            json.loads(t) for t in connection.execute(text("SELECT texts FROM aviso ORDER BY id")).scalars()
        )
    assert said(silent["mensaje"]).startswith("DGI no responde hace 1,5 horas. Se sigue emitiendo")
    assert _in_english(silent["mensaje"]).startswith("DGI has not answered for 1.5 hours. Issuing goes on")
    assert said(directory["mensaje"]) == "El directorio de receptores electrónicos de DGI se actualizó hace 50 horas."
    assert _in_english(directory["mensaje"]) == "DGI's directory of electronic receivers was updated 50 hours ago."
    command.downgrade(config, "0410_aviso_numeros_y_tipos")
    with engine.connect() as connection:
        restored = json.loads(connection.execute(text("SELECT texts FROM aviso WHERE id = 1")).scalar_one())
    engine.dispose()
    assert restored["mensaje"]["valores"]["since"]["plantilla"] == "{n} horas"


def test_a_notice_of_dgis_silence_stored_in_whole_hours_reads_without_a_decimal_and_groups_what_waits(tmp_path):
    """0440_aviso_horas_enteras: a silence of whole hours was kept as "{n:.1f} horas" with n "3.0" ("hace 3,0
    horas"), and the receipts that wait as "{waiting}" (1234, not 1.234). Stored notices are said the new way in
    both languages; hours with a decimal keep it; downgrading restores them."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0420_aviso_horas")
    waiting = (
        "DGI no responde hace {since}; {waiting} comprobantes esperan para salir. Se sigue emitiendo: todo sale solo"
        " en cuanto DGI responda."
    )

    def silence(hours: str, count: int) -> dict:
        return {
            "mensaje": f"DGI no responde hace {hours} horas; {count} comprobantes esperan para salir.",
            "plantilla": waiting,
            "valores": {"since": {"plantilla": "{n:.1f} horas", "valores": {"n": hours}}, "waiting": count},
        }

    rows = _dgi_silence_notices(silence("3.0", 1234), silence("1.0", 5), silence("2.5", 7))
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(table_of("aviso", rows[0]).insert(), rows)
    command.upgrade(config, "heads")

    def messages() -> list[dict]:
        with engine.connect() as connection:
            found = connection.execute(text("SELECT texts FROM aviso ORDER BY id")).scalars()
            return [json.loads(t)["mensaje"] for t in found]

    three, one, fraction = messages()
    assert said(three).startswith("DGI no responde hace 3 horas; 1.234 comprobantes esperan para salir.")
    assert _in_english(three).startswith("DGI has not answered for 3 hours; 1,234 receipts wait to go out.")
    assert said(one).startswith("DGI no responde hace una hora; 5 comprobantes esperan")
    assert _in_english(one).startswith("DGI has not answered for an hour; 5 receipts wait")
    assert said(fraction).startswith("DGI no responde hace 2,5 horas; 7 comprobantes esperan")
    assert _in_english(fraction).startswith("DGI has not answered for 2.5 hours; 7 receipts wait")
    command.downgrade(config, "0420_aviso_horas")
    restored = messages()
    engine.dispose()
    assert [m["valores"]["since"] for m in restored] == [
        {"plantilla": "{n:.1f} horas", "valores": {"n": hours}} for hours in ("3.0", "1.0", "2.5")
    ]
    assert {m["plantilla"] for m in restored} == {waiting}


def test_every_revision_id_fits_alembic_version_on_postgresql():
    """alembic_version.version_num is VARCHAR(32): a longer revision id migrates SQLite and then fails on
    PostgreSQL at its UPDATE (0460's did), so it is checked here, where every run sees it."""
    from alembic.script import ScriptDirectory

    from portal.service.migrations import alembic_config

    scripts = ScriptDirectory.from_config(alembic_config("sqlite://"))
    too_long = [script.revision for script in scripts.walk_revisions() if len(script.revision) > 32]
    assert too_long == []
