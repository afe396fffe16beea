"""salud: the compliance watch's verdicts and the notification centre

Revision ID: 0092_salud
Revises: 0001_foundation
Create Date: 2026-11-27 14:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0092_salud"
down_revision = "0001_foundation"
branch_labels = ("salud",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "salud_estado",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=60), nullable=False),
        sa.Column("kind", sa.String(length=30), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("signature", sa.String(length=20), nullable=False),
        sa.Column("message", sa.String(length=400), nullable=False),
        sa.Column("action", sa.String(length=80), nullable=False),
        sa.Column("link", sa.String(length=200), nullable=False),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mailed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "key"),
    )
    op.create_table(
        "aviso",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=60), nullable=False),
        sa.Column("kind", sa.String(length=30), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("message", sa.String(length=400), nullable=False),
        sa.Column("action", sa.String(length=80), nullable=False),
        sa.Column("link", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_aviso_empresa", "aviso", ["company_id", "id"], unique=False)
    op.create_table(
        "aviso_leido",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("notice_id", sa.Integer(), nullable=False),
        sa.Column("user_email", sa.String(length=254), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["notice_id"], ["aviso.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("notice_id", "user_email"),
    )


def downgrade() -> None:
    op.drop_table("aviso_leido")
    op.drop_index("ix_aviso_empresa", table_name="aviso")
    op.drop_table("aviso")
    op.drop_table("salud_estado")
