"""The "Envíos a DGI" page's view model: the four lists the service keeps, and how their states read."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

from portal.client.envios import DailyReport, Envelope, VoidedRange, WaitingReceipt
from portal.domain.cfe_types import CFC_TYPES
from portal.web import paging
from portal.web.paging import PagedView

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
    """The four lists, each a page of its own (its cursor in the URL under its own name)."""

    waiting: PagedView[WaitingReceipt]
    envelopes: PagedView[Envelope]
    reports: PagedView[DailyReport]
    voided: PagedView[VoidedRange]

    @property
    def overdue(self) -> int:
        """Receipts and envelopes waiting longer than expected (the service decides what "longer" is)."""
        waiting = self.waiting.page.overdue if self.waiting.page else 0
        return (waiting or 0) + sum(1 for envelope in self.envelopes.items if envelope.overdue)


def load(api) -> Overview:
    def paged(param: str, fetch):
        return paging.load("envios.index", lambda cursor: fetch(cursor=cursor, limit=ROWS_SHOWN), param=param)

    return Overview(
        paged("pendientes", api.list_waiting),
        paged("sobres", api.list_envelopes),
        paged("reportes", api.list_daily_reports),
        paged("anulaciones", api.list_voided),
    )


def in_daily_report(voided: VoidedRange) -> bool:
    """Whether DGI's daily report carries these voided numbers: a CAE's do, a paper contingency book's never
    (ReporteDiarioCFE.xsd: "No corresponde informar los CFC anulados")."""
    return voided.tipo_cfe not in CFC_TYPES
