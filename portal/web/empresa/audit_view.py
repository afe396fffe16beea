"""The audit trail as people read it: what was done, and each field's old and new value in words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from portal.client.empresa import AuditChange, AuditEvent
from portal.domain.cfe_types import CFE_TYPES
from portal.web.empresa.forms import PAPER_LABELS, REGIME_LABELS
from portal.web.navigation import ROLE_LABELS

ACTIONS = {
    "configuracion": _l("Cambió los datos fiscales"),
    "sucursal_creada": _l("Agregó una sucursal"),
    "sucursal_modificada": _l("Cambió una sucursal"),
    "logo_cargado": _l("Cargó el logo"),
    "logo_quitado": _l("Quitó el logo"),
    "certificado_cargado": _l("Cargó un certificado"),
    "cae_cargado": _l("Cargó un CAE"),
    "cae_dado_de_baja": _l("Dio de baja un CAE"),
    "certificado_dado_de_baja": _l("Dio de baja un certificado"),
    "sucursal_dada_de_baja": _l("Dio de baja una sucursal"),
    "plantilla_correo": _l("Cambió el correo al cliente"),
    "libreta_contingencia": _l("Registró una libreta de contingencia"),
    "libreta_contingencia_anulacion": _l("Anuló números de una libreta de contingencia"),
    "libreta_contingencia_borrada": _l("Borró una libreta de contingencia registrada por error"),
    "intercambio_reintentado": _l("Reintentó entregar un sobre al receptor electrónico"),
    "empresa_creada": _l("Dio de alta la empresa"),
    "miembro_agregado": _l("Agregó a una persona a la empresa"),
    "miembro_quitado": _l("Quitó a una persona de la empresa"),
    "rol_cambiado": _l("Cambió el rol de una persona"),
    "usuario_desactivado": _l("Desactivó a una persona en todas sus empresas"),
    "usuario_reactivado": _l("Volvió a activar a una persona"),
}
FIELDS = {
    "regimen": _l("Régimen"),
    "normaExoneracion": _l("Norma de exoneración"),
    "resolucion": _l("Resolución"),
    "fechaEmisor": _l("Fecha emisor"),
    "ivaAlDia": _l("IVA al día"),
    "urlVerificacion": _l("URL de verificación"),
    "formatoPapel": _l("Formato de impresión"),
    "codigo": _l("Código"),
    "nombre": _l("Nombre"),
    "domicilio": _l("Domicilio"),
    "ciudad": _l("Ciudad"),
    "departamento": _l("Departamento"),
    "predeterminada": _l("Predeterminada"),
    "logo": _l("Logo"),
    "sujeto": _l("Sujeto"),
    "serie": _l("Serie"),
    "hasta": _l("Hasta"),
    "tipoCFE": _l("Tipo de CFE"),
    "desde": _l("Desde"),
    "vencimiento": _l("Vencimiento"),
    "anuladosDesde": _l("Anulados desde"),
    "anuladosHasta": _l("Anulados hasta"),
    "cantidad": _l("Cantidad"),
    "motivo": _l("Motivo"),
    "activo": _l("Activo"),
    "activa": _l("Activa"),
    "asunto": _l("Asunto"),
    "cuerpo": _l("Texto"),
    "caeId": _l("CAE"),
    "fechaAutorizacion": _l("Fecha de autorización"),
    "sobre": _l("Sobre"),
    "receptor": _l("Receptor"),
    "error": _l("Error anterior"),
    "rut": _l("RUT"),
    "razonSocial": _l("Razón social"),
    "email": _l("Correo"),
    "rol": _l("Rol"),
    "usuarioNuevo": _l("Usuario nuevo"),
}
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T|$)")
_VALUES = {**REGIME_LABELS, **PAPER_LABELS, **ROLE_LABELS}  # a role in its words: "soporte" -> "support"


@dataclass(frozen=True)
class Change:
    label: str
    before: str | None  # None: the event records a value, not a change
    after: str


@dataclass(frozen=True)
class AuditRow:
    at: datetime
    actor: str
    action: str
    target: str | None
    changes: tuple[Change, ...]


def _shown(value) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("Sí") if value else _("No")
    if isinstance(value, str) and _ISO_DATE.match(value):
        return f"{value[8:10]}/{value[5:7]}/{value[:4]}"  # an ISO date (or moment's day), as people here write it
    return str(_VALUES.get(value, value)) if isinstance(value, str) else str(value)


def _change(change: AuditChange) -> Change:
    label = str(FIELDS.get(change.field, change.field))
    if change.field == "tipoCFE" and isinstance(change.after, int) and change.after in CFE_TYPES:
        return Change(label, None, CFE_TYPES[change.after].name_es)
    if change.changed:
        return Change(label, _shown(change.before), _shown(change.after))
    return Change(label, None, _shown(change.after))


def audit_rows(events: tuple[AuditEvent, ...]) -> list[AuditRow]:
    return [
        AuditRow(
            at=e.at,
            actor=e.actor,
            action=str(ACTIONS.get(e.action, e.action)),
            target=e.target,
            changes=tuple(_change(change) for change in e.changes),
        )
        for e in events
    ]
