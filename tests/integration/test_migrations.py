"""The migrations build exactly the schema the models declare, for the service and the portal."""

from __future__ import annotations

from datetime import datetime

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import column, create_engine, table, text
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.comprobante.models import IssuedCfe
from portal.service.migrations import alembic_config, upgrade
from portal.service.platform.db import Base
from portal.service.platform.model_registry import load_all_models


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


def test_signature_times_stored_on_sqlite_in_montevideo_digits_move_to_utc_and_back(tmp_path):
    """0015_utc: SQLite kept cfe_emitido.tmst_firma as Montevideo's wall-clock digits; UtcDateTime reads UTC."""
    url = f"sqlite:///{tmp_path / 'service.db'}"
    config = alembic_config(url)
    command.upgrade(config, "heads")
    command.downgrade(config, "0008_comprobante_search")
    engine = create_engine(url)  # foreign keys off: one bare row is enough
    cfe = table("cfe_emitido", *(column(name) for name in _CFE_ROW))
    with engine.begin() as connection:
        connection.execute(cfe.insert().values(**_CFE_ROW))

    def stored() -> str:
        with engine.connect() as connection:
            return connection.execute(text("SELECT tmst_firma FROM cfe_emitido")).scalar_one()

    command.upgrade(config, "heads")
    assert stored() == "2026-11-24 00:30:15.123456"  # 21:30:15 at UTC-3
    load_all_models()
    with Session(engine) as session:
        signed = session.get(IssuedCfe, "cfe_1").tmst_firma
    assert signed == datetime(2026, 11, 23, 21, 30, 15, 123456, tzinfo=MONTEVIDEO)
    command.downgrade(config, "0008_comprobante_search")
    assert stored() == _CFE_ROW["tmst_firma"]
    engine.dispose()


_CFE_ROW = {
    "id": "cfe_1",
    "company_id": 1,
    "cae_range_id": 1,
    "tipo_cfe": 101,
    "serie": "A",
    "nro": 1,
    "fch_emis": "2026-11-23",
    "tmst_firma": "2026-11-23 21:30:15.123456",
    "tpo_moneda": "UYU",
    "mnt_total": 100,
    "mnt_pagar": 100,
    "input_json": "{}",
    "issuer_json": "{}",
    "totals_json": "{}",
    "xml": b"<CFE/>",
    "digest": "x",
    "security_code": "abc123",
    "qr_url": "https://example.invalid/qr",
    "certificate_id": 1,
    "dgi_status": "pendiente",
    "created_by": "admin@demo.uy",
    "created_at": "2026-11-24 00:30:16.000000",
}
