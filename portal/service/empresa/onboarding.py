"""A company's arrival and its people: creating a company with what it needs to work (its settings row, its
default branch when its address is known, its first admin) and adding or removing members, each in one write
transaction and recorded in the company's audit.

Operators call these from `python -m portal.service empresa-alta / usuario-alta / usuario-baja`; the company's
admins through `empresa.people` (Empresa › Personas), with `principal.company_id` and `principal.actor`. Demo data
(receipts, certificates, CAE ranges) is not made here: the company uploads its own certificate and CAE.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.empresa import DEPARTMENTS
from portal.domain.identifiers import is_valid_rut
from portal.service.empresa import audit
from portal.service.empresa.models import Branch, CompanySettings
from portal.service.identity import members
from portal.service.platform import db
from portal.service.platform.errors import Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.models import Company, Role

OPERATOR = "operador (línea de comandos)"  # the audit's "who" of an operator's command, as envios' report says
NAME_LENGTH = 150  # Company.razon_social, DGI's RznSoc
ADDRESS_LENGTHS = {"domicilio": 70, "ciudad": 30}  # Company.domicilio_fiscal and .ciudad, Branch's too
FIRST_BRANCH_CODE = 1  # DGI gives the head office code 1; an admin changes it in Empresa › Sucursales
FIRST_BRANCH_NAME = "Casa principal"  # as the demo seed names a branch without a name
_SEPARATORS = re.compile(r"[.\- ]")


@dataclass(frozen=True)
class NewCompany:
    """A company as the operator gives it: RUT and name, and its fiscal address (all three parts or none)."""

    rut: str
    razon_social: str
    domicilio: str | None = None
    ciudad: str | None = None
    departamento: str | None = None


@dataclass(frozen=True)
class Created:
    company_id: int
    rut: str
    razon_social: str
    with_branch: bool
    admin: members.Added


def _invalid(field: str, code: str, message: str) -> ValidationFailed:
    return ValidationFailed([FieldError(field, code, message)], message=message)


def checked_rut(raw: str) -> str:
    """A RUT's 12 digits (dots, dashes and spaces dropped) when its check digit is right; 422 on `rut` otherwise."""
    rut = _SEPARATORS.sub("", raw.strip())
    if not is_valid_rut(rut):
        raise _invalid(
            "rut", "rut_invalido", _("El RUT {rut} no es válido (12 dígitos y su dígito verificador).", rut=raw)
        )
    return rut


def checked(data: NewCompany) -> NewCompany:
    """The company with its values trimmed and checked (RUT's check digit, lengths, one of the 19 departments)."""
    name = data.razon_social.strip()
    if not 1 <= len(name) <= NAME_LENGTH:
        raise _invalid(
            "razonSocial",
            "razon_social_invalida",
            _("La razón social va de 1 a {most} caracteres.", most=NAME_LENGTH),
        )
    parts = {"domicilio": data.domicilio, "ciudad": data.ciudad, "departamento": data.departamento}
    given = {key: value.strip() for key, value in parts.items() if value is not None and value.strip()}
    if given and len(given) < len(parts):
        missing = ", ".join(key for key in parts if key not in given)
        raise _invalid(
            missing.split(", ")[0],
            "domicilio_incompleto",
            _("El domicilio fiscal va completo (domicilio, ciudad y departamento); falta: {missing}.", missing=missing),
        )
    for key, most in ADDRESS_LENGTHS.items():
        if key in given and len(given[key]) > most:
            raise _invalid(
                key, "demasiado_largo", _("El campo {field} tiene hasta {most} caracteres.", field=key, most=most)
            )
    if "departamento" in given:
        department = next((d for d in DEPARTMENTS if d.casefold() == given["departamento"].casefold()), None)
        if department is None:
            raise _invalid(
                "departamento",
                "departamento_invalido",
                _("{name} no es un departamento de Uruguay.", name=given["departamento"]),
            )
        given["departamento"] = department
    return NewCompany(checked_rut(data.rut), name, **given)


def _registered(company: Company) -> Conflict:
    return Conflict(
        _("Ya hay una empresa con el RUT {rut}: «{name}».", rut=company.rut, name=company.razon_social),
        code="rut_registrado",
    )


def create_company(data: NewCompany, admin: members.Person, actor: str = OPERATOR) -> Created:
    """Create the company, its settings (the defaults: general regime, IVA al día, A4), its default branch when
    the address is given (without it the home page lists the address as pending and issuing asks for a branch),
    and its first admin; all or nothing. A RUT already registered is a 409 `rut_registrado`."""
    data = checked(data)
    with db.write_transaction() as session:
        existing = session.scalar(select(Company).where(Company.rut == data.rut))
        if existing is not None:
            raise _registered(existing)
        company = Company(
            rut=data.rut,
            razon_social=data.razon_social,
            cdg_dgi_sucursal=FIRST_BRANCH_CODE,
            domicilio_fiscal=data.domicilio or "",
            ciudad=data.ciudad or "",
            departamento=data.departamento or "",
        )
        session.add(company)
        # Two operators at once (PostgreSQL) both find the RUT free: the unique index refuses the second.
        db.flush_unless_taken(
            session, Conflict(_("Ya hay una empresa con el RUT {rut}.", rut=data.rut), code="rut_registrado")
        )
        session.add(CompanySettings(company_id=company.id, regimen="general", iva_al_dia=True, formato_papel="a4"))
        with_branch = data.domicilio is not None
        if with_branch:
            session.add(_first_branch(company))
        audit.record_by(
            session,
            company.id,
            actor,
            "empresa_creada",
            {
                "rut": company.rut,
                "razonSocial": company.razon_social,
                "domicilio": data.domicilio,
                "ciudad": data.ciudad,
                "departamento": data.departamento,
            },
            target=company.razon_social[:120],
        )
        created = Created(
            company.id, data.rut, data.razon_social, with_branch, _add(session, company.id, admin, Role.ADMIN, actor)
        )
    return created


def _first_branch(company: Company) -> Branch:
    return Branch(
        company_id=company.id,
        codigo=FIRST_BRANCH_CODE,
        nombre=FIRST_BRANCH_NAME,
        domicilio=company.domicilio_fiscal,
        ciudad=company.ciudad,
        departamento=company.departamento,
        predeterminada=True,
    )


def company_by_rut(session: Session, rut: str) -> Company:
    """The company with that RUT (separators allowed); 404 `empresa_inexistente` when none is registered."""
    digits = _SEPARATORS.sub("", rut.strip())
    company = session.scalar(select(Company).where(Company.rut == digits))
    if company is None:
        raise NotFound(_("No hay una empresa con el RUT {rut}.", rut=rut.strip()), code="empresa_inexistente")
    return company


def add_member(company_id: int, who: members.Person, role: Role, actor: str = OPERATOR) -> members.Added:
    """Give `who` a role in the company (their user created if new); recorded in the company's audit."""
    with db.write_transaction() as session:
        added = _add(session, company_id, who, role, actor)
    return added


def _add(session: Session, company_id: int, who: members.Person, role: Role, actor: str) -> members.Added:
    added = members.add(session, company_id, who, role)
    changes = {"email": added.email, "rol": added.role, "usuarioNuevo": added.password is not None}
    audit.record_by(session, company_id, actor, "miembro_agregado", changes, target=added.email[:120])
    return added


def remove_member(company_id: int, email: str, actor: str = OPERATOR) -> members.Removed:
    """Take a member out of the company (never its last admin); recorded in the company's audit. Their tokens
    stop working for the company at their next request."""
    with db.write_transaction() as session:
        removed = members.remove(session, company_id, email)
        changes = {"email": removed.email, "rol": removed.role}
        audit.record_by(session, company_id, actor, "miembro_quitado", changes, target=removed.email[:120])
    return removed


def set_user_active(email: str, active: bool, actor: str = OPERATOR) -> members.Standing:
    """Deactivate a user everywhere, or make them active again (members.set_active), recorded in the audit of each
    of their companies, so its admins read who did it and when."""
    standing = members.set_active(email, active)
    if standing.changed:
        action = "usuario_reactivado" if active else "usuario_desactivado"
        for company_id in standing.company_ids:
            changes = {"email": standing.user.email}
            audit.record_by(db.session(), company_id, actor, action, changes, target=standing.user.email[:120])
    db.session().commit()
    return standing


def change_member_role(company_id: int, user_id: int, role: Role, actor: str = OPERATOR) -> members.Member:
    """Give a member another role (never leaving the company without an active admin); recorded in the company's
    audit when it changes. It holds from the member's next request."""
    with db.write_transaction() as session:
        changed, before = members.change_role(session, company_id, user_id, role)
        if before != changed.role:
            changes = {"email": changed.email, "rol": {"antes": before, "despues": changed.role}}
            audit.record_by(session, company_id, actor, "rol_cambiado", changes, target=changed.email[:120])
    return changed
