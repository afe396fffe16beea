"""intercambio_cfe: the receiver's answer that gave each receipt its verdict, and when it confirmed an acceptance

A receiver answers an AE when the envelope arrives and another, its own decision, when its accountant accepts the
receipt. The second AE was taken for the first one sent again and dropped, so the issuer kept reading that the
receiver "may still reject it commercially" after it had accepted. Each verdict now keeps the receiver's
IDRespuesta (`answer_ref`); an AE from another answer of the receiver is its confirmation (`confirmed_at`).
Receipts answered before keep no IDRespuesta: the next AE only records it.

Revision ID: 0460_intercambio_acepta_confirma
Revises: 0390_intercambio_numeros_propios
Create Date: 2026-11-28 21:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0460_intercambio_acepta_confirma"
down_revision = "0390_intercambio_numeros_propios"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("intercambio_cfe") as batch:
        batch.add_column(sa.Column("answer_ref", sa.String(20), nullable=True))
        batch.add_column(sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("intercambio_cfe") as batch:
        batch.drop_column("confirmed_at")
        batch.drop_column("answer_ref")
