"""The events a company's integrations can subscribe to, with what each means (catalogue messages, said in
the reader's language). Payloads carry identifiers and states, never secrets or a receipt's full content: the integrator
asks the API for more with the identifier."""

from __future__ import annotations

from portal.service.platform.i18n import _

EVENTS: dict[str, str] = {
    "comprobante.emitido": _("Se emitió un comprobante (firmado y numerado; aún sin respuesta de DGI)."),
    "comprobante.aceptado": _("DGI aceptó el comprobante (AE)."),
    "comprobante.rechazado": _("DGI rechazó el comprobante (BE): no vale y su número quedó anulado."),
    "comprobante.observado": _("DGI observó el comprobante (CE)."),
    "sobre.rechazado": _("DGI rechazó un sobre entero (BS/BA): sus comprobantes no llegaron."),
    "reporte.rechazado": _("DGI rechazó el reporte diario de un día (BR/BA)."),
    "cae.por_agotarse": _("Un rango de CAE se está por agotar o vencer."),
    "certificado.por_vencer": _("El certificado de firma de la empresa se está por vencer."),
    "recibido.nuevo": _("Llegó un comprobante de otra empresa (intercambio)."),
    "intercambio.respuesta": _("Otra empresa respondió (aceptó o rechazó) un comprobante enviado."),
    "intercambio.aceptacion_confirmada": _(
        "Otra empresa confirmó que acepta un comprobante enviado: su decisión, después del acuse al recibirlo."
    ),
    # Sent only by "enviar prueba": never published by the service's own work.
    "webhook.prueba": _("Evento de prueba pedido por un administrador."),
}
SUBSCRIBABLE = tuple(name for name in EVENTS if name != "webhook.prueba")
