"""cotizaciones: the stand-in's rates stored before as the BCU's say they are the stand-in's ("simulador")

Until this revision every fetched rate was stored with source "bcu", the stand-in's invented figures too, so an
installation without the BCU's address (development, the demo, one misconfigured) told its users an invented rate
was the BCU's official one.

Which stored rows were the stand-in's: the configuration cannot say (CFE_RATES_SOURCE may have changed since the
rows were stored, and the tests point the BCU's client at the stand-in's address), but the figures can. The
stand-in is deterministic (its formula, copied below as it was when those rows were stored, has not changed since
cotizaciones was written), so a "bcu" row holding exactly what it publishes for that day and currency is its own:
for a currency both rates to the last decimal, the buying one exactly 98% of the selling one, which the BCU's
interbank rates (a fraction of a percent apart) never are; for the UI (one value, buy = sell) only a day on which
the real and the invented UI agreed to four decimals could be mistaken, and the mistake would only call an
official value "not official". Every other row is left as it is. The next year's UI that such a 31 December set
says so too. The downgrade turns "simulador" rows back into "bcu", as they were.

Revision ID: 0371_cotizaciones_simulador
Revises: 0101_cotizaciones
Create Date: 2026-12-11 10:00:00
"""

import math
from datetime import date
from decimal import Decimal

import sqlalchemy as sa
from alembic import op

revision = "0371_cotizaciones_simulador"
down_revision = "0101_cotizaciones"
branch_labels = None
depends_on = ("0006_indices",)

_LEVEL = {
    "USD": Decimal("40.1"),
    "EUR": Decimal("43.6"),
    "ARS": Decimal("0.0351"),
    "BRL": Decimal("7.21"),
    "UI": Decimal("6.4"),
}
_STANDIN_UI = "Simulador del BCU (no oficial)"

rates = sa.table(
    "cotizacion",
    sa.column("day", sa.Date()),
    sa.column("currency", sa.String()),
    sa.column("buy", sa.Numeric(14, 6)),
    sa.column("sell", sa.Numeric(14, 6)),
    sa.column("source", sa.String()),
)
ui_values = sa.table(
    "ui_value",
    sa.column("year", sa.Integer()),
    sa.column("value", sa.Numeric()),
    sa.column("source", sa.String()),
    sa.column("verified", sa.Boolean()),
)


def _standin(day: date, currency: str) -> tuple[Decimal, Decimal] | None:
    """What the stand-in published for `currency` on `day` (bcu.standin_rates as it was), None when nothing."""
    level = _LEVEL.get(currency)
    if level is None:
        return None
    if currency == "UI":
        value = (level * (1 + Decimal(day.toordinal() - 739000) / 36500)).quantize(Decimal("0.0001"))
        return value, value
    if day.weekday() >= 5:
        return None
    wave = Decimal(str(round(math.sin(day.toordinal() / 9) / 100, 6)))
    sell = (level * (1 + wave)).quantize(Decimal("0.001"))
    return (sell * Decimal("0.98")).quantize(Decimal("0.001")), sell


def upgrade() -> None:
    connection = op.get_bind()
    found = connection.execute(
        sa.select(rates.c.day, rates.c.currency, rates.c.buy, rates.c.sell).where(rates.c.source == "bcu")
    )
    theirs = [(day, currency) for day, currency, buy, sell in found if _standin(day, currency) == (buy, sell)]
    for day, currency in theirs:
        connection.execute(
            rates.update().where(rates.c.day == day, rates.c.currency == currency).values(source="simulador")
        )
        if currency == "UI" and (day.month, day.day) == (12, 31):
            said = f"BCU, UI al 31/12/{day.year}"
            connection.execute(
                ui_values.update()
                .where(ui_values.c.year == day.year + 1, ui_values.c.source == said)
                .values(source=f"{_STANDIN_UI}, UI al 31/12/{day.year}", verified=False)
            )


def downgrade() -> None:
    op.execute(rates.update().where(rates.c.source == "simulador").values(source="bcu"))
