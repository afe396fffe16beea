"""membership.created_at: since when a person is a member of a company

An admin's list of the company's people says since when each one is a member. Memberships made before this have
no such moment (nothing recorded it): they stay empty, and the list says it is not known, rather than
borrowing the user's or the company's creation as if it were the membership's.

Revision ID: 0430_miembro_desde
Revises: 0001_foundation
Create Date: 2026-11-28 14:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0430_miembro_desde"
down_revision = "0001_foundation"
branch_labels = ("miembros",)
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("membership", schema=None) as batch_op:
        batch_op.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("membership", schema=None) as batch_op:
        batch_op.drop_column("created_at")
