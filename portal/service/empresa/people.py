"""The company's people as its admins manage them (Empresa › Personas): always the caller's company, the work
done by `identity.members` (who a member is, the last admin kept) and `empresa.onboarding` (one write
transaction each, recorded in the audit with the admin as who)."""

from __future__ import annotations

from portal.service.empresa import onboarding
from portal.service.empresa.member_schemas import (
    MiembroAgregado,
    MiembroIn,
    MiembroList,
    MiembroOut,
    MiembrosQuery,
    RolIn,
)
from portal.service.identity import members
from portal.service.platform import db
from portal.service.platform.auth import Principal


def _out(member: members.Member) -> MiembroOut:
    return MiembroOut(
        id=member.user_id,
        email=member.email,
        nombre=member.name,
        rol=member.role,  # type: ignore[arg-type]  # a Role's value, one of Rol
        desde=member.since,
        activo=member.active,
    )


def list_members(principal: Principal, query: MiembrosQuery) -> MiembroList:
    """A page of the caller's company's members (422 on `cursor` for one this list did not make)."""
    found, following = members.list_members(db.session(), principal.company_id, query.cursor, query.limite)
    return MiembroList(items=[_out(m) for m in found], siguiente_cursor=following)


def one_member(principal: Principal, user_id: int) -> MiembroOut:
    """A member of the caller's company (404 `miembro_inexistente` for anyone else)."""
    return _out(members.member(db.session(), principal.company_id, user_id))


def add(principal: Principal, body: MiembroIn) -> MiembroAgregado:
    """Add the person (their user created with a one-time password if new); the password is in this answer alone."""
    who = members.person(db.session(), body.email, body.nombre)  # hashed before the write transaction
    added = onboarding.add_member(principal.company_id, who, members.role_of(body.rol), principal.actor)
    member = members.member(db.session(), principal.company_id, added.user_id)
    return MiembroAgregado(
        **_out(member).model_dump(), usuarioNuevo=added.password is not None, contrasenaTemporal=added.password
    )


def change_role(principal: Principal, user_id: int, body: RolIn) -> MiembroOut:
    changed = onboarding.change_member_role(principal.company_id, user_id, members.role_of(body.rol), principal.actor)
    return _out(changed)


def remove(principal: Principal, user_id: int) -> None:
    """Take a member out (404 for anyone not in the caller's company); their tokens stop at their next request."""
    member = members.member(db.session(), principal.company_id, user_id)
    onboarding.remove_member(principal.company_id, member.email, principal.actor)
