"""certificates: an admin can retire one (dado de baja)

Revision ID: 0042_certificado_baja
Revises: 0001_foundation
Create Date: 2026-11-27 14:50:00

The certificate table is the platform's (0001_foundation); this change is a branch of its own on it.
"""

import sqlalchemy as sa
from alembic import op

revision = "0042_certificado_baja"
down_revision = "0001_foundation"
branch_labels = ("certificado_baja",)
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("certificate") as batch:
        batch.add_column(sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("certificate") as batch:
        batch.drop_column("retired_at")
