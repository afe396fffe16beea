"""comprobante: the receipt list's own index also holds the receiver's document and folded name

The list filtered by a receiver text ("21", a name) asked SQLite for "document starts with it OR folded
name starts with it"; SQLite answered it from the two receiver indexes and then read every matching receipt
from the table, for the page and again for the totals (every receipt for "21"). With both columns in
ix_cfe_emitido_listado the filter is tested on the index entries the list already walks in its order, so a
page stops after its rows and the totals read only the index.

Revision ID: 0017_search_receptor
Revises: 0016_receptor_doc_recent
Create Date: 2026-11-24 04:00:00
"""

from alembic import op

revision = "0017_search_receptor"
down_revision = "0016_receptor_doc_recent"
branch_labels = None
depends_on = None

_LISTED = ["company_id", "fch_emis", "nro", "id", "tipo_cfe", "tpo_moneda", "mnt_total", "dgi_status"]


def _listing_index(columns: list[str]) -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.drop_index("ix_cfe_emitido_listado")
        batch_op.create_index("ix_cfe_emitido_listado", columns, unique=False)


def upgrade() -> None:
    _listing_index([*_LISTED, "receptor_doc", "receptor_busqueda"])


def downgrade() -> None:
    _listing_index(_LISTED)
