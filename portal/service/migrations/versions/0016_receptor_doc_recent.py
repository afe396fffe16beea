"""comprobante: past receivers by document prefix read only an index (company, document, moment)

GET /api/v1/receptores groups a company's receipts by receiver document and takes each one's newest
created_at. With (company_id, receptor_doc) alone every matching receipt was read from the table for its
created_at; with created_at in the index the grouping is an index-only pass, and the lookups by document
that (company_id, receptor_doc) served use its leading columns, so it replaces that index.

Revision ID: 0016_receptor_doc_recent
Revises: 0015_utc
Create Date: 2026-11-24 03:10:00
"""

from alembic import op

revision = "0016_receptor_doc_recent"
down_revision = "0015_utc"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.create_index(
            "ix_cfe_emitido_receptor_doc_reciente", ["company_id", "receptor_doc", "created_at"], unique=False
        )
        batch_op.drop_index("ix_cfe_emitido_receptor_doc")


def downgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.create_index("ix_cfe_emitido_receptor_doc", ["company_id", "receptor_doc"], unique=False)
        batch_op.drop_index("ix_cfe_emitido_receptor_doc_reciente")
