"""dgi_estado.last_error_texts: why DGI was last counted as not answering, as i18n.stored keeps it, said in each
reader's language

The error reached the outage record as a catalogue message but was kept as its Spanish sentence alone ("No se pudo
conectar con el servicio de DGI.", "DGI no respondió en 30 s."), so GET /api/v1/envios/dgi's ultimoError said it
in Spanish to an English reader. An error stored before that reads as one of the messages below gets its texts;
another is said as it was.

Revision ID: 0365_dgi_estado_textos
Revises: 0362_envios_error_textos
Create Date: 2026-12-12 10:40:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import backfill

revision = "0365_dgi_estado_textos"
down_revision = "0362_envios_error_textos"
branch_labels = None
depends_on = None

# The messages DGI's not answering was written with (the transient errors of envios/soap_reception.py and
# outage.py, the unreadable acknowledgements of acks.py), the ones without values first.
MESSAGES = (
    "No se pudo conectar con el servicio de DGI.",
    "DGI respondió sin documento.",
    "DGI respondió algo que no se puede leer.",
    "DGI respondió un ACKCFE_Det sin Nro_ordinal.",
    "DGI respondió un documento inesperado ({nombre}).",
    "DGI no respondió en {segundos} s.",
    "DGI rechazó el pedido: {motivo}",
    "DGI respondió HTTP {estado}.",
    "La respuesta de DGI no se puede leer: {motivo}",
    "DGI respondió un {documento} sin Detalle.",
    "DGI respondió {raiz} en lugar de {esperado}.",
)


def upgrade() -> None:
    op.add_column("dgi_estado", sa.Column("last_error_texts", sa.JSON(), nullable=True))
    backfill("dgi_estado", "last_error", "last_error_texts", MESSAGES)


def downgrade() -> None:
    with op.batch_alter_table("dgi_estado") as batch:
        batch.drop_column("last_error_texts")
