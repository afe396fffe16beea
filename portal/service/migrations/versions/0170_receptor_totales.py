"""comprobante: the receiver name index also holds what the receipt list's totals add up

A word common to many names ("pocitos", one receipt in nine) matched the page along the list's own index, and
its totals walked that whole index too, every receipt of the company, to add up the one in nine that match.
With currency, type and amount in (company_id, receptor_busqueda) the totals read the matching entries of this
index alone and never the table.

Revision ID: 0170_receptor_totales
Revises: 0060_receptor_palabras
Create Date: 2026-11-27 17:10:00
"""

from alembic import op

revision = "0170_receptor_totales"
down_revision = "0060_receptor_palabras"
branch_labels = None
depends_on = None


def _receiver_index(columns: list[str]) -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.drop_index("ix_cfe_emitido_receptor_busqueda")
        batch_op.create_index("ix_cfe_emitido_receptor_busqueda", columns, unique=False)


def upgrade() -> None:
    _receiver_index(["company_id", "receptor_busqueda", "tpo_moneda", "tipo_cfe", "mnt_total"])


def downgrade() -> None:
    _receiver_index(["company_id", "receptor_busqueda"])
