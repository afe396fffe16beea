"""comprobante: the IVA books' amounts as numeric columns of each receipt

The sales book (informes/ventas.py) read its amounts (net and IVA per rate, perceptions, retentions) out of each
receipt's totals_json: on PostgreSQL a `json` column, so a full parse of every receipt's totals per row (about
20 µs, half the SELECT of a month of 100,000 receipts), then a sort of the month. The eleven amounts the receipt
did not keep as columns (mnt_total it did) are now columns, set at issue time from the same totals
(comprobante/amounts.book_amounts) and filled here for the receipts issued before, in batches of ids. No index of
the book's own: the list's (company, date, ...) gives a month in date order and PostgreSQL sorts each day's
receipts by type, serie and number as they come (an index in the book's order was taken by the receipt list's
pages too, which then sorted whole days).

Revision ID: 0240_cfe_importes_libro
Revises: 0200_list_filter_indexes
Create Date: 2026-11-27 18:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0240_cfe_importes_libro"
down_revision = "0200_list_filter_indexes"
branch_labels = None
depends_on = None

# The column, and the name of the same amount in the receipt's totals_json (the CFE's Zona A).
AMOUNTS = (
    ("mnt_no_grv", "mntNoGrv"),
    ("mnt_expo_y_asim", "mntExpoyAsim"),
    ("mnt_iva_en_susp", "mntIVaenSusp"),
    ("mnt_neto_iva_tasa_min", "mntNetoIvaTasaMin"),
    ("mnt_neto_iva_tasa_basica", "mntNetoIVATasaBasica"),
    ("mnt_neto_iva_otra", "mntNetoIVAOtra"),
    ("mnt_iva_tasa_min", "mntIVATasaMin"),
    ("mnt_iva_tasa_basica", "mntIVATasaBasica"),
    ("mnt_iva_otra", "mntIVAOtra"),
    ("mnt_impuesto_perc", "mntImpuestoPerc"),
    ("mnt_tot_retenido", "mntTotRetenido"),
)
BATCH = 5000


def upgrade() -> None:
    # ADD COLUMN with a constant default: no table rewrite on either database (no batch copy on SQLite).
    for name, _source in AMOUNTS:
        op.add_column("cfe_emitido", sa.Column(name, sa.Numeric(17, 2), server_default="0", nullable=False))
    _backfill()


def _backfill() -> None:
    """Each receipt's amounts from its totals_json, one UPDATE per BATCH receipts (by id), the JSON read by the
    database itself (an absent amount is zero)."""
    connection = op.get_bind()
    cfe = sa.table(
        "cfe_emitido",
        sa.column("id", sa.String),
        sa.column("totals_json", sa.JSON),
        *(sa.column(name, sa.Numeric(17, 2)) for name, _source in AMOUNTS),
    )
    values = {
        name: sa.func.coalesce(sa.cast(cfe.c.totals_json[source].as_string(), sa.Numeric(17, 2)), 0)
        for name, source in AMOUNTS
    }
    last = None
    while True:
        ids = sa.select(cfe.c.id).order_by(cfe.c.id).limit(BATCH)
        if last is not None:
            ids = ids.where(cfe.c.id > last)
        batch = connection.execute(ids).scalars().all()
        if not batch:
            return
        connection.execute(
            cfe.update().where(cfe.c.id >= batch[0], cfe.c.id <= batch[-1]).values(**values),
        )
        last = batch[-1]


def downgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        for name, _source in reversed(AMOUNTS):
            batch_op.drop_column(name)
