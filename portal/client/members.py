"""Client methods of the company's people (Empresa › Personas, admins only), and their typed results. Field
errors name the service's fields: email, nombre, rol."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from portal.client.models import JsonObject, optional_datetime
from portal.client.pages import Page, page_params
from portal.client.transport import Transport

BASE = "/api/v1/empresa/miembros"


@dataclass(frozen=True)
class Member:
    """A member of the company: who, their role (admin | usuario | soporte) and since when (None: not recorded)."""

    user_id: int
    email: str
    name: str
    role: str
    since: datetime | None
    active: bool

    @classmethod
    def from_json(cls, data: JsonObject) -> Member:
        return cls(
            user_id=int(data["id"]),
            email=data["email"],
            name=data["nombre"],
            role=data["rol"],
            since=optional_datetime(data.get("desde")),
            active=bool(data["activo"]),
        )


@dataclass(frozen=True)
class AddedMember:
    """A member just added. `one_time_password` is the password of a user created now, which the service answers
    this once and never again; None when the person had a user already."""

    member: Member
    new_user: bool
    one_time_password: str | None = field(repr=False)  # a stray log line or traceback must not carry it

    @classmethod
    def from_json(cls, data: JsonObject) -> AddedMember:
        return cls(
            member=Member.from_json(data),
            new_user=bool(data["usuarioNuevo"]),
            one_time_password=data.get("contrasenaTemporal"),
        )


class MembersApi(Transport):
    """The company's people (one method per endpoint). Bearer JWT, admins of the current company only."""

    def list_members(self, *, cursor: str | None = None, limit: int | None = None) -> Page[Member]:
        """A page of the company's members, admins first, then soporte and usuarios, each by name (ValidationError
        on `cursor` for a cursor the list did not make)."""
        return Page.from_json(self._json("GET", BASE, params=page_params(cursor, limit)), Member.from_json)

    def get_member(self, user_id: int) -> Member:
        """One member of the company; NotFound for anyone else (another company's member too)."""
        return Member.from_json(self._json("GET", f"{BASE}/{int(user_id)}"))

    def add_member(self, email: str, name: str, role: str) -> AddedMember:
        """Give the person the role (their user created with a one-time password if new). Conflict when they are a
        member already (`miembro_existente`) or their user is deactivated (`usuario_desactivado`)."""
        return AddedMember.from_json(self._json("POST", BASE, json={"email": email, "nombre": name, "rol": role}))

    def change_member_role(self, user_id: int, role: str) -> Member:
        """Conflict `ultimo_administrador` when it would leave the company without an active admin."""
        return Member.from_json(self._json("PUT", f"{BASE}/{int(user_id)}/rol", json={"rol": role}))

    def remove_member(self, user_id: int) -> None:
        """Take the member out; their tokens stop reaching the company at once. Conflict `ultimo_administrador`
        for the last active admin; NotFound for anyone not a member of the company."""
        self._request("DELETE", f"{BASE}/{int(user_id)}")
