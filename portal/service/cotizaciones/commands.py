"""Operator commands of the cotizaciones area: `python -m portal.service cotizaciones cargar|fijar|listar`."""

from __future__ import annotations

import sys
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

import click
from sqlalchemy import select

from portal.domain.uruguay_time import today_montevideo
from portal.service import create_app
from portal.service.cotizaciones import bcu, rates
from portal.service.cotizaciones.models import ExchangeRate
from portal.service.platform import db


@click.group("cotizaciones")
def cotizaciones() -> None:
    """Exchange rates by day: load them from the BCU, correct a day, list them."""


def _day(value: str | None, default: date) -> date:
    return date.fromisoformat(value) if value else default


@cotizaciones.command("cargar")
@click.option("--desde", help="First day (AAAA-MM-DD); 10 days ago by default.")
@click.option("--hasta", help="Last day (AAAA-MM-DD); today by default.")
def load_command(desde: str | None, hasta: str | None) -> None:
    """Load the BCU's rates of every currency for a range of days (as the worker does twice a day)."""
    today = today_montevideo()
    start, end = _day(desde, today - timedelta(days=10)), _day(hasta, today)
    app = create_app()
    with db.command_context(app), db.write_transaction() as session:
        try:
            changed = rates.refresh(session, start, end)
        except bcu.BcuUnavailable as exc:
            click.echo(str(exc), err=True)
            sys.exit(1)
    click.echo(f"{changed} rates added or changed from {start} to {end}")


@cotizaciones.command("fijar")
@click.argument("day")
@click.argument("currency", type=click.Choice(bcu.CURRENCIES))
@click.argument("sell")
@click.option("--compra", "buy", help="The buying rate; the selling one when left out.")
def set_command(day: str, currency: str, sell: str, buy: str | None) -> None:
    """Set or correct the rate of CURRENCY on DAY (AAAA-MM-DD), e.g. `cotizaciones fijar 2026-11-27 USD 40.125`.
    A day an operator set is never overwritten by the BCU's figures."""
    try:
        sell_value = Decimal(sell.replace(",", "."))
        buy_value = Decimal(buy.replace(",", ".")) if buy else sell_value
        when = date.fromisoformat(day)
    except (InvalidOperation, ValueError) as exc:
        click.echo(f"invalid value: {exc}", err=True)
        sys.exit(1)
    if not (Decimal(0) < buy_value <= sell_value < Decimal(100000)):
        click.echo("the rates must be positive, the buying one not above the selling one", err=True)
        sys.exit(1)
    app = create_app()
    with db.command_context(app), db.write_transaction() as session:
        rates.store(session, [bcu.PublishedRate(when, currency, buy_value, sell_value)], source=rates.OPERATOR)
    click.echo(f"{currency} {when}: buy {buy_value}, sell {sell_value} (operador)")


@cotizaciones.command("listar")
@click.option("--dias", default=10, help="How many days back.")
def list_command(dias: int) -> None:
    """Print the rates of the last days, one per line."""
    app = create_app()
    since = today_montevideo() - timedelta(days=dias)
    with db.command_context(app):
        query = select(ExchangeRate).where(ExchangeRate.day >= since).order_by(ExchangeRate.day, ExchangeRate.currency)
        for row in db.session().scalars(query):
            click.echo(f"{row.day}  {row.currency:3}  {row.buy:>12}  {row.sell:>12}  {row.source}")


COMMANDS = [cotizaciones]
