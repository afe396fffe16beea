"""intercambio: envelopes delivered to electronic receivers, each receipt's state there, DGI-rejection notices

Revision ID: 0082_intercambio_envios
Revises: 0081_intercambio_directorio
Create Date: 2026-11-27 14:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0082_intercambio_envios"
down_revision = "0081_intercambio_directorio"
branch_labels = None
depends_on = "0003_comprobante"


def _delivery_columns() -> list[sa.Column]:
    return [
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("channel", sa.String(length=10), nullable=True),
        sa.Column("detail", sa.String(length=500), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        "intercambio_sobre",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("receiver_rut", sa.String(length=12), nullable=False),
        sa.Column("idemisor", sa.Integer(), nullable=False),
        sa.Column("file_name", sa.String(length=60), nullable=False),
        sa.Column("xml", sa.LargeBinary(), nullable=False),
        sa.Column("cfe_count", sa.Integer(), nullable=False),
        sa.Column("certificate_id", sa.Integer(), nullable=False),
        *_delivery_columns(),
        sa.Column("ack_state", sa.String(length=2), nullable=True),
        sa.Column("ack_motives", sa.JSON(), nullable=False),
        sa.Column("ack_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ack_xml", sa.LargeBinary(), nullable=True),
        sa.Column("id_receptor", sa.String(length=10), nullable=True),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["certificate_id"], ["certificate.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "idemisor"),
    )
    op.create_index("ix_intercambio_sobre_company_id", "intercambio_sobre", ["company_id"])
    op.create_index("ix_intercambio_sobre_state", "intercambio_sobre", ["state"])
    op.create_table(
        "intercambio_aviso",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("receiver_rut", sa.String(length=12), nullable=False),
        sa.Column("file_name", sa.String(length=60), nullable=False),
        sa.Column("xml", sa.LargeBinary(), nullable=False),
        sa.Column("cfe_count", sa.Integer(), nullable=False),
        *_delivery_columns(),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_intercambio_aviso_company_id", "intercambio_aviso", ["company_id"])
    op.create_index("ix_intercambio_aviso_state", "intercambio_aviso", ["state"])
    op.create_table(
        "intercambio_cfe",
        sa.Column("cfe_id", sa.String(length=40), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("receiver_rut", sa.String(length=12), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("envelope_id", sa.Integer(), nullable=True),
        sa.Column("ordinal", sa.Integer(), nullable=True),
        sa.Column("motives", sa.JSON(), nullable=False),
        sa.Column("commercial", sa.Boolean(), nullable=False),
        sa.Column("note_id", sa.String(length=40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("packed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("envelope_answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("notice_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["cfe_id"], ["cfe_emitido.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["envelope_id"], ["intercambio_sobre.id"]),
        sa.ForeignKeyConstraint(["notice_id"], ["intercambio_aviso.id"]),
        sa.PrimaryKeyConstraint("cfe_id"),
    )
    op.create_index("ix_intercambio_cfe_company_state", "intercambio_cfe", ["company_id", "state"])
    op.create_index("ix_intercambio_cfe_envelope_id", "intercambio_cfe", ["envelope_id"])
    op.create_index("ix_intercambio_cfe_note_id", "intercambio_cfe", ["note_id"])


def downgrade() -> None:
    op.drop_table("intercambio_cfe")
    op.drop_table("intercambio_aviso")
    op.drop_table("intercambio_sobre")
