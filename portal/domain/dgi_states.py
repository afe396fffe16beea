"""The states of a receipt on its way to DGI (the `dgi_status` of an issued receipt), with their short Spanish
names. One table for the service (search filters, CSV, the API's enums) and the portal (labels, filters);
the service's DGI submission (portal/service/envios) moves receipts through exactly these states.
"""

from __future__ import annotations

DGI_STATES: dict[str, str] = {
    "pendiente": "Pendiente de envío a DGI",
    "en_sobre": "Enviando a DGI",
    "recibido": "Recibido por DGI",
    "aceptado": "Aceptado por DGI",
    "rechazado": "Rechazado por DGI",
    "observado": "Observado por DGI",
    "sobre_rechazado": "Sobre rechazado por DGI",
    "pendiente_reporte": "Va en el reporte diario",
    "en_reporte": "Incluido en el reporte diario",
}
# DGI answered for good: a receipt in one of these states is not followed any more.
FINAL_DGI_STATES = frozenset({"aceptado", "rechazado", "observado"})
