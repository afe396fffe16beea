"""The signed-in user's own settings (theirs, not a company's): the language the service writes to them in."""

from __future__ import annotations

from typing import Literal

from flask import Blueprint, Response
from pydantic import BaseModel, ConfigDict, Field

from portal.domain.roles import ALL
from portal.service.platform import db
from portal.service.platform.api import operation
from portal.service.platform.auth import JWT, Principal
from portal.service.platform.models import User

bp = Blueprint("cuenta", __name__, url_prefix="/api/v1/usuario")


class CambioIdioma(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"idioma": "en"}]})

    idioma: Literal["es", "en"] = Field(
        description=(
            "El idioma en que el servicio le escribe al usuario (los correos a los administradores de una empresa) "
            "y el claim `locale`: es (español del Uruguay) o en (inglés). El inicio de sesión lo fija también."
        )
    )


@operation(
    bp,
    "PUT",
    "/idioma",
    tag="Usuario",
    summary="Cambiar el idioma del usuario",
    body=CambioIdioma,
    responses={204: "Guardado."},
    auth=(JWT,),
    roles=ALL,
)
def cambiar_idioma(principal: Principal, body: CambioIdioma):
    """El idioma del usuario del token, el que eligió en el portal: el de los correos que el servicio le envía
    desde ahora, hasta que lo cambie o inicie sesión en otro idioma."""
    with db.write_transaction() as session:
        user = session.get(User, principal.user_id)
        if user is not None:  # the token's user: authenticate() checked that it is still active
            user.locale = body.idioma
    return Response(status=204)
