"""The migrations build exactly the schema the models declare, for the service and the portal."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from portal.service.db import Base
from portal.service.migrations import upgrade
from portal.service.model_registry import load_all_models


def _differences(url: str, metadata) -> list:
    engine = create_engine(url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), metadata)
    engine.dispose()
    return diff


def test_service_migrations_match_the_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'service.db'}"
    upgrade(url)
    load_all_models()
    assert _differences(url, Base.metadata) == []


def test_portal_migrations_match_the_models(tmp_path):
    from portal.web.activity import PortalBase
    from portal.web.activity import upgrade as portal_upgrade

    url = f"sqlite:///{tmp_path / 'portal.db'}"
    portal_upgrade(url)
    assert _differences(url, PortalBase.metadata) == []


def test_migrating_twice_changes_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'service.db'}"
    upgrade(url)
    upgrade(url)
    assert _differences(url, Base.metadata) == []
