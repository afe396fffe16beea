"""Operator commands that bring a company and its people in and out: `empresa-alta`, `usuario-alta`, `usuario-baja`,
`usuario-contrasena`, `usuario-desactivar` and `usuario-activar`.

A company made by the command works at once: its admin signs in through the real provider with the password the
command printed and reads the company's summary; a refused command leaves nothing behind; a removed member's
token stops reaching the company at its next request."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from portal.service.empresa import commands, onboarding
from portal.service.empresa.models import AuditEvent, Branch, CompanySettings
from portal.service.platform import db
from portal.service.platform.errors import ApiError
from portal.service.platform.models import Company, Membership, User
from tests.support.html import soup
from tests.support.oidc import authorize_path, provider_tokens, sign_in_at_provider

NEW_RUT = "215555550010"  # valid check digit, not a demo company
DEMO_RUT, NORTE_RUT = "219999830019", "211003420017"
ALTA = ["--rut", NEW_RUT, "--razon-social", "Nueva Empresa S.A.", "--admin", "duena@nueva.uy"]
ADDRESS = ["--domicilio", "Rincón 500", "--ciudad", "Montevideo", "--departamento", "montevideo"]


@pytest.fixture
def run(service_app, monkeypatch):
    """run(command, *args) -> click's Result, the command run against the test's database."""
    monkeypatch.setattr(commands, "create_app", lambda: service_app)
    runner = CliRunner()
    return lambda command, *args: runner.invoke(command, list(args))


def _access_token(api_client, service_app, email: str, password: str) -> str:
    return provider_tokens(api_client, service_app, email, password)["access_token"]


def _password(output: str) -> str:
    passwords = re.findall(r"password: (\S+)", output)
    assert len(passwords) == 1, output
    return passwords[0]


def _counts(service_app) -> dict[str, int]:
    with service_app.app_context():
        session = db.new_session()
        try:
            return {
                model.__name__: session.scalar(select(func.count()).select_from(model))
                for model in (Company, User, Membership, CompanySettings, Branch, AuditEvent)
            }
        finally:
            session.close()


def _company_id(service_app, rut: str) -> int | None:
    with service_app.app_context():
        return db.session().scalar(select(Company.id).where(Company.rut == rut))


def test_a_new_company_s_admin_signs_in_with_the_printed_password_and_reads_its_summary(run, api_client, service_app):
    answer = run(commands.create_company, *ALTA, "--admin-nombre", "Dora Dueña", *ADDRESS)
    assert answer.exit_code == 0, answer.output
    assert f"RUT {NEW_RUT}" in answer.output and "shown only this once" in answer.output
    password = _password(answer.output)
    assert len(password) >= 24
    company_id = _company_id(service_app, NEW_RUT)

    token = _access_token(api_client, service_app, "duena@nueva.uy", password)
    headers = {"Authorization": f"Bearer {token}", "X-Empresa-Id": str(company_id)}
    summary = api_client.get("/api/v1/empresa/resumen", headers=headers)
    assert summary.status_code == 200, summary.json
    # Its address came with it; what only the company can bring (certificate, CAE, DGI's legend) is pending.
    assert set(summary.json["pendientes"]) == {"sin_certificado", "sin_cae", "sin_resolucion_ni_fecha_emisor"}
    branches = api_client.get("/api/v1/empresa/sucursales", headers=headers).json["items"]
    assert [(b["codigo"], b["domicilio"], b["departamento"], b["predeterminada"]) for b in branches] == [
        (1, "Rincón 500", "Montevideo", True)
    ]
    settings = api_client.get("/api/v1/empresa/configuracion", headers=headers).json
    assert (settings["rut"], settings["razonSocial"], settings["regimen"]) == (NEW_RUT, "Nueva Empresa S.A.", "general")
    assert api_client.get("/api/v1/comprobante/buscar", headers=headers).status_code == 200
    assert api_client.get("/api/v1/empresa/salud", headers=headers).status_code == 200
    audit = api_client.get("/api/v1/empresa/auditoria", headers=headers).json["items"]
    assert [(e["accion"], e["actor"]) for e in audit] == [
        ("miembro_agregado", onboarding.OPERATOR),
        ("empresa_creada", onboarding.OPERATOR),
    ]
    assert audit[0]["cambios"] == {"email": "duena@nueva.uy", "rol": "admin", "usuarioNuevo": True}
    assert password not in str(audit)


def test_a_company_without_address_has_no_branch_and_lists_the_address_as_pending(run, api_client, auth_headers):
    answer = run(commands.create_company, *ALTA[:4], "--admin", "admin@demo.uy", "--admin-nombre", "Ana")
    assert answer.exit_code == 0, answer.output
    assert "password:" not in answer.output and "already had a user" in answer.output
    assert "Empresa › Sucursales" in answer.output
    company_id = _company_id(api_client.application, NEW_RUT)
    headers = auth_headers("admin@demo.uy", company_id)
    summary = api_client.get("/api/v1/empresa/resumen", headers=headers)
    assert summary.status_code == 200 and "sin_domicilio" in summary.json["pendientes"]
    assert api_client.get("/api/v1/empresa/sucursales", headers=headers).json["items"] == []
    # The existing user kept their password and their other companies.
    assert {c["rut"] for c in api_client.get("/oauth/userinfo", headers=headers).json["empresas"]} >= {
        DEMO_RUT,
        NORTE_RUT,
        NEW_RUT,
    }


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--rut", DEMO_RUT, "--razon-social", "Otra", "--admin", "nuevo@x.uy"], "Ya hay una empresa con el RUT"),
        (["--rut", "215555550011", "--razon-social", "Otra", "--admin", "nuevo@x.uy"], "no es válido"),
        (["--rut", NEW_RUT, "--razon-social", "Otra", "--admin", "no-es-correo"], "correo no es válida"),
        ([*ALTA, "--domicilio", "Rincón 500"], "falta: ciudad, departamento"),
        ([*ALTA, *ADDRESS[:4], "--departamento", "Buenos Aires"], "no es un departamento"),
    ],
)
def test_a_refused_company_leaves_nothing_behind(run, service_app, args, says):
    before = _counts(service_app)
    answer = run(commands.create_company, *args, "--admin-nombre", "Nadie")
    assert answer.exit_code == 1, answer.output
    assert says in answer.output and "company not created" in answer.output
    assert "password:" not in answer.output
    assert _counts(service_app) == before


def test_a_failure_after_the_company_row_undoes_all_of_it(run, service_app, monkeypatch):
    """One transaction: the admin step failing takes the company, its settings, branch and user with it."""
    before = _counts(service_app)

    def refuse(*_args, **_kwargs):
        raise ApiError("no", code="prueba")

    monkeypatch.setattr(onboarding.members, "add", refuse)
    answer = run(commands.create_company, *ALTA, "--admin-nombre", "Dora", *ADDRESS)
    assert answer.exit_code == 1 and "password:" not in answer.output
    assert _counts(service_app) == before


def test_usuario_alta_adds_a_new_user_who_signs_in_and_reaches_the_company(run, api_client, service_app):
    answer = run(
        commands.add_member, "--empresa", NORTE_RUT, "--email", "Vera@Norte.uy", "--nombre", "Vera", "--rol", "soporte"
    )
    assert answer.exit_code == 0, answer.output
    assert "vera@norte.uy is now soporte" in answer.output
    token = _access_token(api_client, service_app, "vera@norte.uy", _password(answer.output))
    headers = {"Authorization": f"Bearer {token}"}  # her one company: no X-Empresa-Id needed
    assert api_client.get("/api/v1/empresa/auditoria", headers=headers).status_code == 200  # soporte reads it
    assert api_client.put("/api/v1/empresa/configuracion", headers=headers, json={}).status_code == 403


def test_usuario_alta_refuses_a_second_membership_an_unknown_company_and_a_bad_role(run, service_app):
    before = _counts(service_app)
    again = run(
        commands.add_member, "--empresa", DEMO_RUT, "--email", "usuario@demo.uy", "--nombre", "U", "--rol", "admin"
    )
    assert again.exit_code == 1 and "ya es miembro de la empresa, con el rol usuario" in again.output
    unknown = run(commands.add_member, "--empresa", NEW_RUT, "--email", "x@y.uy", "--nombre", "X", "--rol", "usuario")
    assert unknown.exit_code == 1 and f"No hay una empresa con el RUT {NEW_RUT}" in unknown.output
    role = run(commands.add_member, "--empresa", DEMO_RUT, "--email", "x@y.uy", "--nombre", "X", "--rol", "jefe")
    assert role.exit_code == 2
    with service_app.app_context(), db.write_transaction() as session:
        session.scalars(select(User).where(User.email == "soporte@demo.uy")).one().active = False
    inactive = run(
        commands.add_member, "--empresa", NORTE_RUT, "--email", "soporte@demo.uy", "--nombre", "S", "--rol", "admin"
    )
    assert inactive.exit_code == 1 and "está desactivado" in inactive.output
    assert _counts(service_app) == before


def test_a_removed_member_s_token_is_refused_at_once(run, api_client, auth_headers, service_app):
    headers = auth_headers("usuario@demo.uy")  # minted before the removal, used after it
    assert api_client.get("/api/v1/empresa/resumen", headers=headers).status_code == 200
    answer = run(commands.remove_member, "--empresa", DEMO_RUT, "--email", "USUARIO@demo.uy")
    assert answer.exit_code == 0, answer.output
    refused = api_client.get("/api/v1/empresa/resumen", headers=headers)
    assert refused.status_code == 403 and refused.json["error"]["code"] == "sin_empresa"
    refused = api_client.get("/api/v1/empresa/resumen", headers={**headers, "X-Empresa-Id": "1"})
    assert refused.status_code == 403
    admin = auth_headers("admin@demo.uy", 1)
    last = api_client.get("/api/v1/empresa/auditoria", headers=admin).json["items"][0]
    assert (last["accion"], last["cambios"]) == ("miembro_quitado", {"email": "usuario@demo.uy", "rol": "usuario"})


def test_the_last_admin_stays_and_a_stranger_cannot_be_removed(run, api_client, auth_headers, service_app):
    before = _counts(service_app)
    last = run(commands.remove_member, "--empresa", NORTE_RUT, "--email", "admin@demo.uy")
    assert last.exit_code == 1 and "único administrador" in last.output
    stranger = run(commands.remove_member, "--empresa", NORTE_RUT, "--email", "usuario@demo.uy")
    assert stranger.exit_code == 1 and "no es miembro" in stranger.output
    assert _counts(service_app) == before
    headers = auth_headers("admin@demo.uy", 2)
    assert api_client.get("/api/v1/empresa/resumen", headers=headers).status_code == 200
    # With a second admin, the first may go.
    added = run(
        commands.add_member, "--empresa", NORTE_RUT, "--email", "soporte@demo.uy", "--nombre", "S", "--rol", "admin"
    )
    assert added.exit_code == 0 and "password:" not in added.output
    assert run(commands.remove_member, "--empresa", NORTE_RUT, "--email", "admin@demo.uy").exit_code == 0
    assert api_client.get("/api/v1/empresa/resumen", headers=headers).status_code == 403


def test_a_removed_member_s_portal_session_stops_reaching_the_company_and_admins_read_why(
    signed_in, live_service, monkeypatch
):
    monkeypatch.setattr(commands, "create_app", lambda: live_service.app)
    member = signed_in("usuario@demo.uy")
    assert member.get("/comprobantes/").status_code == 200
    answer = CliRunner().invoke(commands.remove_member, ["--empresa", DEMO_RUT, "--email", "usuario@demo.uy"])
    assert answer.exit_code == 0, answer.output
    assert member.get("/comprobantes/").status_code == 403  # the service refuses the company at its next request
    audit = soup(signed_in("admin@demo.uy").get("/empresa/auditoria")).find(attrs={"data-testid": "audit"})
    text = audit.get_text(" ", strip=True)
    assert "Quitó a una persona de la empresa" in text and "usuario@demo.uy" in text


def test_a_lost_password_is_replaced_and_every_session_and_token_of_the_user_ends(run, api_client, service_app):
    """usuario-contrasena: the new password (shown once) signs in, the old one no longer does, and a token the
    user had before stops working at once."""
    before = _access_token(api_client, service_app, "usuario@demo.uy", "demo-password")
    answer = run(commands.reset_password, "--email", "USUARIO@demo.uy")
    assert answer.exit_code == 0, answer.output
    new = re.findall(r"new password for usuario@demo.uy: (\S+)", answer.output)
    assert len(new) == 1 and "Cambiar contraseña" in answer.output, answer.output
    assert api_client.get("/api/v1/empresa/resumen", headers={"Authorization": f"Bearer {before}"}).status_code == 401
    after = _access_token(api_client, service_app, "usuario@demo.uy", new[0])
    assert api_client.get("/api/v1/empresa/resumen", headers={"Authorization": f"Bearer {after}"}).status_code == 200
    with service_app.app_context():
        stored = db.session().scalar(select(User.password_hash).where(User.email == "usuario@demo.uy"))
        assert stored is not None and new[0] not in stored
    unknown = run(commands.reset_password, "--email", "nadie@demo.uy")
    assert unknown.exit_code == 1 and "No hay un usuario" in unknown.output


def _audit_actions(api_client, auth_headers, company_id: int) -> list[tuple[str, dict]]:
    admin = auth_headers("admin@demo.uy", company_id)
    return [
        (e["accion"], e["cambios"]) for e in api_client.get("/api/v1/empresa/auditoria", headers=admin).json["items"]
    ]


def test_a_deactivated_user_cannot_sign_in_their_tokens_end_and_activating_gives_their_companies_back(
    run, api_client, auth_headers, service_app
):
    """usuario-desactivar: no password or token of theirs reaches anything, everywhere at once, and the company's
    audit says so; usuario-activar: the same password signs in again, to the same company and role."""
    before = _access_token(api_client, service_app, "usuario@demo.uy", "demo-password")
    answer = run(commands.deactivate_user, "--email", "Usuario@demo.uy")
    assert answer.exit_code == 0 and "usuario@demo.uy is deactivated" in answer.output, answer.output
    assert api_client.get("/api/v1/empresa/resumen", headers={"Authorization": f"Bearer {before}"}).status_code == 401
    refused = sign_in_at_provider(api_client, authorize_path()[0], "usuario@demo.uy", "demo-password")
    assert refused.status_code == 422 and "location" not in refused.headers  # the form again, no code
    assert _audit_actions(api_client, auth_headers, 1)[0] == ("usuario_desactivado", {"email": "usuario@demo.uy"})
    people = api_client.get("/api/v1/empresa/miembros", headers=auth_headers("admin@demo.uy", 1)).json
    assert {m["email"]: m["activo"] for m in people["items"]}["usuario@demo.uy"] is False
    again = run(commands.deactivate_user, "--email", "usuario@demo.uy")
    assert again.exit_code == 0 and "already deactivated" in again.output
    assert [a for a, _ in _audit_actions(api_client, auth_headers, 1)].count("usuario_desactivado") == 1

    back = run(commands.activate_user, "--email", "usuario@demo.uy")
    assert back.exit_code == 0 and "active again" in back.output, back.output
    after = _access_token(api_client, service_app, "usuario@demo.uy", "demo-password")
    summary = api_client.get("/api/v1/empresa/resumen", headers={"Authorization": f"Bearer {after}"})
    assert summary.status_code == 200
    assert _audit_actions(api_client, auth_headers, 1)[0] == ("usuario_reactivado", {"email": "usuario@demo.uy"})


def test_a_company_s_last_active_admin_is_not_deactivated_and_an_unknown_user_is_said(
    run, api_client, auth_headers, service_app
):
    before = _counts(service_app)
    last = run(commands.deactivate_user, "--email", "admin@demo.uy")  # both demo companies' only admin
    assert last.exit_code == 1 and "único administrador activo de Demo S.A." in last.output, last.output
    assert api_client.get("/api/v1/empresa/resumen", headers=auth_headers("admin@demo.uy", 2)).status_code == 200
    unknown = run(commands.deactivate_user, "--email", "nadie@demo.uy")
    assert unknown.exit_code == 1 and "No hay un usuario" in unknown.output
    assert _counts(service_app) == before


def test_admins_read_a_deactivation_in_the_audit_and_the_people_list(signed_in, live_service, monkeypatch):
    monkeypatch.setattr(commands, "create_app", lambda: live_service.app)
    answer = CliRunner().invoke(commands.deactivate_user, ["--email", "usuario@demo.uy"])
    assert answer.exit_code == 0, answer.output
    admin = signed_in("admin@demo.uy")
    audit = soup(admin.get("/empresa/auditoria")).find(attrs={"data-testid": "audit"}).get_text(" ", strip=True)
    assert "Desactivó a una persona en todas sus empresas" in audit and "usuario@demo.uy" in audit
    row = next(tr for tr in soup(admin.get("/empresa/personas")).find_all("tr") if "usuario@demo.uy" in tr.get_text())
    assert "Desactivado" in row.get_text()
