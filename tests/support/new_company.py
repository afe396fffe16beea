"""Demo S.A. (company 1) turned into what a new company is on its first day, for the tests of what the portal
tells it is left to set up (the home's "Antes de emitir")."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask
from sqlalchemy import delete, update

from portal.service.comprobante.models import CaeRangeRecord
from portal.service.empresa.models import Branch, CompanySettings
from portal.service.platform import db
from portal.service.platform.models import Certificate, Company


def as_a_new_company(service_app: Flask, company_id: int = 1) -> None:
    """No fiscal address (no branch, none in its record), no legend for the receipts' footer (neither a DGI
    resolution nor a "Fecha emisor"), no certificate that signs, no CAE that numbers."""
    with service_app.app_context():
        session = db.session()
        session.execute(delete(Branch).where(Branch.company_id == company_id))
        session.execute(
            update(Company).where(Company.id == company_id).values(domicilio_fiscal="", ciudad="", departamento="")
        )
        session.execute(
            update(CompanySettings)
            .where(CompanySettings.company_id == company_id)
            .values(resolucion=None, fecha_emisor=None)
        )
        session.execute(
            update(Certificate).where(Certificate.company_id == company_id).values(retired_at=datetime.now(UTC))
        )
        session.execute(
            update(CaeRangeRecord)
            .where(CaeRangeRecord.company_id == company_id)
            .values(next_nro=CaeRangeRecord.hnro + 1)
        )
        session.commit()
