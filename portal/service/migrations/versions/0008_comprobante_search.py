"""comprobante: search indexes, folded receiver name, Idempotency-Key on the receipt, note references

Revision ID: 0008_comprobante_search
Revises: 0003_comprobante
Create Date: 2026-11-23 21:20:00
"""

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0008_comprobante_search"
down_revision = "0003_comprobante"
branch_labels = None
depends_on = None

_INDEXES = {
    "ix_cfe_emitido_listado": [
        "company_id",
        "fch_emis",
        "nro",
        "id",
        "tipo_cfe",
        "tpo_moneda",
        "mnt_total",
        "dgi_status",
    ],
    "ix_cfe_emitido_moneda": ["company_id", "tpo_moneda"],
    "ix_cfe_emitido_nro": ["company_id", "nro"],
    "ix_cfe_emitido_receptor_doc": ["company_id", "receptor_doc"],
    "ix_cfe_emitido_receptor_busqueda": ["company_id", "receptor_busqueda"],
    "ix_cfe_emitido_dgi_status": ["company_id", "dgi_status"],
    "ix_cfe_emitido_request_id": ["company_id", "request_id"],
    "ix_cfe_emitido_idempotency_key": ["company_id", "idempotency_key"],
}
_NOTE_BASE = {102: 101, 103: 101, 112: 111, 113: 111}


def _folded(text):
    # Frozen copy of comprobante.search.folded (a migration must not change when the code does).
    if not text:
        return None
    decomposed = unicodedata.normalize("NFKD", text)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())[:150]


def upgrade() -> None:
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        batch_op.add_column(sa.Column("receptor_busqueda", sa.String(length=150), nullable=True))
        batch_op.add_column(sa.Column("idempotency_key", sa.String(length=255), nullable=True))
        for name, columns in _INDEXES.items():
            batch_op.create_index(name, columns, unique=False)

    op.create_table(
        "cfe_nota_referencia",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("company_id", sa.Integer(), nullable=False),
        sa.Column("note_id", sa.String(length=40), nullable=False),
        sa.Column("original_id", sa.String(length=40), nullable=False),
        sa.Column("is_credit", sa.Boolean(), nullable=False),
        sa.Column("amount", sa.Numeric(precision=17, scale=2), nullable=False),
        sa.ForeignKeyConstraint(["company_id"], ["company.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["note_id"], ["cfe_emitido.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["original_id"], ["cfe_emitido.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("note_id", "original_id"),
    )
    with op.batch_alter_table("cfe_nota_referencia", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_cfe_nota_referencia_company_id"), ["company_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_cfe_nota_referencia_note_id"), ["note_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_cfe_nota_referencia_original_id"), ["original_id"], unique=False)
    _backfill()


def _backfill() -> None:
    """Fold the names of receipts already issued and link the notes already issued to their originals."""
    bind = op.get_bind()
    cfe = sa.table(
        "cfe_emitido",
        sa.column("id"),
        sa.column("company_id"),
        sa.column("tipo_cfe"),
        sa.column("serie"),
        sa.column("nro"),
        sa.column("mnt_total"),
        sa.column("receptor_nombre"),
        sa.column("receptor_busqueda"),
        sa.column("input_json", sa.JSON),
    )
    links = sa.table(
        "cfe_nota_referencia",
        sa.column("company_id"),
        sa.column("note_id"),
        sa.column("original_id"),
        sa.column("is_credit"),
        sa.column("amount"),
    )
    rows = bind.execute(
        sa.select(cfe.c.id, cfe.c.company_id, cfe.c.tipo_cfe, cfe.c.mnt_total, cfe.c.receptor_nombre, cfe.c.input_json)
    ).all()
    for row in rows:
        if row.receptor_nombre:
            bind.execute(cfe.update().where(cfe.c.id == row.id).values(receptor_busqueda=_folded(row.receptor_nombre)))
        base = _NOTE_BASE.get(row.tipo_cfe)
        refs = [r for r in (row.input_json or {}).get("referencias", []) if r.get("nroCFERef")]
        if base is None or not refs:
            continue
        for ref in refs:
            original = bind.scalar(
                sa.select(cfe.c.id).where(
                    cfe.c.company_id == row.company_id,
                    cfe.c.tipo_cfe == ref.get("tpoDocRef"),
                    cfe.c.serie == ref.get("serie"),
                    cfe.c.nro == ref.get("nroCFERef"),
                )
            )
            if original is not None:
                bind.execute(
                    links.insert().values(
                        company_id=row.company_id,
                        note_id=row.id,
                        original_id=original,
                        is_credit=row.tipo_cfe in (102, 112),
                        amount=row.mnt_total if len(refs) == 1 else 0,
                    )
                )


def downgrade() -> None:
    with op.batch_alter_table("cfe_nota_referencia", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_cfe_nota_referencia_original_id"))
        batch_op.drop_index(batch_op.f("ix_cfe_nota_referencia_note_id"))
        batch_op.drop_index(batch_op.f("ix_cfe_nota_referencia_company_id"))
    op.drop_table("cfe_nota_referencia")
    with op.batch_alter_table("cfe_emitido", schema=None) as batch_op:
        for name in reversed(list(_INDEXES)):
            batch_op.drop_index(name)
        batch_op.drop_column("idempotency_key")
        batch_op.drop_column("receptor_busqueda")
