"""recibidos_buzon.last_error_texts: why a company's exchange mailbox could not be read, as i18n.stored keeps it,
said in each reader's language

The error was kept as its Spanish sentence alone ("No se pudo leer el buzón: ..."), so the compliance watch's
concern about the mailbox (GET /api/v1/salud, its notices and the admins' digest: "Último error: ...") said it in
Spanish to an English reader. The mailboxes whose error reads as one of the messages below get their texts; the
value (the mail server's or the system's own words) is said as it was.

Revision ID: 0381_recibidos_buzon_textos
Revises: 0380_recibidos_numeros_propios
Create Date: 2026-12-13 10:00:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import backfill

revision = "0381_recibidos_buzon_textos"
down_revision = "0380_recibidos_numeros_propios"
branch_labels = None
depends_on = None

# The messages a mailbox's error was written with (recibidos/mailbox.py, poll), as they were kept before.
MESSAGES = ("No se pudo leer el buzón: {error}", "No se pudo procesar el buzón: {mensaje}")


def upgrade() -> None:
    op.add_column("recibidos_buzon", sa.Column("last_error_texts", sa.JSON(), nullable=True))
    backfill("recibidos_buzon", "last_error", "last_error_texts", MESSAGES)


def downgrade() -> None:
    with op.batch_alter_table("recibidos_buzon") as batch:
        batch.drop_column("last_error_texts")
