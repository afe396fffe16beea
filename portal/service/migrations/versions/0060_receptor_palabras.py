"""comprobante: the words of receivers' names, so the receipt list finds a word anywhere in the name

"Arapey" must find "Viajes Arapey S.R.L." without `LIKE '%arapey%'` reading every receipt: each folded name
(cfe_emitido.receptor_busqueda) is split into words once, and the list matches a typed word against the start
of any word through this table's primary key, then the receipts through (company_id, receptor_busqueda).
Filled here from the receipts already issued.

Revision ID: 0060_receptor_palabras
Revises: 0017_search_receptor
Create Date: 2026-11-27 14:30:00
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0060_receptor_palabras"
down_revision = "0017_search_receptor"
branch_labels = None
depends_on = None

# search.name_words as it was when this ran: words of letters and digits, dots inside kept ("s.r.l.").
_WORD = re.compile(r"\w[\w.]*")


def upgrade() -> None:
    words = op.create_table(
        "cfe_receptor_palabra",
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("palabra", sa.String(length=150), nullable=False),
        sa.Column("nombre", sa.String(length=150), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("company_id", "palabra", "nombre"),
    )
    names = op.get_bind().execute(
        sa.text("SELECT DISTINCT company_id, receptor_busqueda FROM cfe_emitido WHERE receptor_busqueda IS NOT NULL")
    )
    rows = [
        {"company_id": company_id, "palabra": word[:150], "nombre": name}
        for company_id, name in names
        for word in dict.fromkeys(_WORD.findall(name))
    ]
    for start in range(0, len(rows), 5000):
        op.bulk_insert(words, rows[start : start + 5000])


def downgrade() -> None:
    op.drop_table("cfe_receptor_palabra")
