"""envios: unused paper numbers of a contingency book voided like a CAE range's (dgi_anulacion)

dgi_anulacion.cae_range_id becomes optional and dgi_anulacion.libreta_id names the contingency book instead; a
CHECK keeps exactly one of the two set.

Revision ID: 0161_cfc_anulacion_libreta
Revises: 0122_cfc_observaciones
Create Date: 2026-11-27 17:15:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0161_cfc_anulacion_libreta"
down_revision = "0122_cfc_observaciones"
branch_labels = None
depends_on = "0121_libreta_contingencia"

_ONE_AUTHORITY = "(cae_range_id IS NULL) <> (libreta_id IS NULL)"


def upgrade() -> None:
    with op.batch_alter_table("dgi_anulacion", schema=None) as batch_op:
        batch_op.alter_column("cae_range_id", existing_type=sa.Integer(), nullable=True)
        batch_op.add_column(sa.Column("libreta_id", sa.Integer(), nullable=True))
        batch_op.create_index("ix_dgi_anulacion_libreta_id", ["libreta_id"], unique=False)
        batch_op.create_foreign_key(
            "fk_dgi_anulacion_libreta_id", "empresa_libreta_contingencia", ["libreta_id"], ["id"]
        )
        batch_op.create_check_constraint("ck_dgi_anulacion_cae_o_libreta", _ONE_AUTHORITY)


def downgrade() -> None:
    op.execute("DELETE FROM dgi_anulacion WHERE cae_range_id IS NULL")
    with op.batch_alter_table("dgi_anulacion", schema=None) as batch_op:
        batch_op.drop_constraint("ck_dgi_anulacion_cae_o_libreta", type_="check")
        batch_op.drop_constraint("fk_dgi_anulacion_libreta_id", type_="foreignkey")
        batch_op.drop_index("ix_dgi_anulacion_libreta_id")
        batch_op.drop_column("libreta_id")
        batch_op.alter_column("cae_range_id", existing_type=sa.Integer(), nullable=False)
