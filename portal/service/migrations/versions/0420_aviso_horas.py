"""aviso.texts: the hours DGI has been silent written as the notice's reader writes a decimal

The compliance watch's notice "DGI no responde hace {since}" kept its hours as a message "{n} horas" whose value
was already written with a point ("1.5"): a Spanish reader read "1.5 horas". The code now keeps the hours under a
placeholder that writes the decimal in the reader's language when the notice is read ("{n:.1f} horas": 1,5 horas,
1.5 hours). Its value, the number's text ("1.5"), is what it was.

A notice's texts stored before get the template the code keeps now, wherever the message sits in them. Only
values written as a decimal change: "{n} horas" with a whole number is the exchange directory's age
(intercambio/watch.py), which keeps that template. Notices kept as a Spanish sentence alone (before 0330) stay
as they were. Downgrading restores the old template.

Revision ID: 0420_aviso_horas
Revises: 0410_aviso_numeros_y_tipos
Create Date: 2026-12-28 10:00:00
"""

import re
from typing import Any

from portal.service.migrations.stored_texts import rewrite_notice_texts

revision = "0420_aviso_horas"
down_revision = "0410_aviso_numeros_y_tipos"
branch_labels = None
depends_on = None

OLD, NEW = "{n} horas", "{n:.1f} horas"
DECIMAL = re.compile(r"\d+\.\d")


def _step(record: Any, source: str, target: str) -> Any:
    if not isinstance(record, dict) or "plantilla" not in record:
        return record
    values = {k: _step(v, source, target) for k, v in (record.get("valores") or {}).items()}
    template = record["plantilla"]
    if template == source and DECIMAL.fullmatch(str(values.get("n", ""))):
        template = target
    return {**record, "plantilla": template, "valores": values}


def upgrade() -> None:
    rewrite_notice_texts(lambda record: _step(record, OLD, NEW))


def downgrade() -> None:
    rewrite_notice_texts(lambda record: _step(record, NEW, OLD))
