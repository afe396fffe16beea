"""aviso.texts: DGI's silence in whole hours reads "3 horas" (not "3,0 horas"), and what waits is a grouped count

The compliance watch's notice "DGI no responde hace {since}" wrote every silence of an hour or more with one
decimal, "3,0 horas" and "1,0 horas" included; a whole number of hours is now "3 horas" ("{n:,} horas") and one
hour is "una hora". The count of receipts that wait in the same notice is now grouped as its reader writes it
("1.234 comprobantes esperan", "1,234 receipts wait"), as every other count in a notice is.

A notice's texts stored before get the templates the code writes now. Hours with a decimal other than 0 keep
"{n:.1f} horas". Notices kept as a Spanish sentence alone (before 0330) stay as they were. Downgrading restores
the old templates.

Revision ID: 0440_aviso_horas_enteras
Revises: 0420_aviso_horas
Create Date: 2026-11-28 16:00:00
"""

import re
from typing import Any

from portal.service.migrations.stored_texts import rewrite_notice_texts

revision = "0440_aviso_horas_enteras"
down_revision = "0420_aviso_horas"
branch_labels = None
depends_on = None

DECIMAL_HOURS, WHOLE_HOURS, ONE_HOUR = "{n:.1f} horas", "{n:,} horas", "una hora"
WHOLE = re.compile(r"(\d+)\.0")
_WAITING = (
    "DGI no responde hace {since}; {waiting} comprobantes esperan para salir. Se sigue emitiendo: todo sale solo en "
    "cuanto DGI responda."
)
WAITING = _WAITING, _WAITING.replace("{waiting}", "{waiting:,}")


def _upgraded(record: dict) -> dict:
    template, values = record["plantilla"], record.get("valores") or {}
    if template == DECIMAL_HOURS and (whole := WHOLE.fullmatch(str(values.get("n", "")))):
        if int(whole[1]) == 1:
            return {**record, "plantilla": ONE_HOUR, "valores": {}}
        return {**record, "plantilla": WHOLE_HOURS, "valores": {"n": int(whole[1])}}
    if template == WAITING[0]:
        return {**record, "plantilla": WAITING[1]}
    return record


def _downgraded(record: dict) -> dict:
    template, values = record["plantilla"], record.get("valores") or {}
    if template == ONE_HOUR:
        return {**record, "plantilla": DECIMAL_HOURS, "valores": {"n": "1.0"}}
    if template == WHOLE_HOURS and "n" in values:
        return {**record, "plantilla": DECIMAL_HOURS, "valores": {"n": f"{values['n']}.0"}}
    if template == WAITING[1]:
        return {**record, "plantilla": WAITING[0]}
    return record


def _step(record: Any, change) -> Any:
    if not isinstance(record, dict) or "plantilla" not in record:
        return record
    values = {k: _step(v, change) for k, v in (record.get("valores") or {}).items()}
    return change({**record, "valores": values})


def upgrade() -> None:
    rewrite_notice_texts(lambda record: _step(record, _upgraded))


def downgrade() -> None:
    rewrite_notice_texts(lambda record: _step(record, _downgraded))
