"""The "Envíos a DGI" page's view model: the four lists the service keeps, and how their states read."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

from portal.client.envios import DailyReport, Envelope, Page, VoidedRange, WaitingReceipt

ROWS_SHOWN = 50

# service state -> (label, badge tone)
ENVELOPE_STATES = {
    "armado": (_l("Enviándose"), "warn"),
    "recibido": (_l("Recibido, esperando respuesta"), "warn"),
    "respondido": (_l("Respondido"), "ok"),
    "rechazado": (_l("Rechazado por DGI"), "bad"),
    "error": (_l("Con error: revisar"), "bad"),
}
REPORT_STATES = {
    "armado": (_l("Enviándose"), "warn"),
    "aceptado": (_l("Recibido por DGI"), "ok"),
    "rechazado": (_l("Rechazado por DGI"), "bad"),
    "error": (_l("Con error: revisar"), "bad"),
}
RETRIABLE = frozenset({"rechazado", "error"})  # what the service's "reintentar" accepts
# What an envelope or a report offers to download (the service's names): label of each link.
DOCUMENTS = {
    "sobre": _l("Sobre XML"),
    "reporte": _l("Reporte XML"),
    "acuse": _l("Acuse XML"),
    "respuesta": _l("Respuesta XML"),
}
# An acknowledgement whose signature did not verify against DGI's trusted certificate: what support reads.
UNVERIFIED_SIGNATURES = {
    "invalida": _l("La firma del acuse no es la del certificado de DGI configurado: no confiar sin revisarlo."),
    "sin_certificado": _l("No hay certificado de DGI configurado: la firma del acuse no se pudo verificar."),
}
VOID_SOURCES = {"operador": _l("Anulado por un administrador"), "rechazo_dgi": _l("Rechazado por DGI")}


def state(table: dict, code: str) -> tuple[str, str]:
    label, tone = table.get(code, (code, "neutral"))
    return str(label), tone


@dataclass(frozen=True)
class Overview:
    waiting: Page[WaitingReceipt]
    envelopes: Page[Envelope]
    reports: Page[DailyReport]
    voided: Page[VoidedRange]

    @property
    def overdue(self) -> int:
        """Receipts and envelopes waiting longer than expected (the service decides what "longer" is)."""
        return self.waiting.overdue + sum(1 for envelope in self.envelopes.items if envelope.overdue)


def load(api) -> Overview:
    return Overview(
        api.list_waiting(limit=ROWS_SHOWN),
        api.list_envelopes(limit=ROWS_SHOWN),
        api.list_daily_reports(limit=ROWS_SHOWN),
        api.list_voided(limit=ROWS_SHOWN),
    )
