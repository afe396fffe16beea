"""Operator commands of the empresa area: a new company with its first admin (`empresa-alta`), a company's
members (`usuario-alta`, `usuario-baja`), and a user's password and standing (`usuario-contrasena`,
`usuario-desactivar`, `usuario-activar`). The work is `empresa.onboarding`'s and `identity.members`'; these only
read the options and say the outcome. Exit code 0 when done, 1 when refused (nothing changed), 2 for a misused
option (click)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

import click

from portal.domain import roles
from portal.service import create_app
from portal.service.empresa import onboarding
from portal.service.identity import members
from portal.service.platform import db
from portal.service.platform.errors import ApiError


def _refused(what: str, exc: ApiError) -> NoReturn:
    click.echo(f"{what}: {exc.message}", err=True)
    sys.exit(1)


def _tell_password(added: members.Added) -> None:
    """The one time a generated password is seen: it is stored only as its argon2 hash."""
    if added.password is None:
        click.echo(f"{added.email} already had a user: they sign in with their own password")
        return
    click.echo(f"new user {added.email}, password: {added.password}")
    click.echo(
        f"Hand this password to {added.email} yourself, over a safe channel: it is shown only this once (only its "
        'hash is kept). They change it after signing in, with "Cambiar contraseña" in the portal\'s header.'
    )


@click.command("empresa-alta")
@click.option("--rut", required=True, help="The company's RUT (12 digits, its check digit is checked).")
@click.option("--razon-social", "razon_social", required=True, help="Its legal name, as registered at DGI.")
@click.option(
    "--domicilio", default=None, help="Fiscal address (with --ciudad and --departamento): the default branch."
)
@click.option("--ciudad", default=None, help="City of the fiscal address.")
@click.option("--departamento", default=None, help="Department of the fiscal address (Montevideo, Salto, ...).")
@click.option("--admin", "admin_email", required=True, help="E-mail of its first admin (a user is created if new).")
@click.option("--admin-nombre", "admin_name", required=True, help="The admin's name, for a new user.")
def create_company(
    rut: str,
    razon_social: str,
    domicilio: str | None,
    ciudad: str | None,
    departamento: str | None,
    admin_email: str,
    admin_name: str,
) -> None:
    """Create a company (settings, default branch, first admin) in one transaction: all of it or nothing."""
    app = create_app()
    with db.command_context(app):
        data = onboarding.NewCompany(rut, razon_social, domicilio, ciudad, departamento)
        try:
            onboarding.checked(data)  # before hashing a password for nothing
            admin = members.person(db.session(), admin_email, admin_name)
            created = onboarding.create_company(data, admin)
        except ApiError as exc:
            _refused("company not created", exc)
        click.echo(f"company {created.razon_social} (RUT {created.rut}) created, id {created.company_id}")
        if created.with_branch:
            click.echo(f"default branch {onboarding.FIRST_BRANCH_CODE} «{onboarding.FIRST_BRANCH_NAME}» at its address")
        else:
            click.echo("no fiscal address yet: the admin adds the branch registered at DGI in Empresa › Sucursales")
        click.echo(f"admin: {created.admin.email}")
        _tell_password(created.admin)
        click.echo(
            "next: the admin uploads the signing certificate and the CAE files (Empresa), or import-cert/import-cae"
        )


@click.command("usuario-alta")
@click.option("--empresa", "company_rut", required=True, help="RUT of the company.")
@click.option("--email", required=True, help="The person's e-mail (a user is created if new).")
@click.option("--nombre", "name", required=True, help="The person's name, for a new user.")
@click.option("--rol", "role", required=True, type=click.Choice(roles.ALL), help="Their role in the company.")
def add_member(company_rut: str, email: str, name: str, role: str) -> None:
    """Add a person to a company with a role (a new user gets a generated password, shown once)."""
    app = create_app()
    with db.command_context(app):
        try:
            company = onboarding.company_by_rut(db.session(), company_rut)
            who = members.person(db.session(), email, name)
            added = onboarding.add_member(company.id, who, members.role_of(role))
        except ApiError as exc:
            _refused("not added", exc)
        click.echo(f"{added.email} is now {added.role} of {company.razon_social} (RUT {company.rut})")
        _tell_password(added)


@click.command("usuario-baja")
@click.option("--empresa", "company_rut", required=True, help="RUT of the company.")
@click.option("--email", required=True, help="The member's e-mail.")
def remove_member(company_rut: str, email: str) -> None:
    """Take a person out of a company (never its last admin); their access to it ends at their next request."""
    app = create_app()
    with db.command_context(app):
        try:
            company = onboarding.company_by_rut(db.session(), company_rut)
            removed = onboarding.remove_member(company.id, email)
        except ApiError as exc:
            _refused("not removed", exc)
        click.echo(
            f"{removed.email} ({removed.role}) is no longer a member of {company.razon_social} (RUT {company.rut}); "
            "their sessions and tokens no longer reach it"
        )


@click.command("usuario-contrasena")
@click.option("--email", required=True, help="The user's e-mail.")
def reset_password(email: str) -> None:
    """A new generated password for a user who lost theirs, shown once; every session and token they had ends."""
    app = create_app()
    with db.command_context(app):
        try:
            user, password = members.reset_password(email)
        except ApiError as exc:
            _refused("password not changed", exc)
        click.echo(f"new password for {user.email}: {password}")
        click.echo(
            f"Hand it to {user.email} yourself, over a safe channel: it is shown only this once. Their sessions and "
            'tokens have ended; they sign in with it and change it with "Cambiar contraseña" in the portal\'s header.'
        )


@click.command("usuario-desactivar")
@click.option("--email", required=True, help="The user's e-mail.")
def deactivate_user(email: str) -> None:
    """Deactivate a user in every company (never a company's last active admin): sign-in and every session and
    token end at once; their memberships are kept for usuario-activar."""
    _set_active(
        email,
        False,
        lambda standing: (
            f"{standing.user.email} is deactivated: they can no longer sign in, and their sessions and "
            f"tokens have ended; recorded in the audit of their {len(standing.company_ids)} companies"
        ),
    )


@click.command("usuario-activar")
@click.option("--email", required=True, help="The user's e-mail.")
def activate_user(email: str) -> None:
    """Make a deactivated user active again, with the companies and roles they had."""
    _set_active(
        email,
        True,
        lambda standing: (
            f"{standing.user.email} is active again, with the companies and roles they had; they sign "
            "in with their password (usuario-contrasena gives them a new one)"
        ),
    )


def _set_active(email: str, active: bool, done: Callable[[members.Standing], str]) -> None:
    app = create_app()
    with db.command_context(app):
        try:
            standing = onboarding.set_user_active(email, active=active)
        except ApiError as exc:
            _refused("not activated" if active else "not deactivated", exc)
        if standing.changed:
            click.echo(done(standing))
        else:
            click.echo(f"{standing.user.email} was already {'active' if active else 'deactivated'}")


COMMANDS = [create_company, add_member, remove_member, reset_password, deactivate_user, activate_user]
