"""inteligente: an index for the minute sweep of requests left `confirmed` by a killed process

Revision ID: 0370_inteligente_confirmadas
Revises: 0012_inteligente_list
Create Date: 2026-12-10 10:00:00
"""

from alembic import op

revision = "0370_inteligente_confirmadas"
down_revision = "0012_inteligente_list"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_emision_inteligente_state_updated", "emision_inteligente", ["state", "updated_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_emision_inteligente_state_updated", table_name="emision_inteligente")
