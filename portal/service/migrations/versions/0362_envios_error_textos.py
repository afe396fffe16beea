"""dgi_sobre.last_error_texts and dgi_reporte_diario.last_error_texts: why an envelope or a daily report to DGI
waits or failed (and the S08 notes), as i18n.stored keeps them, said in each reader's language

They were kept as Spanish sentences alone ("DGI no respondió en 30 s.", "DGI ya tiene un sobre con este número
(S08): ..."), so the Envíos page and its API said them in Spanish to an English reader. The errors stored before
that read as one of the messages below get their texts; others are said as they were.

Revision ID: 0362_envios_error_textos
Revises: 0361_anulacion_motivo_textos
Create Date: 2026-11-28 06:40:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import backfill

revision = "0362_envios_error_textos"
down_revision = "0361_anulacion_motivo_textos"
branch_labels = None
depends_on = None

# The messages an envelope's or report's error was written with (envios/sending.py, reports.py, acks.py,
# soap_reception.py, outage.py, simulator.py, adapter.py), the ones without values first.
MESSAGES = (
    "DGI ya tiene un sobre con este número (S08): se consulta a DGI el estado de cada comprobante.",
    "DGI recibió el sobre sin darle IDReceptor y Token.",
    "DGI aún no terminó de procesar el sobre.",
    "DGI aún no terminó de procesar los comprobantes del sobre.",
    "Sus comprobantes se reenviaron en un sobre nuevo.",
    "El número de DGI o el token del sobre no son válidos.",
    "El certificado de la empresa no se puede usar para firmar.",
    "DGI respondió sin documento.",
    "El documento a enviar no está en UTF-8.",
    "DGI respondió algo que no se puede leer.",
    "No se pudo conectar con el servicio de DGI.",
    "DGI no reconoce el token del sobre.",
    "Esta recepción de DGI no consulta el estado de un CFE.",
    "DGI respondió un ACKCFE_Det sin Nro_ordinal.",
    "DGI ya tenía un sobre con este número (S08): estado de cada comprobante consultado a DGI; "
    "{respondidos} con respuesta de DGI, {nuevos} que DGI no recibió van en un sobre nuevo.",
    "DGI no aceptó el pedido (código {codigo}): {detalle}.",
    "DGI respondió un documento inesperado ({nombre}).",
    "DGI no respondió en {segundos} s.",
    "DGI rechazó el pedido: {motivo}",
    "DGI respondió HTTP {estado}.",
    "La respuesta de DGI no se puede leer: {motivo}",
    "DGI respondió un {documento} sin Detalle.",
    "DGI respondió {raiz} en lugar de {esperado}.",
    "Error inesperado: {error}",
)


def upgrade() -> None:
    for table in ("dgi_sobre", "dgi_reporte_diario"):
        op.add_column(table, sa.Column("last_error_texts", sa.JSON(), nullable=True))
        backfill(table, "last_error", "last_error_texts", MESSAGES)


def downgrade() -> None:
    for table in ("dgi_reporte_diario", "dgi_sobre"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("last_error_texts")
