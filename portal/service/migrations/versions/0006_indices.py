"""indices: the Unidad Indexada by year (DGI Tabla E threshold), seeded with the values at hand

Revision ID: 0006_indices
Revises: 0001_foundation
Create Date: 2026-11-23 21:30:00

Each row is the UI of 31 December of the year before `year`. The values below are recalled from INE's
series and cross-checked only against the INE quotes found while writing this (22/12/2025: 6,4208, El País;
01/08/2022: 5,4650; April 2022 INE bulletin): they are marked unverified. Operators correct or confirm them
with `python -m portal.service ui-value set YEAR VALUE` (docs/DGI-RULES.md, "UI values").
"""

from datetime import UTC, datetime
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

revision = "0006_indices"
down_revision = "0001_foundation"
branch_labels = ("indices",)
depends_on = None

_SOURCE = "INE, UI al 31/12/{previous} (valor recordado de la serie del INE; sin verificar)"
_SEED = (
    (2022, Decimal("5.1608")),
    (2023, Decimal("5.5597")),
    (2024, Decimal("5.8320")),
    (2025, Decimal("6.1642")),
    (2026, Decimal("6.4230")),
)
_ESTIMATED_2026 = "Estimado desde la cotización INE del 22/12/2025 (6,4208, publicada por El País); sin verificar"


def upgrade() -> None:
    table = op.create_table(
        "ui_value",
        sa.Column("year", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("value", sa.Numeric(precision=10, scale=4), nullable=False),
        sa.Column("source", sa.String(length=300), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("year"),
    )
    seeded_at = datetime(2026, 11, 23, tzinfo=UTC)
    op.bulk_insert(
        table,
        [
            {
                "year": year,
                "value": value,
                "verified": False,
                "updated_at": seeded_at,
                "source": _ESTIMATED_2026 if year == 2026 else _SOURCE.format(previous=year - 1),
            }
            for year, value in _SEED
        ],
    )


def downgrade() -> None:
    op.drop_table("ui_value")
