"""Request and response bodies of the company's people (Empresa › Personas), published as OpenAPI by
`operation`. A member is never answered with their password's hash; a new user's one-time password only in
the answer that created them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from portal.domain import roles
from portal.service.identity.members import EMAIL_LENGTH, NAME_LENGTH
from portal.service.platform.paging import Page, PageQuery

Rol = Literal["admin", "soporte", "usuario"]
assert set(get_args(Rol)) == set(roles.ALL)  # the one role vocabulary (portal.domain.roles)


def _one_line(value: str) -> str:
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
        raise ValueError("No puede contener caracteres de control.")
    return value


class MiembroIn(BaseModel):
    """Una persona para agregar a la empresa. Si su correo ya tiene usuario (de otra empresa), se usa ese
    usuario con su nombre y su contraseña; si no, se crea con una contraseña de un solo uso."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [
                {"email": "ana.perez@empresa.com.uy", "nombre": "Ana Pérez", "rol": "usuario"},
                {"email": "contador@estudio.com.uy", "nombre": "Estudio Contable", "rol": "soporte"},
            ]
        },
    )

    email: StrictStr = Field(min_length=3, max_length=EMAIL_LENGTH, description="Correo con el que inicia sesión.")
    nombre: StrictStr = Field(min_length=1, max_length=NAME_LENGTH, description="Nombre y apellido.")
    rol: Rol = Field(description="admin: todo; usuario: emite y consulta; soporte: consulta, no cambia nada.")

    _printable = field_validator("email", "nombre")(_one_line)


class RolIn(BaseModel):
    """El rol nuevo de un miembro."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"rol": "soporte"}]})

    rol: Rol


class MiembroOut(BaseModel):
    """Un miembro de la empresa: quién es, su rol y desde cuándo."""

    id: int = Field(description="Identificador del usuario.")
    email: str
    nombre: str
    rol: Rol
    desde: datetime | None = Field(description="Desde cuándo es miembro; vacío si se agregó antes de registrarlo.")
    activo: bool = Field(description="Falso si el usuario está desactivado: no puede iniciar sesión.")


class MiembroAgregado(MiembroOut):
    """El miembro recién agregado y, si su usuario se creó ahora, su contraseña de un solo uso."""

    usuarioNuevo: bool = Field(description="Verdadero si el usuario se creó con esta solicitud.")  # noqa: N815
    contrasenaTemporal: str | None = Field(  # noqa: N815
        description=(
            "La contraseña del usuario creado ahora, por única vez: el servicio guarda solo su hash. Entréguela "
            "por un medio seguro; la persona la cambia al entrar. Vacía si el usuario ya existía."
        ),
        examples=["kT3v9QmZ2xLw8RpN4sHjYc1a"],
    )


class MiembrosQuery(PageQuery):
    """Una página de los miembros (`cursor`, `limite`)."""


class MiembroList(Page[MiembroOut]):
    """Una página de los miembros de la empresa: primero los administradores, después soporte y usuarios, cada grupo
    por nombre."""
