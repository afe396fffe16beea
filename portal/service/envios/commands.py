"""Operator commands of the envios area."""

from __future__ import annotations

import sys
from datetime import date, timedelta

import click
from sqlalchemy import select

from portal.domain.uruguay_time import today_montevideo
from portal.service import create_app
from portal.service.envios import outage, reports, tasks
from portal.service.envios.models import DgiDailyReport
from portal.service.platform import db, jobs
from portal.service.platform.models import Company


@click.command("envios-reporte")
@click.option("--empresa", "company_rut", required=True, help="RUT of the company.")
@click.option("--fecha", "day", default=None, help="Day to report, AAAA-MM-DD (default: yesterday in Montevideo).")
def send_daily_report(company_rut: str, day: str | None) -> None:
    """Build the company's daily report (ReporteDiarioCFE) of a day and send it to DGI now."""

    app = create_app()
    with db.command_context(app):
        company = db.session().scalar(select(Company).where(Company.rut == company_rut))
        if company is None:
            click.echo(f"no company with RUT {company_rut}", err=True)
            sys.exit(1)
        fecha = date.fromisoformat(day) if day else today_montevideo() - timedelta(days=1)
        if fecha > today_montevideo():
            click.echo("that day has not happened yet", err=True)
            sys.exit(1)
        report_id = reports.build(company.id, fecha, "operador (línea de comandos)")
        reports.mirror_states(report_id)
        reports.deliver(report_id)
        report = db.new_session().get_one(DgiDailyReport, report_id)
        click.echo(
            f"{report.file_name}: {report.cfe_count} CFE, state {report.state}"
            + (f" ({report.ack_state})" if report.ack_state else "")
            + (f", {report.last_error}" if report.last_error else "")
        )


@click.command("envios-barrer")
def sweep() -> None:
    """Wake everything waiting for DGI now (pending receipts, unacknowledged envelopes, answers, reports); the
    worker does it every minute on its own."""

    app = create_app()
    with db.command_context(app):
        jobs.use_app(app)
        click.echo(", ".join(f"{what}: {count}" for what, count in tasks.sweep(timedelta(0)).items()))


@click.command("envios-simulador-modo")
@click.argument("mode", required=False, type=click.Choice(list(outage.MODES)))
@click.option("--lento-segundos", "slow_seconds", type=float, default=None, help="Delay of the slow mode.")
def simulator_mode(mode: str | None, slow_seconds: float | None) -> None:
    """Show or switch the embedded DGI simulator's outage mode (normal, caido, lento, falla_soap,
    sin_respuestas), for every process on this database; and show what this service has seen of DGI."""

    app = create_app()
    with db.command_context(app):
        if mode is not None:
            outage.set_simulator_mode(mode, slow_seconds)
        current, slow = outage.simulator_mode(app.config)
        click.echo(f"simulator: {current} ({outage.MODES[current]})" + (f", {slow:g} s" if current == "lento" else ""))
        seen = outage.status(db.session())
        waiting = outage.backlog(db.session())
        click.echo(
            (
                "DGI: answering"
                if seen.down_since is None
                else f"DGI: not answering since {seen.down_since:%Y-%m-%d %H:%M:%S} UTC"
            )
            + f"; waiting: {waiting.receipts} receipts, {waiting.envelopes} envelopes, {waiting.reports} reports"
        )


COMMANDS = [send_daily_report, sweep, simulator_mode]
