"""identity: the provider's server-side sessions and the revoked access tokens

Revision ID: 0009_identity
Revises: 0001_foundation
Create Date: 2026-11-23 21:30:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_identity"
down_revision = "0001_foundation"
branch_labels = ("identity",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idp_session",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["user_account.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id_hash"),
    )
    with op.batch_alter_table("idp_session", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_idp_session_user_id"), ["user_id"], unique=False)

    op.create_table(
        "revoked_access_token",
        sa.Column("jti", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("jti"),
    )
    with op.batch_alter_table("revoked_access_token", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_revoked_access_token_expires_at"), ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("revoked_access_token", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_revoked_access_token_expires_at"))
    op.drop_table("revoked_access_token")
    with op.batch_alter_table("idp_session", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idp_session_user_id"))
    op.drop_table("idp_session")
