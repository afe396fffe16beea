"""Demo CAE ranges: one per supported CFE type for each demo company (development only)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.cae import CaeRange
from portal.service.comprobante.models import CaeRangeRecord
from portal.service.comprobante.numbering import import_range

DEMO_RANGE_SIZE = 100_000


def seed_demo(session: Session, companies: list) -> Iterator[str]:
    today = today_montevideo()
    for company_index, company in enumerate(companies, start=1):
        if session.scalar(select(CaeRangeRecord.id).where(CaeRangeRecord.company_id == company.id)):
            continue
        for type_index, code in enumerate(sorted(CFE_TYPES), start=1):
            # "90" + 2-digit year + 6-digit sequence + a digit: the shape of DGI's CAE numbers.
            cae_id = int(f"90{today:%y}{company_index:02d}{type_index:04d}0")
            cae = CaeRange(
                rut=company.rut,
                tipo_cfe=code,
                serie="A",
                dnro=1,
                hnro=DEMO_RANGE_SIZE,
                cae_id=cae_id,
                fecha_autorizacion=today - timedelta(days=30),
                vencimiento=today + timedelta(days=700),
            )
            import_range(session, company, cae, None, source="demo")
        yield f"demo CAE ranges (types {', '.join(map(str, sorted(CFE_TYPES)))}, serie A) for {company.razon_social}"
