"""correo: sends of a receipt by e-mail

Revision ID: 0011_correo
Revises: 0001_foundation
Create Date: 2026-11-23 22:05:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_correo"
down_revision = "0001_foundation"
branch_labels = ("correo",)
depends_on = "0003_comprobante"


def upgrade() -> None:
    op.create_table(
        "correo_envio",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("cfe_id", sa.String(length=40), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("message_id", sa.String(length=255), nullable=True),
        sa.Column("created_by", sa.String(length=254), nullable=False),
        sa.Column("request_id", sa.String(length=128), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["cfe_id"], ["cfe_emitido.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_correo_envio_cfe", "correo_envio", ["company_id", "cfe_id", "created_at"], unique=False)
    op.create_index("ix_correo_envio_pendientes", "correo_envio", ["state", "next_attempt_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_correo_envio_pendientes", table_name="correo_envio")
    op.drop_index("ix_correo_envio_cfe", table_name="correo_envio")
    op.drop_table("correo_envio")
