"""Operator commands of the Indices area: `python -m portal.service ui-value set|list`."""

from __future__ import annotations

import sys
from decimal import Decimal, InvalidOperation

import click
from sqlalchemy import select

from portal.service import create_app
from portal.service.indices.models import UiValue
from portal.service.indices.ui import set_ui_value
from portal.service.platform import db


@click.group("ui-value")
def ui_value() -> None:
    """The Unidad Indexada by year (DGI Tabla E: the quote of 31 December of the previous year)."""


@ui_value.command("set")
@click.argument("year", type=int)
@click.argument("value")
@click.option(
    "--source",
    default="INE, cotización del 31 de diciembre del año anterior",
    help="Where the value comes from (kept with it).",
)
@click.option("--unverified", is_flag=True, help="Mark the value as not checked against INE's publication.")
def set_command(year: int, value: str, source: str, unverified: bool) -> None:
    """Set the UI in pesos for receipts issued in YEAR, e.g. `ui-value set 2027 6.7123`."""

    try:
        amount = Decimal(value.replace(",", "."))
    except InvalidOperation:
        click.echo(f"not a number: {value}", err=True)
        sys.exit(1)
    app = create_app()
    with db.command_context(app):
        session = db.session()
        try:
            row = set_ui_value(session, year, amount, source, verified=not unverified)
        except ValueError as exc:
            click.echo(str(exc), err=True)
            sys.exit(1)
        session.commit()
        click.echo(f"UI for {row.year}: {row.value} ({row.source})")


@ui_value.command("list")
def list_command() -> None:
    """Print the table, one year per line."""

    app = create_app()
    with db.command_context(app):
        for row in db.session().scalars(select(UiValue).order_by(UiValue.year)):
            mark = "" if row.verified else "  (unverified)"
            click.echo(f"{row.year}  {row.value}  {row.source}{mark}")


COMMANDS = [ui_value]
