"""recibidos: each company's own IDReceptor and IDRespuesta, counted from 1 per company

Our answers to a supplier's envelope (ACKSobre, ACKCFE) gave as IDReceptor the envelope's row id and as
IDRespuesta, and in the file name, the answer's row id: ids shared by every company the service hosts, so a
supplier could read off how many envelopes the whole service receives. Each envelope and each answer now has
the company's own number (recibidos_sobre.id_receptor, recibidos_respuesta.id_respuesta, unique per company),
taken from the company's counters (recibidos_numeracion). The rows already stored keep the number their signed
documents were sent with (their old id: unique per company too, since it was unique in the table), so no number a
supplier holds is ever given again or contradicted (a later decision on an old envelope names it as its ACKSobre
did); each company's counters start after the largest of its own. Only what arrives from now on counts 1, 2, 3...
for a new company, and goes on from its largest for one that had received before.

Revision ID: 0380_recibidos_numeros_propios
Revises: 0350_recibidos_respuesta_textos
Create Date: 2026-11-29 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0380_recibidos_numeros_propios"
down_revision = "0350_recibidos_respuesta_textos"
branch_labels = None
depends_on = None

# table -> its column of the company's own number (fixed names of our own tables, not input)
NUMBERED = {"recibidos_sobre": "id_receptor", "recibidos_respuesta": "id_respuesta"}


def upgrade() -> None:
    for table, column in NUMBERED.items():
        op.add_column(table, sa.Column(column, sa.Integer(), nullable=True))
        # The number each stored row was sent with: its id.
        op.execute(f"UPDATE {table} SET {column} = id")  # noqa: S608 - our own table and column names
        with op.batch_alter_table(table) as batch:
            batch.alter_column(column, existing_type=sa.Integer(), nullable=False)
        op.create_index(f"uq_{table}_{column}", table, ["company_id", column], unique=True)
    op.create_table(
        "recibidos_numeracion",
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("last_id_receptor", sa.Integer(), nullable=False),
        sa.Column("last_id_respuesta", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("company_id"),
    )
    op.execute(
        "INSERT INTO recibidos_numeracion (company_id, last_id_receptor, last_id_respuesta) "
        "SELECT company.id, "
        "COALESCE((SELECT MAX(id_receptor) FROM recibidos_sobre WHERE recibidos_sobre.company_id = company.id), 0), "
        "COALESCE((SELECT MAX(id_respuesta) FROM recibidos_respuesta "
        "WHERE recibidos_respuesta.company_id = company.id), 0) "
        "FROM company"
    )


def downgrade() -> None:
    op.drop_table("recibidos_numeracion")
    for table, column in NUMBERED.items():
        op.drop_index(f"uq_{table}_{column}", table_name=table)
        with op.batch_alter_table(table) as batch:
            batch.drop_column(column)
