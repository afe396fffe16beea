"""Alembic environment: one metadata for every area's tables."""

from alembic import context
from sqlalchemy import engine_from_config, pool

from portal.service.platform.db import Base
from portal.service.platform.model_registry import load_all_models

load_all_models()
config = context.config
target_metadata = Base.metadata


def run_migrations() -> None:
    connectable = engine_from_config(
        config.get_section(config.config_ini_section, {}), prefix="sqlalchemy.", poolclass=pool.NullPool
    )
    with connectable.connect() as connection:
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=connection.dialect.name == "sqlite"
        )
        with context.begin_transaction():
            context.run_migrations()


run_migrations()
