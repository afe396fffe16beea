"""empresa: a branch can be retired (dada de baja)

Revision ID: 0041_empresa_sucursal_baja
Revises: 0005_empresa
Create Date: 2026-11-27 14:35:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0041_empresa_sucursal_baja"
down_revision = "0005_empresa"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("empresa_sucursal") as batch:
        batch.add_column(sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("empresa_sucursal") as batch:
        batch.drop_column("retired_at")
