"""The empresa area's shared facts agree with the engine's, and its audit view speaks to people."""

from __future__ import annotations

from portal.domain.empresa import PAPER_FORMATS, REGIMES
from portal.service.cfe.emission import REGIMENES
from portal.service.cfe.pdf_base import PAPERS
from portal.service.empresa.audit import diff
from portal.service.empresa.schemas import Paper, Regimen, SettingsIn


def test_the_portal_offers_exactly_the_regimes_and_papers_the_engine_knows():
    assert tuple(REGIMES) == REGIMENES == Regimen.__args__
    assert PAPER_FORMATS == PAPERS == Paper.__args__


def test_diff_keeps_only_what_changed_with_dates_as_text():
    from datetime import date

    before = {"regimen": "general", "fechaEmisor": None, "ivaAlDia": True}
    after = {"regimen": "general", "fechaEmisor": date(2021, 3, 1), "ivaAlDia": False}
    assert diff(before, after) == {
        "fechaEmisor": {"antes": None, "despues": "2021-03-01"},
        "ivaAlDia": {"antes": True, "despues": False},
    }


def test_settings_problems_name_their_field():
    assert SettingsIn(regimen="general", resolucion="1/2020").problems() == []
    assert [field for field, _ in SettingsIn(regimen="general").problems()] == ["resolucion"]
    fields = [
        field
        for field, _ in SettingsIn(
            regimen="monotributo_mides", ivaAlDia=True, normaExoneracion="Ley 1", fechaEmisor="2021-03-01"
        ).problems()
    ]
    assert fields == ["normaExoneracion", "ivaAlDia"]


def test_audit_rows_show_values_as_people_read_them(portal_app):
    from portal.client.empresa import AuditEvent
    from portal.web.empresa.audit_view import audit_rows

    event = AuditEvent.from_json(
        {
            "fecha": "2026-11-23T00:00:00+00:00",
            "actor": "admin@demo.uy",
            "accion": "configuracion",
            "cambios": {
                "formatoPapel": {"antes": "a4", "despues": "57mm"},
                "fechaEmisor": {"antes": None, "despues": "2021-03-01"},
                "ivaAlDia": {"antes": True, "despues": False},
                "serie": "A",
            },
        }
    )
    with portal_app.test_request_context():
        (row,) = audit_rows((event,))
    assert row.action == "Cambió los datos fiscales"
    assert [(c.label, c.before, c.after) for c in row.changes] == [
        ("Formato de impresión", "A4", "Rollo térmico de 57 mm"),
        ("Fecha emisor", "—", "01/03/2021"),
        ("IVA al día", "Sí", "No"),
        ("Serie", None, "A"),
    ]
