"""intercambio: the directory's technical e-mail and source, and its refreshes from DGI's ws_consultas

Revision ID: 0081_intercambio_directorio
Revises: 0080_intercambio
Create Date: 2026-11-27 14:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0081_intercambio_directorio"
down_revision = "0080_intercambio"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("intercambio_emisor") as batch:
        batch.add_column(sa.Column("tech_email", sa.String(length=254), nullable=True))
        batch.add_column(sa.Column("source", sa.String(length=12), nullable=False, server_default="dgi"))
    op.create_table(
        "intercambio_actualizacion",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=12), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_intercambio_actualizacion_started_at", "intercambio_actualizacion", ["started_at"])


def downgrade() -> None:
    op.drop_index("ix_intercambio_actualizacion_started_at", table_name="intercambio_actualizacion")
    op.drop_table("intercambio_actualizacion")
    with op.batch_alter_table("intercambio_emisor") as batch:
        batch.drop_column("source")
        batch.drop_column("tech_email")
