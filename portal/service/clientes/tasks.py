"""Background work of the clientes area: each company's new receivers read into its customers every minute."""

from __future__ import annotations

from huey import crontab
from sqlalchemy import select

from portal.service.clientes.catalog import sync_from_receipts
from portal.service.platform import db, jobs
from portal.service.platform.models import Company


@jobs.huey.periodic_task(crontab(minute="*"), name="clientes.sync_customers")
@jobs.in_app_context
def sync_customers() -> None:
    for company_id in db.session().scalars(select(Company.id)).all():
        with db.write_transaction() as session:
            sync_from_receipts(session, company_id)
