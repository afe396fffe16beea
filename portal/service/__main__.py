"""Operator commands: `python -m portal.service COMMAND`.

migrate                 bring the database schema up to date (Alembic)
seed                    create the demo data (development only; idempotent)
token EMAIL             print a valid access token for that user (signed with the service's key)
import-cert FILE.p12    import a company's PKCS#12 signing certificate
worker                  run the background worker (DGI submission, e-mail), huey's consumer
serve                   run the service (gunicorn in production; this is werkzeug, for development)
"""

from __future__ import annotations

import sys

import click
from sqlalchemy import func, select

from portal.service import create_app
from portal.service.identity.claims import mint_access_token
from portal.service.migrations import upgrade
from portal.service.platform import db, jobs
from portal.service.platform.areas import area_modules
from portal.service.platform.certificates import load_pkcs12
from portal.service.platform.keystore import store_certificate
from portal.service.platform.models import Company, User
from portal.service.seed import seed_demo


@click.group()
def cli() -> None:
    """Operator commands of the CFE service."""


@cli.command()
def migrate() -> None:
    """Apply every pending migration."""

    app = create_app()
    upgrade(app.config["DATABASE_URL"])
    click.echo("database up to date")


@cli.command()
def seed() -> None:
    """Create the demo companies, users, certificate and CAE ranges (development only; idempotent)."""

    app = create_app()
    with db.command_context(app):
        for line in seed_demo():
            click.echo(line)


@cli.command()
@click.argument("email")
@click.option("--lifetime", type=int, default=None, help="Seconds the token lives (default: the configured).")
def token(email: str, lifetime: int | None) -> None:
    """Print an access token for EMAIL."""

    app = create_app()
    with db.command_context(app):
        user = db.session().scalar(select(User).where(func.lower(User.email) == email.lower()))
        if user is None or not user.active:
            click.echo(f"no active user {email}", err=True)
            sys.exit(1)
        click.echo(mint_access_token(db.session(), user, lifetime=lifetime))


NAME_LENGTH = 120  # Certificate.name


@cli.command("import-cert")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--empresa", "company_rut", required=True, help="RUT of the company that owns it.")
@click.option("--name", default=None, help="A name to tell certificates apart.")
@click.password_option("--password", confirmation_prompt=False, default="", help="PKCS#12 password.")
def import_cert(path: str, company_rut: str, name: str | None, password: str) -> None:
    """Import a PKCS#12 (.p12/.pfx) certificate and key for a company."""
    if name is not None and not 1 <= len(name) <= NAME_LENGTH:
        raise click.BadParameter(f"from 1 to {NAME_LENGTH} characters", param_hint="--name")

    app = create_app()
    with db.command_context(app):
        session = db.session()
        company = session.scalar(select(Company).where(Company.rut == company_rut))
        if company is None:
            click.echo(f"no company with RUT {company_rut}", err=True)
            sys.exit(1)
        with open(path, "rb") as handle:
            key_pem, cert_pem, info = load_pkcs12(handle.read(), password.encode() or None)
        # The column holds 120 characters (PostgreSQL enforces it); a CA's subject is often longer.
        cert = store_certificate(session, company, name or info.subject[:NAME_LENGTH], key_pem, cert_pem)
        session.commit()
        click.echo(f"certificate {cert.id} imported for {company.razon_social} (valid until {cert.not_after:%Y-%m-%d})")


@cli.command()
@click.option("--host", default="127.0.0.1")
@click.option("--port", default=8000, type=int)
def serve(host: str, port: int) -> None:
    """Development server."""
    create_app().run(host=host, port=port)


@cli.command()
@click.option("--workers", default=2, type=int, help="Threads that run tasks.")
def worker(workers: int) -> None:
    """Run the background worker (DGI submission, e-mail): huey's consumer over CFE_JOBS_URL."""

    app = create_app()
    jobs.use_app(app)
    jobs.huey.create_consumer(workers=workers, worker_type="thread", periodic=True).run()


def _add_area_commands() -> None:
    """Areas add their own commands (e.g. comprobante's `import-cae`) in an optional `commands` module."""
    for area_commands in area_modules("commands"):
        for command in area_commands.COMMANDS:
            cli.add_command(command)


_add_area_commands()

if __name__ == "__main__":
    cli()
