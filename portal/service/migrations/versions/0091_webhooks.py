"""webhooks: endpoints, deliveries and attempts

Revision ID: 0091_webhooks
Revises: 0001_foundation
Create Date: 2026-11-27 14:05:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0091_webhooks"
down_revision = "0001_foundation"
branch_labels = ("webhooks",)
depends_on = "0090_eventos"


def upgrade() -> None:
    op.create_table(
        "webhook_destino",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("description", sa.String(length=200), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("secret_encrypted", sa.LargeBinary(), nullable=False),
        sa.Column("previous_secret_encrypted", sa.LargeBinary(), nullable=True),
        sa.Column("previous_secret_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=300), nullable=True),
        sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_success_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_by", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_webhook_destino_company_id", "webhook_destino", ["company_id"], unique=False)
    op.create_table(
        "webhook_entrega",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("endpoint_id", sa.String(length=40), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.String(length=40), nullable=False),
        sa.Column("event_type", sa.String(length=40), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_destino.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["event_id"], ["evento.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_webhook_entrega_pendientes", "webhook_entrega", ["state", "next_attempt_at"], unique=False)
    op.create_index("ix_webhook_entrega_destino", "webhook_entrega", ["endpoint_id", "id"], unique=False)
    op.create_table(
        "webhook_intento",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("delivery_id", sa.Integer(), nullable=False),
        sa.Column("endpoint_id", sa.String(length=40), nullable=False),
        sa.Column("event_id", sa.String(length=40), nullable=False),
        sa.Column("event_type", sa.String(length=40), nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("error", sa.String(length=300), nullable=True),
        sa.Column("response_head", sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(["delivery_id"], ["webhook_entrega.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["endpoint_id"], ["webhook_destino.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_webhook_intento_delivery_id", "webhook_intento", ["delivery_id"], unique=False)
    op.create_index("ix_webhook_intento_destino", "webhook_intento", ["endpoint_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_webhook_intento_destino", table_name="webhook_intento")
    op.drop_index("ix_webhook_intento_delivery_id", table_name="webhook_intento")
    op.drop_table("webhook_intento")
    op.drop_index("ix_webhook_entrega_destino", table_name="webhook_entrega")
    op.drop_index("ix_webhook_entrega_pendientes", table_name="webhook_entrega")
    op.drop_table("webhook_entrega")
    op.drop_index("ix_webhook_destino_company_id", table_name="webhook_destino")
    op.drop_table("webhook_destino")
