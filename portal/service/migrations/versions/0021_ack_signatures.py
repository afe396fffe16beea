"""envios: DGI's acknowledgements kept and their signatures checked

The ACKSobre and ACKRepDiario bytes were never stored (ack_xml stayed empty); they are now, and each
acknowledgement's signature is checked against DGI's trusted certificate (CFE_DGI_TRUSTED_CERT):
`verificada`, `invalida` or `sin_certificado` (ack_signature for ACKSobre and ACKRepDiario, answer_signature for
ACKCFE). Rows answered before this migration keep NULL: they were not checked.

Revision ID: 0021_ack_signatures
Revises: 0007_envios
Create Date: 2026-11-27 14:15:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0021_ack_signatures"
down_revision = "0007_envios"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("dgi_sobre", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ack_signature", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("answer_signature", sa.String(length=16), nullable=True))
    with op.batch_alter_table("dgi_reporte_diario", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ack_signature", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("dgi_reporte_diario", schema=None) as batch_op:
        batch_op.drop_column("ack_signature")
    with op.batch_alter_table("dgi_sobre", schema=None) as batch_op:
        batch_op.drop_column("answer_signature")
        batch_op.drop_column("ack_signature")
