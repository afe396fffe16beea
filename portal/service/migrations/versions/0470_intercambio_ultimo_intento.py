"""intercambio_sobre.last_attempt_at: when the delivery of an envelope to an electronic receiver was last tried

A delivery that failed said why (`last_error`) and how many times (`attempts`), never when: the envelope kept no
moment of its attempts. The delivery job now writes it with each outcome (delivered or failed). Envelopes tried
before keep NULL: the moment is not known (`sent_at` is not it, since a receiver's answer proves a delivery too),
and the receipt's answer leaves it out rather than make one up.

Revision ID: 0470_intercambio_ultimo_intento
Revises: 0460_intercambio_acepta_confirma
Create Date: 2026-11-28 23:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0470_intercambio_ultimo_intento"
down_revision = "0460_intercambio_acepta_confirma"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("intercambio_sobre") as batch:
        batch.add_column(sa.Column("last_attempt_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("intercambio_sobre") as batch:
        batch.drop_column("last_attempt_at")
