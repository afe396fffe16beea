"""A receipt's DGI states as the portal names them: one table for the badge (envios/badges.py) and the receipt
list's filter (comprobantes/choices.py). Its strings are translated in the envios area's catalogue."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l

# state -> (label, tone, seconds before looking again; None when final). States follow the service's
# portal/service/envios/states.py; an unknown one is shown by its code and looked at again slowly.
STATES = {
    "pendiente": (_l("Pendiente de envío a DGI"), "warn", 3),
    "en_sobre": (_l("Enviando a DGI"), "warn", 3),
    "recibido": (_l("Recibido por DGI, esperando respuesta"), "warn", 3),
    "aceptado": (_l("Aceptado por DGI"), "ok", None),
    "observado": (_l("Observado por DGI"), "warn", None),
    "rechazado": (_l("Rechazado por DGI"), "bad", None),
    "sobre_rechazado": (_l("Sobre rechazado por DGI: soporte lo revisa"), "bad", 30),
    "pendiente_reporte": (_l("Va en el reporte diario de DGI"), "neutral", 60),
    "en_reporte": (_l("Incluido en el reporte diario de DGI"), "ok", 30),  # final once DGI answers AR
}
