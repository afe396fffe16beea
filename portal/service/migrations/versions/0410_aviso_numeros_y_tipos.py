"""aviso.texts: a notice's counts and CAE type said as its reader writes them

The compliance watch's notices kept their counts already written the Spanish way ("quedan 99.994 números") and
named a CAE by its type's code ("El CAE tipo 181 serie A"): an English reader read "99.994" and "type 181". The
code now keeps the count itself under a placeholder that groups it in the reader's language ("{left:,}": 99.994,
99,994) and the type as its name's message (`i18n.cfe_type`: "e-Remito", "Export e-Factura").

A notice's texts stored before get the messages the code keeps now: each of these templates becomes its new
form, a grouped count's value loses its dots ("99.994" -> "99994") and the type's code becomes its name's
message. Notices kept as a Spanish sentence alone (before 0330) stay as they were. Downgrading restores the
templates, with the counts grouped the Spanish way again.

Revision ID: 0410_aviso_numeros_y_tipos
Revises: 0330_aviso_textos
Create Date: 2026-12-20 10:00:00
"""

from typing import Any

from portal.service.migrations.stored_texts import rewrite_notice_texts

revision = "0410_aviso_numeros_y_tipos"
down_revision = "0330_aviso_textos"
branch_labels = None
depends_on = None

# Each template as the notices kept it -> (what it is now, the values that are grouped counts).
COUNTS = {
    "El {name} venció con {left} números sin usar: hay que anularlos en el reporte diario.": ("left",),
    "quedan {left} números, unos {days} días al ritmo actual": ("left",),
    "queda el {share} de sus números ({left})": ("left",),
    "quedan solo {left} de sus números, menos del 1%": ("left",),
    "El {name} tiene {left} números y vence en {days} días.": ("left",),
    "{count} comprobantes esperan la respuesta de DGI hace más de {minutes} minutos.": ("count",),
    "Hay {receipts} comprobantes en sobres que DGI rechazó y {envelopes} sobres que no se pudieron enviar.": (
        "receipts",
        "envelopes",
    ),
    "Hay {receipts} comprobantes en sobres que DGI rechazó.": ("receipts",),
    "Hay {envelopes} sobres que no se pudieron enviar.": ("envelopes",),
}
OLD_CAE, NEW_CAE = "CAE tipo {tipo} serie {serie}", "CAE de {tipo} serie {serie}"
TYPE_NAME = "{tipo:cfe}"


def _grouped(template: str, names: tuple[str, ...]) -> str:
    for name in names:
        template = template.replace("{" + name + "}", "{" + name + ":,}")
    return template


def _ungrouped(template: str, names: tuple[str, ...]) -> str:
    for name in names:
        template = template.replace("{" + name + ":,}", "{" + name + "}")
    return template


NEW = {old: _grouped(old, names) for old, names in COUNTS.items()}
OLD = {new: (old, COUNTS[old]) for old, new in NEW.items()}


def _upgraded(record: Any) -> Any:
    if not isinstance(record, dict) or "plantilla" not in record:
        return record
    values = {k: _upgraded(v) for k, v in (record.get("valores") or {}).items()}
    template = record["plantilla"]
    if template in COUNTS:
        template = NEW[template]
        values |= {k: str(values[k]).replace(".", "") for k in COUNTS[record["plantilla"]] if k in values}
    elif template == OLD_CAE:
        template = NEW_CAE
        if isinstance(values.get("tipo"), str) and values["tipo"].isdigit():
            values["tipo"] = {"plantilla": TYPE_NAME, "valores": {"tipo": values["tipo"]}}
    return {**record, "plantilla": template, "valores": values}


def _downgraded(record: Any) -> Any:
    if not isinstance(record, dict) or "plantilla" not in record:
        return record
    values = {k: _downgraded(v) for k, v in (record.get("valores") or {}).items()}
    template = record["plantilla"]
    if template in OLD:
        template, names = OLD[template]
        values |= {k: f"{int(values[k]):,}".replace(",", ".") for k in names if str(values.get(k, "")).isdigit()}
    elif template == NEW_CAE:
        template = OLD_CAE
    elif template == TYPE_NAME:
        return str(values.get("tipo", ""))
    return {**record, "plantilla": template, "valores": values}


def upgrade() -> None:
    rewrite_notice_texts(_upgraded)


def downgrade() -> None:
    rewrite_notice_texts(_downgraded)
