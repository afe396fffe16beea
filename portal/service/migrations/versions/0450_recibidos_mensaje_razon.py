"""recibidos_mensaje.reason: why a message of the exchange mailbox was set aside, as a code

A message set aside (too big, too many documents, unreadable, an envelope refused BS, an answer or a DGI notice
that could not be recorded) was kept with a Spanish sentence for support alone, and the company never learnt that
a supplier's mail was not received. The compliance watch now says so, by this code in each reader's language; a
message with no XML at all (what any public address gets) has its own code and is not news. Messages set aside
before stay without a code and are not counted.

Revision ID: 0450_recibidos_mensaje_razon
Revises: 0381_recibidos_buzon_textos
Create Date: 2026-11-28 20:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0450_recibidos_mensaje_razon"
down_revision = "0381_recibidos_buzon_textos"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("recibidos_mensaje") as batch:
        batch.add_column(sa.Column("reason", sa.String(20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("recibidos_mensaje") as batch:
        batch.drop_column("reason")
