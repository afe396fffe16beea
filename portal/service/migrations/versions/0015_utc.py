"""comprobante: signature times already stored on SQLite move from Montevideo's digits to UTC's

Every moment column is now portal.sqltypes.UtcDateTime (same database type, no schema change): it writes
UTC and reads UTC. SQLite keeps no offset, and the receipts' TmstFirma (cfe_emitido.tmst_firma) used to be
written as Montevideo's wall-clock digits, so those rows are converted once; every other moment was already
written in UTC. PostgreSQL's timestamptz kept the offset: nothing to do there.

Revision ID: 0015_utc
Revises: 0008_comprobante_search
Create Date: 2026-11-24 00:50:00
"""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

revision = "0015_utc"
down_revision = "0008_comprobante_search"
branch_labels = None
depends_on = None

# Frozen here: a migration must not change when the code does (portal/domain/uruguay_time.py).
_MONTEVIDEO = ZoneInfo("America/Montevideo")
_SQLITE_FORMAT = "%Y-%m-%d %H:%M:%S.%f"  # SQLAlchemy's storage format for SQLite DATETIME
_BATCH = 5000


def _shift(source, target) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    # The raw text, not a DateTime: the conversion must see exactly the digits stored.
    cfe = sa.table("cfe_emitido", sa.column("id", sa.String), sa.column("tmst_firma", sa.String))
    rows = bind.execute(sa.select(cfe.c.id, cfe.c.tmst_firma).where(cfe.c.tmst_firma.is_not(None))).all()
    update = cfe.update().where(cfe.c.id == sa.bindparam("row_id")).values(tmst_firma=sa.bindparam("moment"))
    changes = [
        {
            "row_id": row.id,
            "moment": datetime.fromisoformat(row.tmst_firma)
            .replace(tzinfo=source)
            .astimezone(target)
            .strftime(_SQLITE_FORMAT),
        }
        for row in rows
    ]
    for start in range(0, len(changes), _BATCH):
        bind.execute(update, changes[start : start + _BATCH])


def upgrade() -> None:
    _shift(_MONTEVIDEO, UTC)


def downgrade() -> None:
    _shift(UTC, _MONTEVIDEO)
