"""Operator commands of the exchange area: `python -m portal.service intercambio refresh`."""

from __future__ import annotations

import sys

import click

from portal.service import create_app, db
from portal.service.intercambio import consultas, refresh


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


COMMANDS = [intercambio]
