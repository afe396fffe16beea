"""The events a company's integrations can subscribe to, with what each means (Spanish, as the API documents
them). Payloads carry identifiers and states, never secrets or a receipt's full content: the integrator
asks the API for more with the identifier."""

from __future__ import annotations

EVENTS: dict[str, str] = {
    "comprobante.emitido": "Se emitió un comprobante (firmado y numerado; aún sin respuesta de DGI).",
    "comprobante.aceptado": "DGI aceptó el comprobante (AE).",
    "comprobante.rechazado": "DGI rechazó el comprobante (BE): no vale y su número quedó anulado.",
    "comprobante.observado": "DGI observó el comprobante (CE).",
    "sobre.rechazado": "DGI rechazó un sobre entero (BS/BA): sus comprobantes no llegaron.",
    "reporte.rechazado": "DGI rechazó el reporte diario de un día (BR/BA).",
    "cae.por_agotarse": "Un rango de CAE se está por agotar o vencer.",
    "certificado.por_vencer": "El certificado de firma de la empresa se está por vencer.",
    "recibido.nuevo": "Llegó un comprobante de otra empresa (intercambio).",
    "intercambio.respuesta": "Otra empresa respondió (aceptó o rechazó) un comprobante enviado.",
    # Sent only by "enviar prueba": never published by the service's own work.
    "webhook.prueba": "Evento de prueba pedido por un administrador.",
}
SUBSCRIBABLE = tuple(name for name in EVENTS if name != "webhook.prueba")
