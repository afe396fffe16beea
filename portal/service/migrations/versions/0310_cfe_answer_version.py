"""cfe_emitido.answer_version: a number every change of what a receipt's answer shows bumps, by trigger

getByIdCfeEmitido answers with a strong ETag and, to an If-None-Match that still holds, with a 304 without
building the JSON (comprobante/answer_tag.py). The tag is read in one query: this number, and the values of the
rows read with the receipt one to one or shared by several receipts (its road to DGI and to an electronic
receiver, the CAE range or contingency book, DGI's envelope and daily report, the electronic receiver's
envelope, notice and directory entry), so no write to those has to touch the receipt's row: the daily report marks 100,000 receipts' roads
to DGI in a few bulk UPDATEs, and a row of cfe_emitido rewritten for each would cost what mirror_states avoids.

What the answer shows in several rows per receipt bumps its number in the same transaction, by trigger (so a
change through any process, the operator's command or hand-written SQL is seen): an UPDATE of the receipt
itself (its DGI state, collection reference, ...), and any INSERT, UPDATE or DELETE of a number voided for it
(dgi_anulacion), of its collection reference's history (cfe_referencia_cobro), of a note issued against it
(cfe_nota_referencia: the original and the note) and of its e-mail sends (correo_envio).

A later migration that rebuilds one of these tables on SQLite (Alembic's batch mode copies the table) drops
its triggers and must create them again (`create_triggers` below).

Revision ID: 0310_cfe_answer_version
Revises: 0240_cfe_importes_libro
Create Date: 2026-11-27 21:50:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0310_cfe_answer_version"
down_revision = "0240_cfe_importes_libro"
branch_labels = None
# The tables of the areas whose rows a receipt's answer shows, as their last migrations leave them; and every
# migration that rebuilds cfe_emitido on SQLite (0020's downgrade would otherwise run under these triggers).
depends_on = ("0161_cfc_anulacion_libreta", "0082_intercambio_envios", "0040_correo_plantilla", "0020_print_snapshot")

# table -> (the operations that bump, the columns naming the receipts whose answer shows the row)
CHILDREN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "dgi_anulacion": (("INSERT", "UPDATE", "DELETE"), ("cfe_id",)),
    "cfe_referencia_cobro": (("INSERT", "UPDATE", "DELETE"), ("cfe_id",)),
    "cfe_nota_referencia": (("INSERT", "UPDATE", "DELETE"), ("original_id", "note_id")),
    "correo_envio": (("INSERT", "UPDATE", "DELETE"), ("cfe_id",)),
}

_POSTGRES_FUNCTIONS = [
    """
    CREATE FUNCTION cfe_answer_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.answer_version := OLD.answer_version + 1;
        RETURN NEW;
    END $$
    """,
    """
    CREATE FUNCTION cfe_answer_version_touch() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        ids text[] := '{}';
        name text;
    BEGIN
        FOREACH name IN ARRAY TG_ARGV LOOP
            IF TG_OP <> 'INSERT' THEN
                ids := ids || (to_jsonb(OLD) ->> name);
            END IF;
            IF TG_OP <> 'DELETE' THEN
                ids := ids || (to_jsonb(NEW) ->> name);
            END IF;
        END LOOP;
        UPDATE cfe_emitido SET answer_version = answer_version + 1 WHERE id = ANY(ids);
        RETURN NULL;
    END $$
    """,
]


def _postgres_triggers() -> list[str]:
    statements = [
        "CREATE TRIGGER cfe_emitido_answer_version BEFORE UPDATE ON cfe_emitido FOR EACH ROW "
        "WHEN (NEW.answer_version = OLD.answer_version) EXECUTE FUNCTION cfe_answer_version_bump()"
    ]
    for table, (operations, columns) in CHILDREN.items():  # fixed lists of our own tables, not input
        arguments = ", ".join(f"'{column}'" for column in columns)
        statements.append(
            f"CREATE TRIGGER {table}_answer_version AFTER {' OR '.join(operations)} ON {table} FOR EACH ROW "
            f"EXECUTE FUNCTION cfe_answer_version_touch({arguments})"
        )
    return statements


def _sqlite_triggers() -> list[str]:
    statements = [
        "CREATE TRIGGER cfe_emitido_answer_version AFTER UPDATE ON cfe_emitido FOR EACH ROW "
        "WHEN NEW.answer_version = OLD.answer_version BEGIN "
        "UPDATE cfe_emitido SET answer_version = OLD.answer_version + 1 WHERE id = NEW.id; END"
    ]
    for table, (operations, columns) in CHILDREN.items():  # fixed lists of our own tables, not input
        for operation in operations:
            rows = {"INSERT": ("NEW",), "UPDATE": ("OLD", "NEW"), "DELETE": ("OLD",)}[operation]
            ids = ", ".join(f"{row}.{column}" for column in columns for row in rows)
            body = f"UPDATE cfe_emitido SET answer_version = answer_version + 1 WHERE id IN ({ids})"  # noqa: S608
            statements.append(
                f"CREATE TRIGGER {table}_answer_version_{operation.lower()} AFTER {operation} ON {table} "
                f"FOR EACH ROW BEGIN {body}; END"
            )
    return statements


def create_triggers() -> None:
    """The triggers on every table above; after a SQLite rebuild of one of them, `drop_triggers` then this."""
    postgres = op.get_bind().dialect.name == "postgresql"
    for statement in _postgres_triggers() if postgres else _sqlite_triggers():
        op.execute(statement)


def drop_triggers() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS cfe_emitido_answer_version ON cfe_emitido")
        for table in CHILDREN:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_answer_version ON {table}")
    else:
        op.execute("DROP TRIGGER IF EXISTS cfe_emitido_answer_version")
        for table, (operations, _columns) in CHILDREN.items():
            for operation in operations:
                op.execute(f"DROP TRIGGER IF EXISTS {table}_answer_version_{operation.lower()}")


def upgrade() -> None:
    # A plain ADD COLUMN (not batch mode), so no table is rebuilt under the triggers created below.
    op.add_column("cfe_emitido", sa.Column("answer_version", sa.BigInteger(), nullable=False, server_default="0"))
    if op.get_bind().dialect.name == "postgresql":
        for statement in _POSTGRES_FUNCTIONS:
            op.execute(statement)
    create_triggers()


def downgrade() -> None:
    drop_triggers()
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION cfe_answer_version_touch()")
        op.execute("DROP FUNCTION cfe_answer_version_bump()")
    with op.batch_alter_table("cfe_emitido") as batch:
        batch.drop_column("answer_version")
