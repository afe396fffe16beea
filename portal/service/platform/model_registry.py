"""Imports every module that declares tables, so `Base.metadata` is complete (Alembic, tests)."""

import importlib

from portal.service.platform.areas import area_modules


def load_all_models() -> None:
    importlib.import_module("portal.service.platform.models")
    importlib.import_module("portal.service.identity.models")
    area_modules("models")
