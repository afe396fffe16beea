"""empresa: the printed contingency books (CFC, types 2xx) DGI authorised

Revision ID: 0121_libreta_contingencia
Revises: 0005_empresa
Create Date: 2026-11-27 15:05:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0121_libreta_contingencia"
down_revision = "0005_empresa"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "empresa_libreta_contingencia",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("tipo_cfe", sa.Integer(), nullable=False),
        sa.Column("serie", sa.String(length=2), nullable=False),
        sa.Column("nro_desde", sa.Integer(), nullable=False),
        sa.Column("nro_hasta", sa.Integer(), nullable=False),
        sa.Column("cae_id", sa.String(length=11), nullable=False),
        sa.Column("fecha_autorizacion", sa.Date(), nullable=False),
        sa.Column("fecha_vencimiento", sa.Date(), nullable=False),
        sa.Column("created_by", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "tipo_cfe", "serie", "nro_desde"),
    )
    op.create_index(
        "ix_empresa_libreta_contingencia_company_id", "empresa_libreta_contingencia", ["company_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_empresa_libreta_contingencia_company_id", table_name="empresa_libreta_contingencia")
    op.drop_table("empresa_libreta_contingencia")
