"""correo: a company's own subject and text of the receipt e-mail

Revision ID: 0040_correo_plantilla
Revises: 0011_correo
Create Date: 2026-11-27 14:25:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0040_correo_plantilla"
down_revision = "0011_correo"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "correo_plantilla",
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("body", sa.String(length=4000), nullable=False),
        sa.Column("updated_by", sa.String(length=254), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("company_id"),
    )


def downgrade() -> None:
    op.drop_table("correo_plantilla")
