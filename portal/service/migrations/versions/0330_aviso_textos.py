"""aviso.texts: a notice's message and action as i18n.stored keeps them, said in each reader's language

A notice was kept as its Spanish sentence alone, so the notification centre spoke Spanish to a person reading the
portal in English. Older notices have no texts and are still said in Spanish.

Revision ID: 0330_aviso_textos
Revises: 0092_salud
Create Date: 2026-11-28 03:45:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0330_aviso_textos"
down_revision = "0092_salud"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("aviso", sa.Column("texts", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("aviso") as batch:
        batch.drop_column("texts")
