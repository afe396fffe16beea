"""cotizaciones: the BCU's exchange rates by day and currency

Revision ID: 0101_cotizaciones
Revises: 0001_foundation
Create Date: 2026-11-27 14:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0101_cotizaciones"
down_revision = "0001_foundation"
branch_labels = ("cotizaciones",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cotizacion",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("buy", sa.Numeric(precision=14, scale=6), nullable=False),
        sa.Column("sell", sa.Numeric(precision=14, scale=6), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("day", "currency"),
    )


def downgrade() -> None:
    op.drop_table("cotizacion")
