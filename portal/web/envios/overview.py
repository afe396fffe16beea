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
VOID_SOURCES = {"operador": _l("Anulado por un administrador"), "rechazo_dgi": _l("Rechazado por DGI")}


# DGI's acknowledgement codes (ACKSobre, ACKRepDiario, ACKCFE), said in words; the code stays beside them for
# support (../shared/domain/CFE-URUGUAY.md).
ACK_WORDS = {
    "AS": _l("sobre recibido"),
    "BS": _l("sobre rechazado"),
    "BA": _l("archivo rechazado"),
    "AR": _l("reporte recibido"),
    "BR": _l("reporte rechazado"),
    "AE": _l("aceptado"),
    "BE": _l("rechazado"),
    "CE": _l("observado"),
    "FE": _l("reliquidado"),
}


def ack_words(code: str) -> str:
    """DGI's acknowledgement code in words ("sobre recibido"), the code itself if unknown."""
    return str(ACK_WORDS.get(code, code))


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
