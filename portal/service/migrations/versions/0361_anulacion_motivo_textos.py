"""dgi_anulacion.reason_texts: the reason of a number voided by DGI's rejection, as i18n.stored keeps it, said in
each reader's language

A number voided because DGI rejected its receipt was kept with its reason as a Spanish sentence alone
("Comprobante anulado por rechazo de DGI (E02)"), so the Envíos page and getByIdCfeEmitido's dgi.anulacion said it
in Spanish to an English reader. The numbers voided so before get their texts; an operator's reason is the
operator's own words and has none.

A plain ADD COLUMN and DROP COLUMN (not batch mode): a SQLite rebuild of dgi_anulacion would drop the triggers of
migration 0310. The texts filled below bump the receipts' answer_version through them: their answer changed.

Revision ID: 0361_anulacion_motivo_textos
Revises: 0161_cfc_anulacion_libreta
Create Date: 2026-11-28 06:20:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import backfill

revision = "0361_anulacion_motivo_textos"
down_revision = "0161_cfc_anulacion_libreta"
branch_labels = None
depends_on = None

# The message the rejection's void was written with (envios/sending.py, void_by_rejection).
MESSAGES = ("Comprobante anulado por rechazo de DGI ({codigos})",)


def upgrade() -> None:
    op.add_column("dgi_anulacion", sa.Column("reason_texts", sa.JSON(), nullable=True))
    backfill("dgi_anulacion", "reason", "reason_texts", MESSAGES, only={"source": "rechazo_dgi"})


def downgrade() -> None:
    op.drop_column("dgi_anulacion", "reason_texts")
