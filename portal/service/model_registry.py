"""Imports every module that declares tables, so `Base.metadata` is complete (Alembic, tests)."""

import importlib
import importlib.util


def load_all_models() -> None:
    from portal.service import AREAS

    importlib.import_module("portal.service.models")
    importlib.import_module("portal.service.identity.models")
    for area in AREAS:
        name = f"portal.service.{area}.models"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
