"""company.cache_generation: a number every change of what issuing keeps per process bumps, by trigger

Each service process keeps a company's issuer (the company, its settings and branch), printed settings and
signing certificate (portal/service/platform/readcache.py). A change through another process, the operator's
command or hand-written SQL must reach the next receipt of every process: triggers bump the company's
`cache_generation` in the same transaction as any INSERT, UPDATE or DELETE of `company`, `empresa_config`,
`empresa_sucursal` or `certificate`, and a process uses what it keeps only while the number it read is the
company's number now (one primary-key read per issue).

A later migration that rebuilds one of these tables on SQLite (Alembic's batch mode copies the table) drops
its triggers and must create them again (`create_triggers` below).

Revision ID: 0290_cache_generation
Revises: 0041_empresa_sucursal_baja
Create Date: 2026-11-27 20:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0290_cache_generation"
down_revision = "0041_empresa_sucursal_baja"
branch_labels = None
# certificate's own migrations first: a batch rebuild of the table after this one would drop its triggers.
depends_on = ("0042_certificado_baja",)

CHILDREN = ("empresa_config", "empresa_sucursal", "certificate")

_POSTGRES = [
    """
    CREATE FUNCTION company_cache_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.cache_generation := OLD.cache_generation + 1;
        RETURN NEW;
    END $$
    """,
    """
    CREATE TRIGGER company_cache_generation BEFORE UPDATE ON company FOR EACH ROW
    WHEN (NEW.cache_generation = OLD.cache_generation) EXECUTE FUNCTION company_cache_generation_bump()
    """,
    """
    CREATE FUNCTION company_cache_generation_touch() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE company SET cache_generation = cache_generation + 1 WHERE id = OLD.company_id;
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.company_id IS DISTINCT FROM OLD.company_id) THEN
            UPDATE company SET cache_generation = cache_generation + 1 WHERE id = NEW.company_id;
        END IF;
        RETURN NULL;
    END $$
    """,
    *(
        f"CREATE TRIGGER {table}_cache_generation AFTER INSERT OR UPDATE OR DELETE ON {table} FOR EACH ROW "
        "EXECUTE FUNCTION company_cache_generation_touch()"
        for table in CHILDREN
    ),
]


def _sqlite() -> list[str]:
    statements = [
        "CREATE TRIGGER company_cache_generation AFTER UPDATE ON company FOR EACH ROW "
        "WHEN NEW.cache_generation = OLD.cache_generation BEGIN "
        "UPDATE company SET cache_generation = OLD.cache_generation + 1 WHERE id = NEW.id; END"
    ]
    bump = "UPDATE company SET cache_generation = cache_generation + 1 WHERE id"
    for table in CHILDREN:  # a fixed list of our own tables, not input
        statements += [
            f"CREATE TRIGGER {table}_cache_generation_insert AFTER INSERT ON {table} FOR EACH ROW BEGIN "  # noqa: S608
            f"{bump} = NEW.company_id; END",
            f"CREATE TRIGGER {table}_cache_generation_update AFTER UPDATE ON {table} FOR EACH ROW BEGIN "  # noqa: S608
            f"{bump} IN (OLD.company_id, NEW.company_id); END",
            f"CREATE TRIGGER {table}_cache_generation_delete AFTER DELETE ON {table} FOR EACH ROW BEGIN "  # noqa: S608
            f"{bump} = OLD.company_id; END",
        ]
    return statements


def create_triggers() -> None:
    for statement in _POSTGRES if op.get_bind().dialect.name == "postgresql" else _sqlite():
        op.execute(statement)


def upgrade() -> None:
    # A plain ADD COLUMN (not batch mode): on SQLite a rebuilt company table would lose nothing here, but the
    # triggers below must be created on the final table.
    op.add_column("company", sa.Column("cache_generation", sa.BigInteger(), nullable=False, server_default="0"))
    create_triggers()


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in CHILDREN:
            op.execute(f"DROP TRIGGER {table}_cache_generation ON {table}")
        op.execute("DROP TRIGGER company_cache_generation ON company")
        op.execute("DROP FUNCTION company_cache_generation_touch()")
        op.execute("DROP FUNCTION company_cache_generation_bump()")
    else:
        op.execute("DROP TRIGGER company_cache_generation")
        for table in CHILDREN:
            for operation in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER {table}_cache_generation_{operation}")
    with op.batch_alter_table("company") as batch:
        batch.drop_column("cache_generation")
