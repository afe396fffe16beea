"""envios: what the service has seen of DGI's reception (outages), and the simulator's outage mode

Revision ID: 0120_dgi_outage
Revises: 0021_ack_signatures
Create Date: 2026-11-27 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0120_dgi_outage"
down_revision = "0021_ack_signatures"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dgi_estado",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("down_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_ok_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_failure_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("next_probe_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "dgisim_modo",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=20), nullable=False),
        sa.Column("slow_seconds", sa.Float(), nullable=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("dgisim_modo")
    op.drop_table("dgi_estado")
