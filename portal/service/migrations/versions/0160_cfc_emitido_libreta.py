"""comprobante: a contingency receipt (CFC, 2xx) keyed in from paper is numbered by its printed book, not a CAE range

cfe_emitido.cae_range_id becomes optional and cfe_emitido.libreta_id names the contingency book instead; a CHECK
keeps exactly one of the two set, so every receipt still names what authorised its number. The unique
(company_id, tipo_cfe, serie, nro) already keeps each paper number keyed in once.

Revision ID: 0160_cfc_emitido_libreta
Revises: 0170_receptor_totales
Create Date: 2026-11-27 17:15:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0160_cfc_emitido_libreta"
down_revision = "0170_receptor_totales"
branch_labels = None
depends_on = "0121_libreta_contingencia"

_ONE_AUTHORITY = "(cae_range_id IS NULL) <> (libreta_id IS NULL)"


def upgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.alter_column("cae_range_id", existing_type=sa.Integer(), nullable=True)
        batch_op.add_column(sa.Column("libreta_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key("fk_cfe_emitido_libreta_id", "empresa_libreta_contingencia", ["libreta_id"], ["id"])
        batch_op.create_check_constraint("ck_cfe_emitido_cae_o_libreta", _ONE_AUTHORITY)


def downgrade() -> None:
    op.execute("DELETE FROM cfe_emitido WHERE cae_range_id IS NULL")
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.drop_constraint("ck_cfe_emitido_cae_o_libreta", type_="check")
        batch_op.drop_constraint("fk_cfe_emitido_libreta_id", type_="foreignkey")
        batch_op.drop_column("libreta_id")
        batch_op.alter_column("cae_range_id", existing_type=sa.Integer(), nullable=False)
