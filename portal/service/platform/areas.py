"""The service's areas, in the order their blueprints are registered. A module of its own so that what
walks the areas (the app factory, the model registry, the job registry, seed, the operator commands) can
import it at the top without importing the app package."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

AREAS = (
    "comprobante",
    "apikeys",
    "dgi",
    "inteligente",
    "empresa",
    "indices",
    "envios",
    "correo",
    "receptores",
    "intercambio",
    "informes",
    "cotizaciones",
    "clientes",
    "productos",
    "eventos",
    "webhooks",
    "salud",
    "recibidos",
)


def area_modules(kind: str) -> list[ModuleType]:
    """Each area's `kind` module (routes, models, tasks, commands, seed) where the area has one."""
    names = (f"portal.service.{area}.{kind}" for area in AREAS)
    return [importlib.import_module(name) for name in names if importlib.util.find_spec(name) is not None]
