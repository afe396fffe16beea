"""Request and response bodies of the webhooks endpoints (published as OpenAPI by `operation`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from pydantic.json_schema import JsonDict

from portal.service.eventos.catalogue import SUBSCRIBABLE
from portal.service.platform.jsontypes import WHOLE_NUMBER
from portal.service.platform.pydantic_errors import refuse
from portal.service.webhooks.guard import SCHEME_MESSAGE

EventName = Literal[SUBSCRIBABLE]  # type: ignore[valid-type]


def _http_first(value: object) -> object:
    """A URL of another scheme ("ftp://x") is refused for its scheme before any other rule of the field: that
    is what the person has to change (a length rule would say "al menos 8 caracteres" instead)."""
    if isinstance(value, str) and not value.strip().lower().startswith(("http://", "https://")):
        raise refuse("url_esquema", SCHEME_MESSAGE)
    return value


# http(s), no spaces (a URL has none): the pattern states what the guard (guard.py) checks first, and implies the
# shortest URL there is ("http://a"); the text is stripped before the pattern is checked. \x85 (NEL) is named: the
# server's regex counts it as a space, the document's (ECMA-262) does not.
Url = Annotated[
    StrictStr,
    Field(
        max_length=2000,
        pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://[^\s\x85]+$",
        description="URL http(s) que recibe los eventos.",
    ),
    BeforeValidator(_http_first),
]
Events = Annotated[
    list[EventName], Field(min_length=1, max_length=len(SUBSCRIBABLE), description="Eventos que escucha.")
]
Description = Annotated[StrictStr, Field(max_length=200, description="Para reconocerlo en la lista.")]
_EXAMPLE: JsonDict = {
    "url": "https://erp.ejemplo.com.uy/webhooks/cfe",
    "eventos": ["comprobante.aceptado", "comprobante.rechazado"],
    "descripcion": "ERP",
}


class WebhookCreate(BaseModel):
    """Un webhook nuevo: la URL y los eventos que escucha."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, json_schema_extra={"examples": [_EXAMPLE]})

    url: Url
    eventos: Events
    descripcion: Description = ""


class WebhookReplace(WebhookCreate):
    """El webhook entero (PUT): URL, eventos, descripción y si está activo."""

    model_config = ConfigDict(
        extra="forbid", str_strip_whitespace=True, json_schema_extra={"examples": [{**_EXAMPLE, "activo": True}]}
    )

    activo: StrictBool = True


class WebhookChange(BaseModel):
    """Lo que cambia de un webhook (PATCH); `activo: true` vuelve a activar uno desactivado."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={"examples": [{"eventos": ["comprobante.emitido"]}, {"activo": True}]},
    )

    url: Url | None = None
    eventos: Events | None = None
    descripcion: Description | None = None
    activo: StrictBool | None = None


class SecretRotation(BaseModel):
    """Cuántas horas sigue firmando también el secreto anterior (0: deja de valer ya)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"solapamientoHoras": 24}]})

    solapamientoHoras: Annotated[StrictInt, Field(ge=0, le=168), WHOLE_NUMBER] = 24  # noqa: N815


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class WebhookOut(_Out):
    """Un webhook (sin su secreto: se muestra una sola vez, al crearlo o rotarlo)."""

    id: str = Field(description="Identificador (`we_...`).")
    url: str
    eventos: list[str]
    descripcion: str
    activo: bool
    motivoDesactivado: str | None = None  # noqa: N815
    desactivadoEn: datetime | None = None  # noqa: N815
    fallandoDesde: datetime | None = None  # noqa: N815
    ultimaEntregaOk: datetime | None = None  # noqa: N815
    secretoAnteriorHasta: datetime | None = None  # noqa: N815
    creado: datetime


class WebhookCreated(WebhookOut):
    """El webhook creado y su secreto de firma (`whsec_...`), por única vez."""

    secreto: str


class SecretRotated(_Out):
    """El secreto nuevo, por única vez; el anterior firma también hasta `secretoAnteriorHasta`."""

    id: str
    secreto: str
    secretoAnteriorHasta: datetime | None = None  # noqa: N815


class WebhookList(_Out):
    items: list[WebhookOut]


class TestSent(_Out):
    """El evento de prueba quedó en cola; su intento aparece en las entregas."""

    idEvento: str  # noqa: N815
    idEntrega: int  # noqa: N815


class AttemptOut(_Out):
    id: int
    idEntrega: int  # noqa: N815
    idEvento: str  # noqa: N815
    tipo: str
    momento: datetime
    duracionMs: int  # noqa: N815
    estadoHttp: int | None = None  # noqa: N815
    ok: bool
    error: str | None = None
    respuesta: str | None = Field(None, description="Los primeros 500 caracteres de la respuesta.")
    estadoEntrega: str = Field(description="pendiente (se reintentará), entregada o fallida.")  # noqa: N815


class AttemptPage(_Out):
    items: list[AttemptOut]
    siguienteCursor: str | None  # noqa: N815


class AttemptQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limite: int = Field(20, ge=1, le=100, description="Intentos por página (20 si no se indica, hasta 100).")
    cursor: str | None = Field(None, pattern=r"^[0-9]{1,18}$", description="El siguienteCursor de la página anterior.")
