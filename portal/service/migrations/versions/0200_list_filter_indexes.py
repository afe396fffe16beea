"""comprobante: the receipt list's filters by type, currency, DGI state and amount read an index in list order

At a million receipts (issue 31, target 6) a filter whose index held only (company, value) made the list read
every match from the table and sort it for the page (e-Facturas in dollars: 2.3 s at 600,000 receipts of one
company on SQLite), and the totals read the table again. Each such filter's index now continues with the list's
order (date, number, id) and the columns the totals add up, so the page is an ordered index scan that stops
after its rows and the bounded totals read the index alone. The currency and DGI state indexes replace the
narrower ones they extend; the type and amount indexes are new (the amount one serves a range of amounts,
which the list's order cannot).

Revision ID: 0200_list_filter_indexes
Revises: 0160_cfc_emitido_libreta
Create Date: 2026-11-27 17:10:00
"""

from alembic import op

revision = "0200_list_filter_indexes"
down_revision = "0160_cfc_emitido_libreta"
branch_labels = None
depends_on = None

ORDER = ["fch_emis", "nro", "id"]


def upgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.create_index(
            "ix_cfe_emitido_tipo_listado", ["company_id", "tipo_cfe", *ORDER, "tpo_moneda", "mnt_total"], unique=False
        )
        batch_op.create_index(
            "ix_cfe_emitido_moneda_listado", ["company_id", "tpo_moneda", *ORDER, "tipo_cfe", "mnt_total"], unique=False
        )
        batch_op.create_index(
            "ix_cfe_emitido_dgi_status_listado",
            ["company_id", "dgi_status", *ORDER, "tipo_cfe", "tpo_moneda", "mnt_total"],
            unique=False,
        )
        batch_op.create_index(
            "ix_cfe_emitido_monto", ["company_id", "mnt_total", "tipo_cfe", "tpo_moneda"], unique=False
        )
        batch_op.drop_index("ix_cfe_emitido_moneda")
        batch_op.drop_index("ix_cfe_emitido_dgi_status")


def downgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.create_index("ix_cfe_emitido_dgi_status", ["company_id", "dgi_status"], unique=False)
        batch_op.create_index("ix_cfe_emitido_moneda", ["company_id", "tpo_moneda"], unique=False)
        batch_op.drop_index("ix_cfe_emitido_monto")
        batch_op.drop_index("ix_cfe_emitido_dgi_status_listado")
        batch_op.drop_index("ix_cfe_emitido_moneda_listado")
        batch_op.drop_index("ix_cfe_emitido_tipo_listado")
