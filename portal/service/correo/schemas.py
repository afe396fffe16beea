"""Request and response bodies of the Correo endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from portal.service.cfe.xmlchars import NOT_BLANK
from portal.service.comprobante.tracking_schemas import EnvioCorreo

MAX_RECIPIENTS = 10

Address = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=254, pattern=NOT_BLANK)]


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class EnviarCorreo(BaseModel):
    """Send a receipt (PDF and signed XML) by e-mail."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        json_schema_extra={"examples": [{"destinatarios": ["compras@cliente.com.uy", "contaduria@cliente.com.uy"]}]},
    )

    # No body: the last recipients (api.body_required).
    BODY_MAY_BE_LEFT_OUT: ClassVar[bool] = True

    destinatarios: list[Address] = Field(
        default_factory=list,
        max_length=MAX_RECIPIENTS,
        description=f"Hasta {MAX_RECIPIENTS} direcciones. Si se omite, se usan las del último envío de este "
        "comprobante o de otro del mismo cliente.",
    )


class EnviosCorreo(_Out):
    """The sends of a receipt (newest first) and the addresses to suggest for the next one."""

    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    sugeridos: list[str] = Field(description="Las direcciones del último envío a este cliente.")
    buzon_desarrollo: bool = Field(
        alias="buzonDesarrollo",
        description="Verdadero cuando no hay servidor SMTP configurado y los correos quedan en el buzón de desarrollo.",
    )
    envios: list[EnvioCorreo]


class AdjuntoBuzon(_Out):
    nombre: str
    tipo: str
    bytes: int


class MensajeBuzon(_Out):
    id: str
    de: str
    para: str
    asunto: str
    fecha: datetime | None
    adjuntos: list[AdjuntoBuzon]


class MensajeBuzonCompleto(MensajeBuzon):
    texto: str


class Buzon(_Out):
    """The development mailbox of the company, newest first."""

    items: list[MensajeBuzon]


class PlantillaCorreo(BaseModel):
    """The subject and text of the e-mail that carries a receipt, with placeholders such as {comprobante}."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "asunto": "{comprobante} de {empresa}",
                    "cuerpo": "{saludo}\n\nLe enviamos el comprobante {comprobante} por {total}.\n\n{empresa}",
                }
            ]
        },
    )

    asunto: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")
    ]
    cuerpo: Annotated[
        str, StringConstraints(min_length=1, max_length=4000, pattern=r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$")
    ]


class PlantillaCorreoVigente(_Out):
    """The template in use: the company's own, or the product's default (`propia` false)."""

    asunto: str
    cuerpo: str
    propia: bool
    variables: dict[str, str] = Field(description="Cada marcador que se puede usar, entre llaves, y qué pone.")
