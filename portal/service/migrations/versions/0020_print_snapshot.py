"""comprobante: an issued receipt keeps the printed settings of the moment it was signed

The default paper and the logo (by SHA-256, its bytes in cfe_logo, one row per company and distinct image)
are recorded with each receipt, so a later change of the company's settings never changes an issued
receipt's PDF. Receipts issued before this migration have neither (print_paper NULL) and print with the
settings of the day, as before.

Revision ID: 0020_print_snapshot
Revises: 0017_search_receptor
Create Date: 2026-11-27 14:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0020_print_snapshot"
down_revision = "0017_search_receptor"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cfe_logo",
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("company_id", "sha256"),
    )
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.add_column(sa.Column("print_paper", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("print_logo_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.drop_column("print_logo_sha256")
        batch_op.drop_column("print_paper")
    op.drop_table("cfe_logo")
