"""webhook_intento.error_texts: why an attempt failed as i18n.stored keeps it, said in each reader's language

An attempt's error was kept as its Spanish sentence alone ("Sin respuesta en 10 s."), so the portal in English
showed it in Spanish. Older attempts have no texts and are still said in Spanish.

Revision ID: 0340_webhook_intento_textos
Revises: 0091_webhooks
Create Date: 2026-11-28 04:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0340_webhook_intento_textos"
down_revision = "0091_webhooks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("webhook_intento", sa.Column("error_texts", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_intento") as batch:
        batch.drop_column("error_texts")
