"""intercambio: the directory of electronic issuers

Revision ID: 0080_intercambio
Revises: 0001_foundation
Create Date: 2026-11-27 14:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0080_intercambio"
down_revision = "0001_foundation"
branch_labels = ("intercambio",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "intercambio_emisor",
        sa.Column("rut", sa.String(length=12), nullable=False),
        sa.Column("name", sa.String(length=150), nullable=False),
        sa.Column("exchange_email", sa.String(length=254), nullable=True),
        sa.Column("ws_url", sa.String(length=500), nullable=True),
        sa.Column("transition_from", sa.Date(), nullable=True),
        sa.Column("transition_to", sa.Date(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("rut"),
    )


def downgrade() -> None:
    op.drop_table("intercambio_emisor")
