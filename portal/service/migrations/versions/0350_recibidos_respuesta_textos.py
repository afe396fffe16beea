"""recibidos_respuesta.last_error_texts: why an answer to a supplier was not delivered, as i18n.stored keeps it,
said in each reader's language

The error was kept as its Spanish sentence alone ("No hay servicio web ni correo de intercambio del emisor."),
so the portal and the API in English said it in Spanish. Older answers have no texts and are still said in
Spanish (or in English when the sentence is a catalogue message without values).

Revision ID: 0350_recibidos_respuesta_textos
Revises: 0150_recibidos_buzon_lectura
Create Date: 2026-11-28 04:45:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0350_recibidos_respuesta_textos"
down_revision = "0150_recibidos_buzon_lectura"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("recibidos_respuesta", sa.Column("last_error_texts", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("recibidos_respuesta") as batch:
        batch.drop_column("last_error_texts")
