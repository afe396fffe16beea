"""clientes: the company's customers, and an index that reads a company's receipts in the order they were made

Revision ID: 0102_clientes
Revises: 0001_foundation
Create Date: 2026-11-27 14:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0102_clientes"
down_revision = "0001_foundation"
branch_labels = ("clientes",)
depends_on = "0003_comprobante"


def upgrade() -> None:
    op.create_table(
        "cliente",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("doc_type", sa.Integer(), nullable=False),
        sa.Column("country", sa.String(length=2), nullable=False),
        sa.Column("document", sa.String(length=20), nullable=False),
        sa.Column("name", sa.String(length=150), nullable=False),
        sa.Column("search_name", sa.String(length=150), nullable=False),
        sa.Column("address", sa.String(length=70), nullable=True),
        sa.Column("city", sa.String(length=30), nullable=True),
        sa.Column("department", sa.String(length=30), nullable=True),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("payment_terms", sa.Integer(), nullable=False),
        sa.Column("credit_days", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(length=12), nullable=False),
        sa.Column("last_receipt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "doc_type", "country", "document"),
    )
    op.create_index("ix_cliente_nombre", "cliente", ["company_id", "search_name", "id"], unique=False)
    op.create_index("ix_cliente_documento", "cliente", ["company_id", "document"], unique=False)
    op.create_table(
        "cliente_lectura",
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("read_until", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("company_id"),
    )
    # New receipts of a company in the order they were made: what the customers are read from.
    op.create_index("ix_cfe_emitido_creado", "cfe_emitido", ["company_id", "created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_cfe_emitido_creado", table_name="cfe_emitido")
    op.drop_table("cliente_lectura")
    op.drop_index("ix_cliente_documento", table_name="cliente")
    op.drop_index("ix_cliente_nombre", table_name="cliente")
    op.drop_table("cliente")
