"""Alembic migrations of the service database. `upgrade(url)` applies them; tests and `make run` use it.

Each feature area owns a branch rooted at the foundation revision (branch label = area name), so areas
add tables without touching each other's revisions; `heads` applies them all.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

HERE = Path(__file__).resolve().parent


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    command.upgrade(alembic_config(url), "heads")
