"""The suite reads each app's settings once per environment (tests/conftest.py,
_settings_read_once_per_environment): what it gives is what an uncached read gives, and a changed environment
is read anew."""

from __future__ import annotations

from portal.service.platform.config import ServiceSettings
from portal.web.config import PortalSettings


def test_the_settings_given_again_are_the_settings_read_now(monkeypatch):
    for settings in (ServiceSettings, PortalSettings):
        assert settings.load().flask_config() == settings.load.uncached(settings).flask_config()


def test_a_changed_variable_is_read_anew(monkeypatch):
    before = ServiceSettings.load().flask_config()["LIST_TOTALS_LIMIT"]
    monkeypatch.setenv("CFE_LIST_TOTALS_LIMIT", str(before + 7))
    assert ServiceSettings.load().flask_config()["LIST_TOTALS_LIMIT"] == before + 7
    monkeypatch.undo()
    assert ServiceSettings.load().flask_config()["LIST_TOTALS_LIMIT"] == before


def test_a_change_to_the_settings_given_does_not_reach_the_next_app():
    ServiceSettings.load().ISSUER = "https://changed.example"
    assert ServiceSettings.load().ISSUER != "https://changed.example"


def test_the_next_test_gets_the_settings_read_before(monkeypatch):
    """pytest sets PYTEST_CURRENT_TEST anew for every test: it must not make every app read its settings again."""
    ServiceSettings.load()
    read = ServiceSettings.load.__func__.read
    seen = len(read)
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/unit/test_other.py::test_next (setup)")
    ServiceSettings.load()
    assert len(read) == seen
