"""eventos: the events outbox

Revision ID: 0090_eventos
Revises: 0001_foundation
Create Date: 2026-11-27 14:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0090_eventos"
down_revision = "0001_foundation"
branch_labels = ("eventos",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evento",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_evento_company_id", "evento", ["company_id"], unique=False)
    op.create_index("ix_evento_pendiente", "evento", ["dispatched_at", "created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_evento_pendiente", table_name="evento")
    op.drop_index("ix_evento_company_id", table_name="evento")
    op.drop_table("evento")
