"""Operator commands of the envios area."""

from __future__ import annotations

import sys
from datetime import date, timedelta

import click
from sqlalchemy import select

from portal.domain.uruguay_time import today_montevideo
from portal.service import create_app, db, jobs
from portal.service.envios import reports, tasks
from portal.service.envios.models import DgiDailyReport
from portal.service.models import Company


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


COMMANDS = [send_daily_report, sweep]
