"""envios: how many times DGI observed a contingency receipt (CFC answered CE)

Revision ID: 0122_cfc_observaciones
Revises: 0120_dgi_outage
Create Date: 2026-11-27 15:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0122_cfc_observaciones"
down_revision = "0120_dgi_outage"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("dgi_envio_cfe", schema=None) as batch_op:
        batch_op.add_column(sa.Column("observations", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("dgi_envio_cfe", schema=None) as batch_op:
        batch_op.drop_column("observations")
