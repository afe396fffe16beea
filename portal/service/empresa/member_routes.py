"""HTTP endpoints of the company's people (Empresa › Personas): admins list, add, change the role of and remove
the members of their own company. Bearer JWT only; `usuario` and `soporte` get 403, another company's member
is a 404. The company always keeps an active admin."""

from __future__ import annotations

from flask import Response

from portal.domain.roles import ADMINS
from portal.service.empresa import people
from portal.service.empresa.blueprint import AUTH, TAG, bp
from portal.service.empresa.member_schemas import (
    MiembroAgregado,
    MiembroIn,
    MiembroList,
    MiembroOut,
    MiembrosQuery,
    RolIn,
)
from portal.service.platform.api import operation, to_response
from portal.service.platform.auth import Principal

_ID = {"user_id": "Identificador del usuario, como lo da la lista de miembros."}
_NOT_A_MEMBER = "`miembro_inexistente`: esa persona no es miembro de la empresa."
_LAST_ADMIN = "`ultimo_administrador`: es el único administrador activo de la empresa; agregá otro antes."


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


@operation(
    bp,
    "GET",
    "/miembros",
    tag=TAG,
    summary="Listar los miembros de la empresa",
    auth=AUTH,
    roles=ADMINS,
    query=MiembrosQuery,
    responses={200: MiembroList, 422: "`cursor` o `limite` no válidos."},
)
def list_members(principal: Principal, query: MiembrosQuery):
    """Las personas de la empresa con su correo, nombre, rol y desde cuándo son miembros, de a páginas (`cursor` y
    `limite`, como toda lista): primero los administradores, después soporte y usuarios, cada grupo por nombre.
    Nunca datos de su contraseña."""
    return _no_store(to_response(people.list_members(principal, query)))


@operation(
    bp,
    "GET",
    "/miembros/<int:user_id>",
    tag=TAG,
    summary="Ver un miembro",
    auth=AUTH,
    roles=ADMINS,
    responses={200: MiembroOut, 404: _NOT_A_MEMBER},
    path_params=_ID,
)
def get_member(principal: Principal, user_id: int):
    """Una persona de la empresa: su correo, nombre, rol y desde cuándo es miembro."""
    return _no_store(to_response(people.one_member(principal, user_id)))


@operation(
    bp,
    "POST",
    "/miembros",
    tag=TAG,
    summary="Agregar un miembro",
    auth=AUTH,
    roles=ADMINS,
    body=MiembroIn,
    responses={
        201: MiembroAgregado,
        409: "`miembro_existente`: ya es miembro de la empresa; `usuario_desactivado`: su usuario está desactivado.",
        422: "`correo_invalido`, `nombre_invalido`, `rol_invalido` u otro dato no válido.",
    },
)
def add_member(principal: Principal, body: MiembroIn):
    """Da a la persona el rol en la empresa. Si su correo no tiene usuario, lo crea con una contraseña de un
    solo uso que la respuesta trae en `contrasenaTemporal` por única vez (el servicio guarda solo su hash):
    entréguela por un medio seguro y pídale que la cambie. Si ya tiene usuario (de otra empresa), entra con la
    contraseña que ya tiene. Queda en la auditoría."""
    return _no_store(to_response(people.add(principal, body), 201))


@operation(
    bp,
    "PUT",
    "/miembros/<int:user_id>/rol",
    tag=TAG,
    summary="Cambiar el rol de un miembro",
    auth=AUTH,
    roles=ADMINS,
    body=RolIn,
    responses={200: MiembroOut, 404: _NOT_A_MEMBER, 409: _LAST_ADMIN},
    path_params=_ID,
)
def change_member_role(principal: Principal, body: RolIn, user_id: int):
    """Cambia el rol; vale desde la solicitud siguiente del miembro. El último administrador activo no puede
    dejar de serlo (tampoco por su propia mano). Queda en la auditoría."""
    return people.change_role(principal, user_id, body)


@operation(
    bp,
    "DELETE",
    "/miembros/<int:user_id>",
    tag=TAG,
    summary="Quitar un miembro",
    auth=AUTH,
    roles=ADMINS,
    responses={204: None, 404: _NOT_A_MEMBER, 409: _LAST_ADMIN},
    path_params=_ID,
)
def remove_member(principal: Principal, user_id: int):
    """Quita a la persona de la empresa: sus sesiones y tokens dejan de valer para ella en el acto. Su usuario
    sigue existiendo (puede ser miembro de otras empresas). Un administrador puede quitarse a sí mismo solo si
    queda otro. Queda en la auditoría."""
    people.remove(principal, user_id)
    return Response(status=204)
