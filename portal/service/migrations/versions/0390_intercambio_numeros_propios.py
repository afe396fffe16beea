"""intercambio: each company's Idemisor and IDComunicacion from a counter row, and a notice's number unique

An envelope's Idemisor was max() + 1 and a DGI-rejection notice's IDComunicacion (file Rech_<RUC>_<n>.xml) was
count() + 1, both read without a lock: two packers or two notice runs for the same company at once took the same
number (the envelopes' unique index made the second packer fail; the notices had none, so two went out with the
same number and file name). Both now come from the company's counters (intercambio_numeracion), which start after
the numbers already used. Each notice keeps its number (intercambio_aviso.id_comunicacion, unique per company),
read from its file name; a notice that repeated an earlier one's number keeps the document and file name it was
sent with, and is counted under the next free number of its company.

Revision ID: 0390_intercambio_numeros_propios
Revises: 0360_intercambio_sobre_textos
Create Date: 2026-11-30 10:00:00
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0390_intercambio_numeros_propios"
down_revision = "0360_intercambio_sobre_textos"
branch_labels = None
depends_on = None

_NUMBER = re.compile(r"_(\d+)\.xml$")


def _numbers(rows) -> dict[int, int]:
    """Each notice's number (id -> n): the one in its file name, unless an earlier notice of its company has it
    (or the name has none), then the company's next free one."""
    rows = list(rows)
    used: dict[int, set[int]] = {}
    found = {}
    for notice_id, company_id, file_name in rows:
        match = _NUMBER.search(file_name or "")
        number = int(match.group(1)) if match else None
        if number is not None and number not in used.setdefault(company_id, set()):
            used[company_id].add(number)
            found[notice_id] = number
    last = {company_id: max(numbers, default=0) for company_id, numbers in used.items()}
    for notice_id, company_id, _file_name in rows:
        if notice_id not in found:
            last[company_id] += 1
            found[notice_id] = last[company_id]
    return found


def upgrade() -> None:
    op.add_column("intercambio_aviso", sa.Column("id_comunicacion", sa.Integer(), nullable=True))
    connection = op.get_bind()
    notices = sa.table(
        "intercambio_aviso",
        sa.column("id", sa.Integer()),
        sa.column("company_id", sa.Integer()),
        sa.column("file_name", sa.String()),
        sa.column("id_comunicacion", sa.Integer()),
    )
    rows = connection.execute(sa.select(notices.c.id, notices.c.company_id, notices.c.file_name).order_by(notices.c.id))
    numbers = [{"notice_id": notice_id, "number": n} for notice_id, n in _numbers(rows).items()]
    if numbers:
        connection.execute(
            notices.update()
            .where(notices.c.id == sa.bindparam("notice_id"))
            .values(id_comunicacion=sa.bindparam("number")),
            numbers,
        )
    with op.batch_alter_table("intercambio_aviso") as batch:
        batch.alter_column("id_comunicacion", existing_type=sa.Integer(), nullable=False)
    op.create_index(
        "uq_intercambio_aviso_id_comunicacion", "intercambio_aviso", ["company_id", "id_comunicacion"], unique=True
    )
    op.create_table(
        "intercambio_numeracion",
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("last_idemisor", sa.Integer(), nullable=False),
        sa.Column("last_id_comunicacion", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("company_id"),
    )
    op.execute(
        "INSERT INTO intercambio_numeracion (company_id, last_idemisor, last_id_comunicacion) "
        "SELECT company.id, "
        "COALESCE((SELECT MAX(idemisor) FROM intercambio_sobre WHERE intercambio_sobre.company_id = company.id), 0), "
        "COALESCE((SELECT MAX(id_comunicacion) FROM intercambio_aviso "
        "WHERE intercambio_aviso.company_id = company.id), 0) "
        "FROM company"
    )


def downgrade() -> None:
    op.drop_table("intercambio_numeracion")
    op.drop_index("uq_intercambio_aviso_id_comunicacion", table_name="intercambio_aviso")
    with op.batch_alter_table("intercambio_aviso") as batch:
        batch.drop_column("id_comunicacion")
