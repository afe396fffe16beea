"""The service's areas, in the order their blueprints are registered. A module of its own so that what
walks the areas (the app factory, the model registry, the job registry, seed, the operator commands) can
import it at the top without importing the app package."""

from __future__ import annotations

import functools
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


@functools.cache
def area_modules(kind: str) -> tuple[ModuleType, ...]:
    """Each area's `kind` module (routes, models, tasks, commands, seed) where the area has one.

    Found once per process: looking for the modules an area does not have searches its folder every time,
    and every app the process creates asks (a fifth of the test suite's app creation went there)."""
    names = (f"portal.service.{area}.{kind}" for area in AREAS)
    return tuple(importlib.import_module(name) for name in names if importlib.util.find_spec(name) is not None)
