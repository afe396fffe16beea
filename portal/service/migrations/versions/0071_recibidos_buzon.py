"""recibidos: exchange mailbox

Revision ID: 0071_recibidos_buzon
Revises: 0070_recibidos
Create Date: 2026-11-27 14:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0071_recibidos_buzon"
down_revision = "0070_recibidos"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "recibidos_buzon",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("url_encrypted", sa.LargeBinary(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("uidvalidity", sa.BigInteger(), nullable=True),
        sa.Column("last_uid", sa.BigInteger(), nullable=False),
        sa.Column("last_polled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id"),
    )
    op.create_table(
        "recibidos_mensaje",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=255), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("uid", sa.BigInteger(), nullable=False),
        sa.Column("sender", sa.String(length=254), nullable=True),
        sa.Column("filename", sa.String(length=200), nullable=True),
        sa.Column("outcome", sa.String(length=20), nullable=False),
        sa.Column("detail", sa.String(length=500), nullable=True),
        sa.Column("sobre_id", sa.Integer(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["sobre_id"], ["recibidos_sobre.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "message_id", "sha256", name="uq_recibidos_mensaje"),
    )


def downgrade() -> None:

    op.drop_table("recibidos_mensaje")
    op.drop_table("recibidos_buzon")
