"""correo_envio.last_error_texts: why a receipt's e-mail to the customer waits or failed, as i18n.stored keeps it,
said in each reader's language

The reason was kept as its Spanish sentence alone ("El servidor de correo rechazó: ...", "No se pudo conectar con
el servidor de correo ..."), so a receipt's sends (GET /api/v1/correo/comprobante/<id>/envios, getByIdCfeEmitido's
correo.ultimo.error) and the portal's receipt page said it in Spanish to an English reader. The sends stored before
whose error reads as one of the messages below get their texts; others are said as they were.

A plain ADD COLUMN and DROP COLUMN (not batch mode): a SQLite rebuild of correo_envio would drop the triggers of
migration 0310. The texts filled below bump the receipts' answer_version through them: their answer changed.

Revision ID: 0364_correo_envio_textos
Revises: 0040_correo_plantilla
Create Date: 2026-12-12 10:20:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import backfill

revision = "0364_correo_envio_textos"
down_revision = "0040_correo_plantilla"
branch_labels = None
depends_on = None

# The messages a send's error was written with (correo/transport.py, correo/sending.py), the ones without values
# first.
MESSAGES = (
    "No se pudo armar el correo del comprobante.",
    "El servidor de correo no admite lo que este envío necesita (usuario y clave, o direcciones con tildes); "
    "revisá CFE_SMTP_URL.",
    "No se pudo conectar con el servidor de correo (no respondió, rechazó la conexión o la cortó); se vuelve a "
    "intentar.",
    "El servidor de correo rechazó: {rechazados}",
    "El servidor de correo respondió {codigo} {respuesta}",
)


def upgrade() -> None:
    op.add_column("correo_envio", sa.Column("last_error_texts", sa.JSON(), nullable=True))
    backfill("correo_envio", "last_error", "last_error_texts", MESSAGES)


def downgrade() -> None:
    op.drop_column("correo_envio", "last_error_texts")
