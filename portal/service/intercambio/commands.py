"""Operator commands of the exchange area: `python -m portal.service intercambio refresh` and `reintentar`."""

from __future__ import annotations

import sys

import click
from sqlalchemy import select

from portal.service import create_app
from portal.service.envios import consultas
from portal.service.intercambio import refresh, sending, tasks
from portal.service.platform import db, jobs
from portal.service.platform.models import Company


@click.group("intercambio")
def intercambio() -> None:
    """Company-to-company exchange (issuer's side)."""


@intercambio.command("refresh")
@click.option("--completo", "full", is_flag=True, help="Download the whole directory, not only the changes.")
def refresh_directory(full: bool) -> None:
    """Refresh the directory of electronic issuers from DGI's ws_consultas (or the simulator's list) now; the
    worker does it every day on its own."""
    app = create_app()
    with db.command_context(app):
        try:
            result = refresh.refresh(full)
        except consultas.DirectoryUnavailable as exc:
            click.echo(f"directory not refreshed: {exc}", err=True)
            sys.exit(1)
        click.echo(
            f"{result.count} electronic issuers from {result.source} (changes since {result.since:%Y-%m-%d %H:%M})"
        )


@intercambio.command("reintentar")
@click.option("--empresa", "company_rut", required=True, help="RUT of the company that sent it.")
@click.argument("envelope_id", type=int)
def retry_envelope(company_rut: str, envelope_id: int) -> None:
    """Deliver again an exchange envelope that failed for good (the same bytes, attempts from zero, the receiver's
    directory entry read afresh): what POST /api/v1/intercambio/sobres/<id>/reintentar does for the company."""
    app = create_app()
    with db.command_context(app):
        jobs.use_app(app)
        company_id = db.session().scalar(select(Company.id).where(Company.rut == company_rut))
        if company_id is None or not sending.retry(company_id, envelope_id):
            click.echo("no such envelope of that company waiting for support (state error)", err=True)
            sys.exit(1)
        tasks.redeliver_exchange(envelope_id)
        click.echo(f"envelope {envelope_id} queued for delivery")


COMMANDS = [intercambio]
