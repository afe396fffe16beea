"""Operator commands of the recibidos area."""

from __future__ import annotations

import sys

import click
from sqlalchemy import select

from portal.service import create_app
from portal.service.platform import db
from portal.service.platform.models import Company
from portal.service.recibidos import mailbox


@click.command("buzon-intercambio")
@click.option("--empresa", "company_rut", required=True, help="RUT of the company.")
@click.argument("url")
def set_exchange_mailbox(company_rut: str, url: str) -> None:
    """Set the company's exchange mailbox, read every minute by the worker: imap[s]://user:password@host/FOLDER."""
    app = create_app()
    with db.command_context(app):
        company = db.session().scalar(select(Company).where(Company.rut == company_rut))
        if company is None:
            click.echo(f"no company with RUT {company_rut}", err=True)
            sys.exit(1)
        try:
            mailbox.configure(db.session(), company.id, url)
        except ValueError as exc:
            click.echo(str(exc), err=True)
            sys.exit(1)
        db.session().commit()
        click.echo(f"exchange mailbox of {company.razon_social} set; the worker reads it every minute")


COMMANDS = [set_exchange_mailbox]
