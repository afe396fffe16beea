"""dgi_sobre and dgi_estado: why DGI's ws_consultas did not answer, stored before it was said in words, said in
each reader's language and without the network library's text

When an envelope DGI already had (S08) is asked about receipt by receipt, ws_consultas not answering went to the
envelope's error and to DGI's outage record. Before it carried catalogue messages these kept its Spanish f-string
alone ("No se pudo conectar con ws_consultas de DGI: HTTPSConnectionPool(host=..., port=6460): Read timed out.
(read timeout=30)", "DGI rechazó la consulta: ..."); for a while after, the connection failure was kept as the
message "...: {error}" with the library's text as its value, a message the catalogue no longer has. Both were said
in Spanish to an English reader, the first with the hosts, ports and objects' addresses every company reads.

A connection failure stored so becomes what the code now stores, its Spanish sentence and its texts: "ws_consultas
de DGI no respondió a tiempo." when the library's text says it was a timeout (requests' and urllib3's say
"timeout=" then), "No se pudo conectar con ws_consultas de DGI." otherwise. The other messages of ws_consultas get
their texts (their values read back out of the sentence). Words of no message stay as they were. The library's
text is not kept: downgrading leaves the new sentences.

Revision ID: 0400_envios_consultas_textos
Revises: 0365_dgi_estado_textos
Create Date: 2026-12-14 10:00:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import kept

revision = "0400_envios_consultas_textos"
down_revision = "0365_dgi_estado_textos"
branch_labels = None
depends_on = None

TABLES = ("dgi_sobre", "dgi_estado")
# How a connection failure was kept (envios/consultas.py, before), and what the code keeps now instead.
CONNECTION_FAILED = "No se pudo conectar con ws_consultas de DGI: {error}"
TIMED_OUT = "ws_consultas de DGI no respondió a tiempo."
NOT_CONNECTED = "No se pudo conectar con ws_consultas de DGI."
# ws_consultas' other messages (envios/consultas.py), kept as Spanish f-strings alone before.
MESSAGES = (
    "DGI respondió con un DOCTYPE.",
    "DGI respondió sin el estado del comprobante.",
    "La respuesta de DGI supera el tamaño admitido.",
    "DGI rechazó la consulta: {motivo}",
    "DGI respondió un estado desconocido: {estado}",
)


def _now_kept(error: str, texts: dict | None) -> tuple[str, dict] | None:
    """(the sentence, its texts) the row keeps from now on, or None to leave it."""
    failed = kept(error, (CONNECTION_FAILED,))
    if failed is not None or (texts or {}).get("plantilla") == CONNECTION_FAILED:
        library = ((texts or {}).get("valores") or (failed or {}).get("valores") or {}).get("error", "")
        sentence = TIMED_OUT if "timeout=" in library else NOT_CONNECTED
        return sentence, {"mensaje": sentence, "plantilla": sentence, "valores": {}}
    if texts and "plantilla" in texts:
        return None
    found = kept(error, MESSAGES)
    return None if found is None else (error, found)


def upgrade() -> None:
    bind = op.get_bind()
    for name in TABLES:
        rows = sa.table(name, sa.column("id"), sa.column("last_error"), sa.column("last_error_texts", sa.JSON()))
        found = bind.execute(
            sa.select(rows.c.id, rows.c.last_error, rows.c.last_error_texts).where(rows.c.last_error.is_not(None))
        ).all()
        changes = [
            {"row_id": row_id, "error": change[0], "texts": change[1]}
            for row_id, error, texts in found
            if (change := _now_kept(error, texts)) is not None
        ]
        if changes:
            update = rows.update().where(rows.c.id == sa.bindparam("row_id"))
            bind.execute(
                update.values(last_error=sa.bindparam("error"), last_error_texts=sa.bindparam("texts")), changes
            )


def downgrade() -> None:
    pass  # the library's text is gone on purpose; the sentences stored now read as before to the code before
