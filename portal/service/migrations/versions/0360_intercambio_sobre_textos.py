"""intercambio_sobre.last_error_texts: why an envelope to an electronic receiver was not delivered, as i18n.stored
keeps it, said in each reader's language

The error was kept as its Spanish sentence alone ("El receptor no tomó el sobre."), so a receipt's delivery to its
electronic receiver (getByIdCfeEmitido's intercambio.sobre.ultimoError) said it in Spanish to an English reader.
Older envelopes whose error reads as one of the messages below get their texts; the receiver's own words (its
web service's code and description, "HTTP 503") have none and are said as they were.

Revision ID: 0360_intercambio_sobre_textos
Revises: 0082_intercambio_envios
Create Date: 2026-11-28 06:00:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import backfill

revision = "0360_intercambio_sobre_textos"
down_revision = "0082_intercambio_envios"
branch_labels = None
depends_on = None

# The messages an envelope's error was written with (intercambio/sending.py, intercambio/transport.py).
MESSAGES = (
    "El receptor ya no figura en el directorio de emisores electrónicos.",
    "No hay transporte de intercambio en esta instalación.",
    "El receptor no tomó el sobre.",
    "El receptor no tiene servicio web ni correo de intercambio.",
    "No se pudo conectar con el servicio de intercambio.",
    "El servicio de intercambio respondió sin documento.",
    "El servicio de intercambio respondió algo ilegible.",
    "Respuesta sin código.",
    "El servicio de intercambio no respondió en {seconds} s.",
    "El servicio de intercambio falló: {why}",
    "Respuesta ilegible del servicio de intercambio: {why}",
    "Error inesperado: {error}",
)


def upgrade() -> None:
    op.add_column("intercambio_sobre", sa.Column("last_error_texts", sa.JSON(), nullable=True))
    backfill("intercambio_sobre", "last_error", "last_error_texts", MESSAGES)


def downgrade() -> None:
    with op.batch_alter_table("intercambio_sobre") as batch:
        batch.drop_column("last_error_texts")
