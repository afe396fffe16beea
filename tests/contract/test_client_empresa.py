"""The real client's Empresa methods against a live service: typed results and mapped errors."""

from __future__ import annotations

import uuid
from datetime import date

import pytest
from sqlalchemy import delete, update

from portal.client import CfeClient, Conflict, Forbidden, NotFound, ValidationError
from portal.client.empresa import (
    AuditChange,
    AuditEvent,
    Branch,
    CaeRange,
    DaySummary,
    FiscalSettings,
    Logo,
    RetiredCae,
    SigningCertificate,
)
from portal.domain.uruguay_time import today_montevideo
from portal.service.empresa.models import Branch as BranchRow
from portal.service.empresa.models import CompanySettings
from portal.service.platform import db
from portal.service.platform.models import Company
from tests.support import cfe_bodies as bodies
from tests.support.empresa_files import cae_xml, image, p12


@pytest.fixture
def as_user(live_service, live_token_for):
    client = CfeClient(live_service.url)
    return lambda email="admin@demo.uy", company_id=1: client.as_user(live_token_for(email), company_id=company_id)


def test_settings_round_trip(as_user):
    api = as_user()
    seeded = api.get_fiscal_settings()
    assert isinstance(seeded, FiscalSettings) and seeded.regime == "general" and seeded.resolution == "1516/2021"
    assert seeded.rut == "219999830019" and seeded.logo is None
    changed = api.update_fiscal_settings(
        FiscalSettings(regime="exonerado", exemption_norm="Ley 18.083", issuer_since=date(2021, 3, 1), paper="80mm")
    )
    assert changed.issuer_since == date(2021, 3, 1) and changed.resolution is None and changed.paper == "80mm"
    assert changed.updated_by == "admin@demo.uy" and changed.updated_at is not None
    with pytest.raises(ValidationError) as error:
        api.update_fiscal_settings(FiscalSettings(regime="exonerado"))
    assert "normaExoneracion" in error.value.field_messages()


def test_branches(as_user):
    api = as_user()
    created = api.create_branch(
        Branch(code=4, name="Centro", address="Colonia 1000", city="Montevideo", department="Montevideo")
    )
    assert created.id and created.code == 4 and not created.default
    updated = api.update_branch(
        created.id,
        Branch(code=4, name="Centro", address="Colonia 1001", city="Montevideo", department="Montevideo", default=True),
    )
    assert updated.default and [b.code for b in api.list_branches() if b.default] == [4]
    with pytest.raises(ValidationError) as error:
        api.create_branch(Branch(code=4, name="Otra", address="X 1", city="Salto", department="Salto"))
    assert "codigo" in error.value.field_messages()
    with pytest.raises(NotFound):
        api.update_branch(999_999, updated)


def test_logo(as_user):
    api = as_user()
    with pytest.raises(NotFound):
        api.get_logo()
    logo = api.upload_logo(image("PNG"), "image/png")
    assert logo == Logo("image/png", len(image("PNG")), 300, 120)
    assert api.get_logo() == (image("PNG"), "image/png")
    assert as_user().get_fiscal_settings().logo == logo
    api.delete_logo()
    with pytest.raises(ValidationError):
        api.upload_logo(b"GIF89a", "image/png")


def test_certificates(as_user):
    api = as_user()
    uploaded = api.upload_certificate(p12(valid_to_days=10), "clave-p12", name="Firma nueva")
    assert isinstance(uploaded, SigningCertificate) and uploaded.expiring and uploaded.days_left in (9, 10)
    assert uploaded.name in {c.name for c in api.list_certificates()}
    with pytest.raises(ValidationError) as error:
        api.upload_certificate(p12(), "mala")
    assert "password" in error.value.field_messages()


def test_cae_ranges_and_audit(as_user):
    api = as_user()
    uploaded = api.upload_cae(cae_xml(tipo=181, serie="R", dnro=10, hnro=19))
    assert uploaded.created and isinstance(uploaded.range, CaeRange)
    assert (uploaded.range.cfe_type, uploaded.range.serie, uploaded.range.remaining) == (181, "R", 10)
    assert not api.upload_cae(cae_xml(tipo=181, serie="R", dnro=10, hnro=19)).created
    assert any(r.cae_id == uploaded.range.cae_id for r in api.list_cae_ranges())
    events = api.list_audit().items
    assert isinstance(events[0], AuditEvent) and events[0].action == "cae_cargado"
    assert AuditChange("serie", "R") in events[0].changes


def test_a_cae_range_is_retired_with_its_count_confirmed(as_user):
    api = as_user()
    loaded = api.upload_cae(cae_xml(tipo=182, serie="Q", dnro=1, hnro=40, cae_id=90260000041)).range
    with pytest.raises(Conflict) as wrong:
        api.retire_cae_range(loaded.id, count=39, reason="Serie que no se usa")
    assert wrong.value.code == "cantidad_distinta" and "40" in wrong.value.message
    retired = api.retire_cae_range(loaded.id, count=40, reason="Serie que no se usa")
    assert isinstance(retired, RetiredCae) and (retired.first, retired.last, retired.count) == (1, 40, 40)
    assert (
        retired.range.remaining == 0 and retired.range.status == "agotado" and retired.report_day == today_montevideo()
    )
    with pytest.raises(Forbidden):
        as_user("usuario@demo.uy").retire_cae_range(loaded.id, count=40, reason="Serie que no se usa")
    with pytest.raises(NotFound):
        as_user("admin@demo.uy", 2).retire_cae_range(loaded.id, count=40, reason="Serie que no se usa")


def test_roles_are_mapped(as_user):
    user = as_user("usuario@demo.uy")
    assert user.list_branches()[0].code == 1
    with pytest.raises(Forbidden):
        user.update_fiscal_settings(FiscalSettings(regime="general"))
    with pytest.raises(Forbidden):
        user.list_audit()


def test_day_summary(as_user):
    api = as_user("admin@demo.uy")
    issued = api.issue_receipt(bodies.request(bodies.ETICKET), idempotency_key=uuid.uuid4().hex)
    api.upload_cae(cae_xml(tipo=181, serie="R", dnro=1, hnro=10, expires_in_days=10))
    api.upload_certificate(p12(valid_to_days=10), "clave-p12")
    summary = as_user("usuario@demo.uy").get_day_summary()
    assert isinstance(summary, DaySummary) and summary.receipts_today == 1
    line = summary.today_by_type[0]
    assert (line.cfe_type, line.currency, line.count) == (101, "UYU", 1)
    assert line.total == issued.totals.to_pay == summary.today_by_currency[0].net
    assert summary.dgi.by_status == (("pendiente_reporte", 1),) and summary.dgi.waiting == 1
    assert summary.dgi.rejected == 0 and summary.dgi.latest_rejected == ()
    remito = next(r for r in summary.cae_ranges if r.range.serie == "R")
    assert remito.expiring and not remito.low_numbers and remito.warned and remito.range.remaining == 10
    assert summary.types_without_cae == ()
    assert any(c.expiring and c.days_left in (9, 10) for c in summary.certificates)
    assert summary.pending == ()  # the demo company is set up


def test_day_summary_says_what_is_left_to_set_up(as_user, live_service):
    with live_service.app.app_context():
        session = db.session()
        session.execute(delete(BranchRow).where(BranchRow.company_id == 1))
        session.execute(update(Company).where(Company.id == 1).values(domicilio_fiscal="", ciudad="", departamento=""))
        session.execute(
            update(CompanySettings).where(CompanySettings.company_id == 1).values(resolucion=None, fecha_emisor=None)
        )
        session.commit()
    summary = as_user("usuario@demo.uy").get_day_summary()
    assert summary.pending == ("sin_resolucion_ni_fecha_emisor", "sin_domicilio")
