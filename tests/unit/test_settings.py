"""Each app reads its environment in one typed place: defaults, parsing, secrets, errors, the README."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest

from portal import paths
from portal.service.platform.config import ServiceSettings
from portal.settings import SettingsError
from portal.web.config import PortalSettings

ALL_SETTINGS = (ServiceSettings, PortalSettings)


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No setting of either app in the environment; an empty secrets folder."""
    for settings in ALL_SETTINGS:
        for field in settings.model_fields.values():
            monkeypatch.delenv(field.alias, raising=False)
    monkeypatch.setenv("CFE_SECRETS_DIR", str(tmp_path / "secrets"))
    return monkeypatch


def test_defaults_are_the_documented_development_ones(clean_env):
    service = ServiceSettings.load()
    assert service.DATABASE_URL == f"sqlite:///{paths.var_dir() / 'service.db'}"
    assert (service.ISSUER, service.RATELIMIT_STORAGE_URL) == ("http://127.0.0.1:8000", "memory://")
    assert (service.UI_VALUE_UYU, service.WRITE_LOCK_TIMEOUT_SECONDS) == (Decimal("6.1642"), 2.0)
    assert (service.DGI_BACKEND, service.DGI_RECEPTION, service.PDF_FONT) == ("sandbox", "simulator", "core")
    assert service.SECURE_COOKIES is None and service.SMTP_URL is None and service.SECRET_KEY is None
    portal = PortalSettings.load().flask_config()
    assert portal["PORTAL_DATABASE_URL"] == f"sqlite:///{paths.var_dir() / 'portal.db'}"
    assert (portal["IDLE_TIMEOUT"], portal["ABSOLUTE_TIMEOUT"]) == (timedelta(minutes=30), timedelta(hours=12))


def test_values_come_typed_from_the_environment_and_empty_means_unset(clean_env):
    clean_env.setenv("CFE_ISSUER_URL", "https://cfe.example.uy/")
    clean_env.setenv("CFE_PORTAL_REDIRECT_URIS", "https://a.example.uy/cb  https://b.example.uy/cb")
    clean_env.setenv("CFE_SECURE_COOKIES", "0")
    clean_env.setenv("CFE_DGI_BACKEND", " SOAP ")
    clean_env.setenv("CFE_DGI_CACHE_SECONDS", "42")
    clean_env.setenv("CFE_DATABASE_URL", "")
    service = ServiceSettings.load()
    assert service.ISSUER == "https://cfe.example.uy"
    assert service.PORTAL_REDIRECT_URIS == ["https://a.example.uy/cb", "https://b.example.uy/cb"]
    assert (service.SECURE_COOKIES, service.DGI_BACKEND, service.DGI_CACHE_SECONDS) == (False, "soap", 42)
    assert service.DATABASE_URL.endswith("service.db")


def test_the_portal_signs_in_at_the_service_unless_told_otherwise(clean_env):
    clean_env.setenv("CFE_SERVICE_URL", "http://10.0.0.5:8000")
    assert PortalSettings.load().OIDC_ISSUER == "http://10.0.0.5:8000"
    clean_env.setenv("CFE_ISSUER_URL", "https://cfe.example.uy")
    assert PortalSettings.load().OIDC_ISSUER == "https://cfe.example.uy"


def test_secrets_come_from_the_environment_else_from_the_generated_files(clean_env, tmp_path):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "service-secret-key").write_text("from-the-file")
    assert ServiceSettings.load().SECRET_KEY == "from-the-file"
    clean_env.setenv("CFE_SERVICE_SECRET_KEY", "from-the-environment")
    settings = ServiceSettings.load()
    assert settings.SECRET_KEY == "from-the-environment"
    assert "from-the-environment" not in repr(settings)


@pytest.mark.parametrize(
    ("settings", "variable", "value"),
    [
        (ServiceSettings, "CFE_WRITE_LOCK_TIMEOUT_SECONDS", "two"),
        (ServiceSettings, "CFE_DGI_RECEPTION", "carrier-pigeon"),
        (ServiceSettings, "CFE_ENVIOS_OVERDUE_MINUTES", "-5"),
        (ServiceSettings, "CFE_SECURE_COOKIES", "maybe"),
        (PortalSettings, "PORTAL_IDLE_MINUTES", "half an hour"),
    ],
)
def test_a_bad_value_stops_the_start_naming_the_variable_not_the_value(clean_env, settings, variable, value):
    clean_env.setenv(variable, value)
    with pytest.raises(SettingsError, match=variable) as raised:
        settings.load()
    assert value not in str(raised.value)


def test_the_readme_documents_every_variable_the_apps_read():
    readme = (paths.PROJECT_ROOT / "README.md").read_text()
    documented = set(re.findall(r"`((?:CFE|PORTAL)_[A-Z0-9_]+)`", readme))
    read = {field.alias for settings in ALL_SETTINGS for field in settings.model_fields.values()}
    assert read - documented == set()
