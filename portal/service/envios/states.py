"""The DGI states a receipt goes through, and DGI's motive codes with DGI's own texts (the Glosa
enumerations of DGITypes.xsd 1.44.2, in the order CFE-URUGUAY.md §7 lists the codes)."""

from __future__ import annotations

from portal.domain.dgi_states import FINAL_DGI_STATES
from portal.service.platform.i18n import _

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

ENVELOPE_MOTIVES = {
    "S01": "Formato del archivo no es el indicado",
    "S02": "No coincide RUC de Sobre, Certificado, envío o CFE",
    "S03": "Certificado electrónico no es válido",
    "S04": "No cumple validaciones según Formato de sobre",
    "S05": "No coinciden cantidad CFE de carátula y contenido",
    "S06": "No coinciden certificado de sobre y comprobantes",
    "S07": "Sobre enviado supera el tamaño máximo admitido",
    "S08": "Sobre enviado ya existe en los registros de DGI",
}
CFE_MOTIVES = {
    "E01": "Tipo y Nº de CFE ya fue reportado como anulado",
    "E02": "Tipo y Nº de CFE ya existe en los registros",
    "E03": "Tipo y Nº de CFE no se corresponden con el CAE",
    "E04": "Firma electrónica no es válida",
    "E05": "No cumple validaciones de Formato comprobantes",
    "E06": "Importe informado en el CFE excede montos habituales",
    "E07": "Fecha Firma de CFE no se corresponde con fecha CAE",
    "E08": "No coincide RUC de CFE y Complemento Fiscal",
    "E09": "RUC emisor y/o tipo de CFE no se corresponden con el CAE",
    "E10": "Tipo de cambio no válido",
    "E11": "Tipo de CAE especial del CFE no se corresponde con el CAE",
    "E12": "Información en Zona de Referencia no existe en los registros",
    "E13": "Tipo de CAE  del CFE  no se corresponde con el CAE utilizado",
    "E14": "Irregularidades detectadas",
    "E15": "Deudor contumaz sin informar situación",
}
REPORT_MOTIVES = {
    "R01": "Formato del archivo no es el indicado",
    "R02": "No coincide RUC en Reporte, Certificado o envío",
    "R03": "Firma o Certificado electrónicos no son válidos",
    "R04": "No cumple validaciones según Formato de Reporte",
    "R05": "La secuencia indicada en el reporte no es correcta",
    "R06": "Fecha recepción no puede ser menor a fecha resumen",
}
# Observations of contingency receipts (CFC): C03-C15, in envios/cfc.py with the rest of the CFC rules.
CFC_OBSERVATIONS = {
    "C03": "Constancia no autorizada según registros",
    "C04": "Firma electrónica no es válida",
    "C05": "No cumple validaciones de Formato comprobantes",
    "C06": "Importe informado en el CFE excede montos habituales",
    "C08": "No coincide RUC de CFE y Complemento Fiscal",
    "C09": "Tipo de CFC recibido no figura en la base de CFE certificados",
    "C10": "Tipo de cambio no válido",
    "C11": "Tipo de constancia especial del CFC no se corresponde con la constancia",
    "C12": "Información en Zona de Referencia no existe en nuestros registros",
    "C13": "Tipo de constancia del CFC no se corresponde con la constancia",
    "C14": "Irregularidades detectadas",
    "C15": "Deudor contumaz sin informar situación",
}
ALL_MOTIVES = {**ENVELOPE_MOTIVES, **CFE_MOTIVES, **REPORT_MOTIVES, **CFC_OBSERVATIONS}


def motive(code: str, detail: str | None = None) -> dict:
    """A motive as stored and returned by the API: DGI's code, DGI's text, and our detail when there is one."""
    entry = {"codigo": code, "glosa": ALL_MOTIVES.get(code, "")}
    if detail:
        entry["detalle"] = detail[:500]
    return entry
