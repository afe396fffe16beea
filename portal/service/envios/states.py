"""The DGI states a receipt goes through, and DGI's motive codes with DGI's own texts (the Glosa
enumerations of DGITypes.xsd 1.44.2, in the order CFE-URUGUAY.md §7 lists the codes)."""

from __future__ import annotations

from collections.abc import Callable

from portal.domain.dgi_states import FINAL_DGI_STATES
from portal.service.platform.i18n import Text, _, say

# state -> what it means (catalogue messages: the API says them in the reader's language)
STATES = {
    "pendiente": _("Pendiente de envío a DGI: se empaquetará en un sobre en segundos."),
    "en_sobre": _("En un sobre (EnvioCFE) armado; esperando el acuse de recibo de DGI."),
    "recibido": _("DGI recibió el sobre (AS); esperando su respuesta sobre el comprobante."),
    "aceptado": _("DGI aceptó el comprobante (AE)."),
    "rechazado": _("DGI rechazó el comprobante (BE): no tiene validez fiscal y su número quedó anulado."),
    "observado": _("DGI observó el comprobante (CE)."),
    "sobre_rechazado": _("DGI rechazó el sobre que lo contenía (BS/BA); requiere revisión de soporte."),
    "pendiente_reporte": _("e-Ticket bajo el tope de UI: DGI lo recibe en el reporte diario del día."),
    "en_reporte": _("Incluido en el reporte diario enviado a DGI."),
}
FINAL_STATES = FINAL_DGI_STATES
ROUTE_ENVELOPE, ROUTE_REPORT = "sobre", "reporte"

# DGI's texts of its codes (S, E, R and C) are catalogue messages: each reads as DGI's Spanish wherever it goes
# (the stored motives, the signed answers) and `in_words` says it in the reader's language, by its code.
ENVELOPE_MOTIVES = {
    "S01": _("Formato del archivo no es el indicado"),
    "S02": _("No coincide RUC de Sobre, Certificado, envío o CFE"),
    "S03": _("Certificado electrónico no es válido"),
    "S04": _("No cumple validaciones según Formato de sobre"),
    "S05": _("No coinciden cantidad CFE de carátula y contenido"),
    "S06": _("No coinciden certificado de sobre y comprobantes"),
    "S07": _("Sobre enviado supera el tamaño máximo admitido"),
    "S08": _("Sobre enviado ya existe en los registros de DGI"),
}
CFE_MOTIVES = {
    "E01": _("Tipo y Nº de CFE ya fue reportado como anulado"),
    "E02": _("Tipo y Nº de CFE ya existe en los registros"),
    "E03": _("Tipo y Nº de CFE no se corresponden con el CAE"),
    "E04": _("Firma electrónica no es válida"),
    "E05": _("No cumple validaciones de Formato comprobantes"),
    "E06": _("Importe informado en el CFE excede montos habituales"),
    "E07": _("Fecha Firma de CFE no se corresponde con fecha CAE"),
    "E08": _("No coincide RUC de CFE y Complemento Fiscal"),
    "E09": _("RUC emisor y/o tipo de CFE no se corresponden con el CAE"),
    "E10": _("Tipo de cambio no válido"),
    "E11": _("Tipo de CAE especial del CFE no se corresponde con el CAE"),
    "E12": _("Información en Zona de Referencia no existe en los registros"),
    "E13": _("Tipo de CAE  del CFE  no se corresponde con el CAE utilizado"),
    "E14": _("Irregularidades detectadas"),
    "E15": _("Deudor contumaz sin informar situación"),
}
REPORT_MOTIVES = {
    "R01": _("Formato del archivo no es el indicado"),
    "R02": _("No coincide RUC en Reporte, Certificado o envío"),
    "R03": _("Firma o Certificado electrónicos no son válidos"),
    "R04": _("No cumple validaciones según Formato de Reporte"),
    "R05": _("La secuencia indicada en el reporte no es correcta"),
    "R06": _("Fecha recepción no puede ser menor a fecha resumen"),
}
# Observations of contingency receipts (CFC): C03-C15, used by envios/cfc.py with the rest of the CFC rules.
CFC_MOTIVES = {
    "C03": _("Constancia no autorizada según registros"),
    "C04": _("Firma electrónica no es válida"),
    "C05": _("No cumple validaciones de Formato comprobantes"),
    "C06": _("Importe informado en el CFE excede montos habituales"),
    "C08": _("No coincide RUC de CFE y Complemento Fiscal"),
    "C09": _("Tipo de CFC recibido no figura en la base de CFE certificados"),
    "C10": _("Tipo de cambio no válido"),
    "C11": _("Tipo de constancia especial del CFC no se corresponde con la constancia"),
    "C12": _("Información en Zona de Referencia no existe en nuestros registros"),
    "C13": _("Tipo de constancia del CFC no se corresponde con la constancia"),
    "C14": _("Irregularidades detectadas"),
    "C15": _("Deudor contumaz sin informar situación"),
}
ALL_MOTIVES = {**ENVELOPE_MOTIVES, **CFE_MOTIVES, **REPORT_MOTIVES, **CFC_MOTIVES}


def motive_words(code: str) -> Text | None:
    """DGI's text of one of its codes (S01-S08, E01-E15, R01-R06, C03-C15) as a catalogue message, None for any
    other code."""
    return ALL_MOTIVES.get(code)


def in_words(entries: list[dict] | None, words: Callable[[str], Text | None] = motive_words) -> list[dict]:
    """Stored motives as the API answers them: each with `texto`, its code's text in the request's language (its
    `glosa` stays as DGI or the receiver wrote it, Spanish); a code `words` does not know keeps the glosa."""
    return [
        {**m, "texto": say(known) if (known := words(m.get("codigo") or "")) else m.get("glosa") or ""}
        for m in entries or []
    ]


def motive(code: str, detail: str | None = None) -> dict:
    """A motive as stored and returned by the API: DGI's code, DGI's text, and our detail when there is one."""
    entry = {"codigo": code, "glosa": str(ALL_MOTIVES.get(code, ""))}
    if detail:
        entry["detalle"] = detail[:500]
    return entry
