"""productos: the company's products and services

Revision ID: 0103_productos
Revises: 0001_foundation
Create Date: 2026-11-27 14:50:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0103_productos"
down_revision = "0001_foundation"
branch_labels = ("productos",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "producto",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=35), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("search_name", sa.String(length=80), nullable=False),
        sa.Column("unit", sa.String(length=4), nullable=True),
        sa.Column("price", sa.Numeric(precision=17, scale=6), nullable=False),
        sa.Column("price_includes_iva", sa.Boolean(), nullable=False),
        sa.Column("ind_fact", sa.Integer(), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "code"),
    )
    op.create_index("ix_producto_nombre", "producto", ["company_id", "search_name", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_producto_nombre", table_name="producto")
    op.drop_table("producto")
