"""Envelopes and DGI-rejection notices a company sent its electronic receivers before 0390 gave it counters, as
the migration tests store them (SQLite and PostgreSQL), and what 0390 must make of them."""

from __future__ import annotations

from sqlalchemy import Connection, text

from tests.support.recibidos import MOMENT, insert_rows, stored_companies

BEFORE_SENDER_NUMBERING = "0360_intercambio_sobre_textos"
_RUTS = {1: "219999830019", 2: "211003420017", 3: "214844360018"}  # company 3 sent nothing
# (company, Idemisor): company 1's numbers have a gap (3 and 4 were never stored).
_ENVELOPES = ((1, 1), (1, 2), (2, 1), (1, 5))
# (company, the number in the file name): company 1's third notice repeated its second's number (two runs at once).
_NOTICES = ((1, 1), (1, 2), (2, 1), (1, 2), (1, 3))
NUMBERED_NOTICES = [(1, 1, 1), (2, 1, 2), (3, 2, 1), (4, 1, 4), (5, 1, 3)]  # id, company, IDComunicacion
COUNTERS = [(1, 5, 4), (2, 1, 1), (3, 0, 0)]  # company, last Idemisor, last IDComunicacion


def notice_row(notice_id: int, company_id: int, number: int) -> dict:
    """A bare intercambio_aviso row as stored before 0390 (its number only in its file name)."""
    return {
        "id": notice_id,
        "company_id": company_id,
        "receiver_rut": "214844360018",
        "file_name": f"Rech_{_RUTS[company_id]}_{number}.xml",
        "xml": b"<CFEs_Anulados_x_RechazoDGI/>",
        "cfe_count": 1,
        "state": "entregado",
        "attempts": 1,
        "created_at": MOMENT,
    }


def store_before_sender_numbering(connection: Connection) -> None:
    """Three companies, a certificate each for the two that sent, their envelopes and notices, with the columns
    the tables have at BEFORE_SENDER_NUMBERING."""
    companies = stored_companies(_RUTS)
    certificates = [
        {
            "id": company_id,
            "company_id": company_id,
            "name": "firma",
            "cert_pem": "-",
            "key_encrypted": b"-",
            "serial": "1",
            "subject": "-",
            "issuer": "-",
            "not_before": MOMENT,
            "not_after": MOMENT,
            "created_at": MOMENT,
        }
        for company_id in (1, 2)
    ]
    envelopes = [
        {
            "id": envelope_id,
            "company_id": company_id,
            "receiver_rut": "214844360018",
            "idemisor": idemisor,
            "file_name": f"Sob_{_RUTS[company_id]}_20261124_{idemisor}.xml",
            "xml": b"<EnvioCFE_entreEmpresas/>",
            "cfe_count": 1,
            "certificate_id": company_id,
            "state": "entregado",
            "attempts": 1,
            "created_at": MOMENT,
            "ack_motives": "[]",
        }
        for envelope_id, (company_id, idemisor) in enumerate(_ENVELOPES, start=1)
    ]
    notices = [notice_row(i, company_id, number) for i, (company_id, number) in enumerate(_NOTICES, start=1)]
    insert_rows(
        connection, company=companies, certificate=certificates, intercambio_sobre=envelopes, intercambio_aviso=notices
    )


def assert_sender_numbered(connection: Connection) -> None:
    """What 0390 made of the rows of `store_before_sender_numbering`."""
    notices = connection.execute(text("SELECT id, company_id, id_comunicacion FROM intercambio_aviso ORDER BY id"))
    counters = connection.execute(
        text("SELECT company_id, last_idemisor, last_id_comunicacion FROM intercambio_numeracion ORDER BY company_id")
    )
    assert [tuple(row) for row in notices] == NUMBERED_NOTICES
    assert [tuple(row) for row in counters] == COUNTERS
