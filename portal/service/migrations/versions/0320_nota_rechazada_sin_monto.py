"""A credit or debit note DGI rejected applies nothing to the receipts it references (cfe_nota_referencia.amount 0)

A note DGI rejects counts as not issued (its number is voided by the rejection), but what it had set against its
receipts kept counting: the receipt could not be credited again in full, and the list showed it cancelled by the
rejected note. Issuing now gives the amounts back when DGI's rejection is recorded (comprobante.notes.
release_rejected); this does the same for the notes rejected before. The links stay, applying 0; migration 0310's
trigger renews both receipts' answers. Not undone on downgrade: those amounts never counted.

Revision ID: 0320_nota_rechazada_sin_monto
Revises: 0310_cfe_answer_version
Create Date: 2026-11-28 04:00:00
"""

from alembic import op

revision = "0320_nota_rechazada_sin_monto"
down_revision = "0310_cfe_answer_version"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "UPDATE cfe_nota_referencia SET amount = 0 WHERE amount <> 0 AND note_id IN "
        "(SELECT id FROM cfe_emitido WHERE dgi_status = 'rechazado')"
    )


def downgrade() -> None:
    """Nothing: a rejected note's amounts never counted."""
