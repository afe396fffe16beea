"""recibidos: received envelopes, their CFEs and our answers

Revision ID: 0070_recibidos
Revises: 0001_foundation
Create Date: 2026-11-27 14:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0070_recibidos"
down_revision = "0001_foundation"
branch_labels = ("recibidos",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "recibidos_sobre",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=10), nullable=False),
        sa.Column("reply_to", sa.String(length=254), nullable=True),
        sa.Column("source_name", sa.String(length=200), nullable=True),
        sa.Column("rut_emisor", sa.String(length=12), nullable=True),
        sa.Column("idemisor", sa.BigInteger(), nullable=True),
        sa.Column("cant_cfe", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("xml", sa.LargeBinary(), nullable=True),
        sa.Column("estado", sa.String(length=2), nullable=False),
        sa.Column("motives", sa.JSON(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=40), nullable=True),
        sa.Column("accepted", sa.Integer(), nullable=False),
        sa.Column("rejected", sa.Integer(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "dedupe_key", name="uq_recibidos_sobre_dedupe"),
    )
    with op.batch_alter_table("recibidos_sobre", schema=None) as batch_op:
        batch_op.create_index("ix_recibidos_sobre_sha", ["company_id", "sha256"], unique=False)

    op.create_table(
        "recibidos_cfe",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("sobre_id", sa.Integer(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("rut_emisor", sa.String(length=12), nullable=True),
        sa.Column("nombre_emisor", sa.String(length=150), nullable=True),
        sa.Column("tipo_cfe", sa.Integer(), nullable=True),
        sa.Column("serie", sa.String(length=2), nullable=True),
        sa.Column("nro", sa.Integer(), nullable=True),
        sa.Column("fch_emis", sa.Date(), nullable=True),
        sa.Column("tmst_firma", sa.String(length=40), nullable=True),
        sa.Column("moneda", sa.String(length=3), nullable=True),
        sa.Column("mnt_total", sa.Numeric(precision=17, scale=2), nullable=True),
        sa.Column("mnt_pagar", sa.Numeric(precision=17, scale=2), nullable=True),
        sa.Column("xml", sa.LargeBinary(), nullable=False),
        sa.Column("adenda", sa.Text(), nullable=True),
        sa.Column("estado", sa.String(length=2), nullable=False),
        sa.Column("motives", sa.JSON(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=40), nullable=True),
        sa.Column("decision", sa.String(length=10), nullable=True),
        sa.Column("decision_motive", sa.String(length=3), nullable=True),
        sa.Column("decision_text", sa.String(length=500), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_by", sa.String(length=254), nullable=True),
        sa.Column("anulado_dgi", sa.Boolean(), nullable=False),
        sa.Column("anulado_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("contabilizado", sa.Boolean(), nullable=False),
        sa.Column("contabilizado_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["sobre_id"], ["recibidos_sobre.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("company_id", "dedupe_key", name="uq_recibidos_cfe_dedupe"),
    )
    with op.batch_alter_table("recibidos_cfe", schema=None) as batch_op:
        batch_op.create_index("ix_recibidos_cfe_emisor", ["company_id", "rut_emisor"], unique=False)
        batch_op.create_index("ix_recibidos_cfe_lista", ["company_id", "received_at", "id"], unique=False)

    op.create_table(
        "recibidos_respuesta",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("sobre_id", sa.Integer(), nullable=False),
        sa.Column("cfe_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("channel", sa.String(length=10), nullable=False),
        sa.Column("document", sa.LargeBinary(), nullable=False),
        sa.Column("filename", sa.String(length=80), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_by", sa.String(length=10), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["cfe_id"], ["recibidos_cfe.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["sobre_id"], ["recibidos_sobre.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("recibidos_respuesta", schema=None) as batch_op:
        batch_op.create_index("ix_recibidos_respuesta_pendientes", ["state", "next_attempt_at"], unique=False)
        batch_op.create_index("ix_recibidos_respuesta_sobre", ["sobre_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("recibidos_respuesta", schema=None) as batch_op:
        batch_op.drop_index("ix_recibidos_respuesta_sobre")
        batch_op.drop_index("ix_recibidos_respuesta_pendientes")

    op.drop_table("recibidos_respuesta")
    with op.batch_alter_table("recibidos_cfe", schema=None) as batch_op:
        batch_op.drop_index("ix_recibidos_cfe_lista")
        batch_op.drop_index("ix_recibidos_cfe_emisor")

    op.drop_table("recibidos_cfe")
    with op.batch_alter_table("recibidos_sobre", schema=None) as batch_op:
        batch_op.drop_index("ix_recibidos_sobre_sha")

    op.drop_table("recibidos_sobre")
