"""comprobante.hooks: what the areas built on comprobante register with it (from their wiring.init_app), in the
order of AREAS and once each however often the app factory runs."""

from __future__ import annotations

import pytest

from portal.service.comprobante import hooks


@pytest.fixture
def empty_registry(monkeypatch):
    monkeypatch.setattr(hooks, "_follow_ups", {})
    monkeypatch.setattr(hooks, "_sections", {})
    monkeypatch.setattr(hooks, "_company", None)


def _wakeup(label: str):
    return lambda session, issued: hooks.Wakeup(lambda: None, label)


def test_a_second_registration_replaces_the_first_in_its_place(empty_registry):
    hooks.follow_issues("envios", hooks.IssueFollowUp(stored=_wakeup("first")))
    hooks.follow_issues("intercambio", hooks.IssueFollowUp(stored=_wakeup("exchange")))
    hooks.follow_issues("envios", hooks.IssueFollowUp(stored=_wakeup("again")))
    labels = [follow_up.stored(None, None).label for follow_up in hooks.follow_ups()]
    assert labels == ["again", "exchange"]


def test_sections_come_from_the_area_that_writes_them_and_are_none_without_one(empty_registry):
    assert hooks.dgi_state(None, None) is None and hooks.credit_note_reason(None, None) is None
    hooks.add_receipt_sections("intercambio", hooks.ReceiptSections(credit_note_reason=lambda s, r: "motivo"))
    hooks.add_receipt_sections("otra", hooks.ReceiptSections(credit_note_reason=lambda s, r: "otro"))
    assert hooks.credit_note_reason(None, None) == "motivo"
    assert hooks.with_prefetched("statement") == "statement"  # no area reads a row with the receipt


def test_issuing_without_company_settings_says_what_is_missing(empty_registry):
    with pytest.raises(RuntimeError, match="empresa"):
        hooks.company_settings()


def test_the_app_factory_registers_the_areas_in_order(service_app):
    assert hooks.company_settings().paper.__module__ == "portal.service.empresa.settings"
    stored = [follow_up.stored.__module__ for follow_up in hooks.follow_ups()]
    assert stored == ["portal.service.envios.wiring", "portal.service.intercambio.wiring"]
