"""Demo fiscal settings and branches (development only): receipts print the same data as before."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.empresa.models import Branch, CompanySettings

# RUT -> settings. Demo S.A. prints a DGI resolution; Del Norte the date it entered the CFE regime.
DEMO_SETTINGS = {
    "219999830019": {"regimen": "general", "resolucion": "1516/2021", "iva_al_dia": True, "formato_papel": "a4"},
    "211003420017": {"regimen": "general", "fecha_emisor": date(2022, 3, 1), "iva_al_dia": True, "formato_papel": "a4"},
}


def seed_demo(session: Session, companies: list) -> Iterator[str]:
    for company in companies:
        if session.get(CompanySettings, company.id) is None and company.rut in DEMO_SETTINGS:
            session.add(CompanySettings(company_id=company.id, **DEMO_SETTINGS[company.rut]))
            yield f"demo fiscal settings for {company.razon_social}"
        if session.scalar(select(Branch.id).where(Branch.company_id == company.id)) is None:
            # The branch the company row describes, as its default branch.
            session.add(
                Branch(
                    company_id=company.id,
                    codigo=company.cdg_dgi_sucursal,
                    nombre=company.sucursal or "Casa principal",
                    domicilio=company.domicilio_fiscal,
                    ciudad=company.ciudad,
                    departamento=company.departamento,
                    predeterminada=True,
                )
            )
            yield f"demo branch {company.cdg_dgi_sucursal} for {company.razon_social}"
