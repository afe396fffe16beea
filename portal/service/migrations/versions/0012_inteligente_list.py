"""inteligente: an index for the support list of a company's requests, newest first

Revision ID: 0012_inteligente_list
Revises: 0004_inteligente
Create Date: 2026-11-23 22:40:00
"""

from alembic import op

revision = "0012_inteligente_list"
down_revision = "0004_inteligente"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_emision_inteligente_company_created",
        "emision_inteligente",
        ["company_id", "created_at", "id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_emision_inteligente_company_created", table_name="emision_inteligente")
