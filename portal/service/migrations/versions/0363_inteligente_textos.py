"""emision_inteligente.error_message_texts and emision_inteligente_evento.detail_texts: why a smart-issuance request
failed and the details of its timeline, as i18n.stored keeps them, said in each reader's language

They were kept as Spanish sentences alone ("La previsualización venció sin confirmarse.", "Emisión directa",
"emision_interrumpida: La emisión se interrumpió..."), so a request's answer (error.mensaje, lineaDeTiempo[].detalle)
and the portal's page of a request said them in Spanish to an English reader. The rows stored before that read as
one of the messages below get their texts; others (a receipt's number, a message not in the catalogue) are said as
they were.

Revision ID: 0363_inteligente_textos
Revises: 0370_inteligente_confirmadas
Create Date: 2026-12-12 10:00:00
"""

import sqlalchemy as sa
from alembic import op

from portal.service.migrations.stored_texts import backfill

revision = "0363_inteligente_textos"
down_revision = "0370_inteligente_confirmadas"
branch_labels = None
depends_on = None

# The messages a request's failure was written with (inteligente/recovery.py, inteligente/workflow.py, and the
# refusals of comprobante/issuing.py and platform/errors.py an issue ends with).
ERRORS = (
    "La emisión se interrumpió antes de terminar y no se emitió ningún comprobante. Previsualizá de nuevo.",
    "No se pudo emitir por un error inesperado; no se emitió nada. Previsualizá de nuevo.",
    "La solicitud ya se dio por terminada mientras se emitía; no se emitió nada. Consultala.",
    "El comprobante no es válido.",
    "La nota no corresponde a los comprobantes que refiere.",
    "Los datos enviados no son válidos.",
)

# The details a request's timeline was written with (inteligente/workflow.py), the ones without values first.
DETAILS = (
    "La previsualización venció sin confirmarse.",
    "Emisión directa",
    "Advertencias aceptadas: ninguna",
    "1 advertencia",
    "Advertencias aceptadas: {codigos}",
    "{cantidad} advertencias",
)

# A failure's detail: its code and its message (one of ERRORS, or words of its own).
FAILED = ("{codigo}: {mensaje}",)


def upgrade() -> None:
    op.add_column("emision_inteligente", sa.Column("error_message_texts", sa.JSON(), nullable=True))
    op.add_column("emision_inteligente_evento", sa.Column("detail_texts", sa.JSON(), nullable=True))
    backfill("emision_inteligente", "error_message", "error_message_texts", ERRORS)
    events = ("emision_inteligente_evento", "detail", "detail_texts")
    backfill(*events, FAILED, only={"state": "failed"}, inner={"mensaje": ERRORS})
    backfill(*events, DETAILS)


def downgrade() -> None:
    with op.batch_alter_table("emision_inteligente_evento") as batch:
        batch.drop_column("detail_texts")
    with op.batch_alter_table("emision_inteligente") as batch:
        batch.drop_column("error_message_texts")
