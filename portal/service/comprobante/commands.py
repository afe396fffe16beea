"""Operator commands of the Comprobante area."""

from __future__ import annotations

import sys

import click
from sqlalchemy import select

from portal.service import create_app
from portal.service.cfe.cae import parse_cae
from portal.service.cfe.errors import CaeError, XmlInputError
from portal.service.comprobante.numbering import import_range
from portal.service.platform import db
from portal.service.platform.errors import ApiError
from portal.service.platform.models import Company


@click.command("import-cae")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--empresa", "company_rut", required=True, help="RUT of the company the CAE belongs to.")
@click.option("--lenient", is_flag=True, help="Accept old DGI files (before <TA>) that fail CAE.xsd 1.44.2.")
def import_cae(path: str, company_rut: str, lenient: bool) -> None:
    """Import a DGI CAE XML file (a numbering range for one CFE type and serie)."""

    app = create_app()
    with db.command_context(app):
        session = db.session()
        company = session.scalar(select(Company).where(Company.rut == company_rut))
        if company is None:
            click.echo(f"no company with RUT {company_rut}", err=True)
            sys.exit(1)
        with open(path, "rb") as handle:
            xml = handle.read()
        try:
            cae = parse_cae(xml, strict=not lenient)
            record, created = import_range(session, company, cae, xml)
        except (CaeError, XmlInputError, ValueError, ApiError) as exc:
            click.echo(f"not imported: {exc}", err=True)
            sys.exit(1)
        session.commit()
        verb = "imported" if created else "already present"
        click.echo(
            f"CAE {cae.cae_id} {verb}: type {cae.tipo_cfe}, serie {cae.serie}, numbers {cae.dnro}-{cae.hnro}, "
            f"valid until {cae.vencimiento}"
        )


COMMANDS = [import_cae]
