"""recibidos: when each exchange mailbox was configured and last read without error (the compliance watch)

Revision ID: 0150_recibidos_buzon_lectura
Revises: 0071_recibidos_buzon
Create Date: 2026-11-27 15:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0150_recibidos_buzon_lectura"
down_revision = "0071_recibidos_buzon"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("recibidos_buzon") as batch:
        batch.add_column(sa.Column("configured_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("last_ok_at", sa.DateTime(timezone=True), nullable=True))
    # Mailboxes configured before: the watch counts from now, and a read that went well is a good read.
    op.execute("UPDATE recibidos_buzon SET configured_at = CURRENT_TIMESTAMP")
    op.execute("UPDATE recibidos_buzon SET last_ok_at = last_polled_at WHERE last_error IS NULL")


def downgrade() -> None:
    with op.batch_alter_table("recibidos_buzon") as batch:
        batch.drop_column("last_ok_at")
        batch.drop_column("configured_at")
