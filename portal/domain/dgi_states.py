"""The states of a receipt before DGI (the `dgi_status` of an issued receipt), with their Spanish names.

The set is open: the DGI submission work adds states by adding them here (code and name); search filters,
CSV exports and the portal's badges take them from this table.
"""

from __future__ import annotations

DGI_STATES: dict[str, str] = {
    "pendiente": "Pendiente de envío",
    "enviado": "Enviado a DGI",
    "aceptado": "Aceptado por DGI",
    "observado": "Observado por DGI",
    "rechazado": "Rechazado por DGI",
}
