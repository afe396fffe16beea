"""Request and response bodies of the Empresa API Key endpoints (published as OpenAPI by `operation`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from portal.service.platform.jsontypes import WHOLE_NUMBER
from portal.service.platform.paging import Page

MAX_LIMIT = 100_000
MAX_WINDOW_SECONDS = 86_400
DEFAULT_LIMIT = 600
DEFAULT_WINDOW_SECONDS = 60

Limit = Annotated[StrictInt, Field(ge=1, le=MAX_LIMIT, description="Solicitudes permitidas por ventana."), WHOLE_NUMBER]
Window = Annotated[
    StrictInt, Field(ge=1, le=MAX_WINDOW_SECONDS, description="Largo de la ventana, en segundos."), WHOLE_NUMBER
]


class RateLimit(BaseModel):
    """Límite de solicitudes de una clave: `limite` solicitudes cada `ventanaSegundos` (ventana móvil)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"limite": 600, "ventanaSegundos": 60}, {"limite": 3, "ventanaSegundos": 60}]},
    )

    limite: Limit
    ventanaSegundos: Window  # noqa: N815 - the API's field names are lower camel case

    def as_dict(self) -> dict[str, int]:
        return {"limite": self.limite, "ventanaSegundos": self.ventanaSegundos}


class ApiKeyCreate(BaseModel):
    """Una clave nueva: un nombre para reconocerla y, si se quiere, su límite (600 por 60 s si no)."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [
                {"nombre": "ERP de facturación"},
                {"nombre": "Tienda web", "rateLimit": {"limite": 120, "ventanaSegundos": 60}},
            ]
        },
    )

    nombre: StrictStr = Field(min_length=1, max_length=80, description="Para reconocer la clave en la lista.")
    rateLimit: RateLimit | None = None  # noqa: N815

    @field_validator("nombre")
    @classmethod
    def _printable(cls, value: str) -> str:
        if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
            raise ValueError("No puede contener caracteres de control.")
        return value


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class Usage(_Out):
    """Uso de la ventana actual del límite de la clave."""

    usados: int = Field(description="Solicitudes contadas en la ventana actual.")
    restantes: int = Field(description="Solicitudes que quedan antes de recibir 429.")
    reiniciaEn: datetime = Field(  # noqa: N815
        description="Cuándo se libera la solicitud más antigua de la ventana (ahora, si no hay ninguna)."
    )


class ApiKeyEventOut(_Out):
    """Una creación, revocación o cambio de límite: quién, cuándo, el valor anterior y el nuevo."""

    accion: Literal["crear", "revocar", "rate-limit"]
    actor: str
    fecha: datetime
    anterior: dict[str, Any] | None = None
    nuevo: dict[str, Any] | None = None


class ApiKeyOut(_Out):
    """Una clave de API de la empresa. La clave completa no se muestra nunca, salvo al crearla."""

    id: str = Field(description="Identificador público de la clave (no es secreto).", examples=["ak_3kTz9QpWm2Lx"])
    prefijo: str = Field(
        description="Primeros caracteres de la clave, para reconocerla.", examples=["cfe_live_Xy7Pq3a"]
    )
    nombre: str
    estado: Literal["activa", "revocada"]
    creadaEn: datetime  # noqa: N815
    creadaPor: str  # noqa: N815
    ultimoUso: datetime | None = Field(default=None, description="Se actualiza a lo sumo una vez por minuto.")  # noqa: N815
    revocadaEn: datetime | None = None  # noqa: N815
    revocadaPor: str | None = None  # noqa: N815
    rateLimit: RateLimit  # noqa: N815
    uso: Usage | None = Field(default=None, description="Ausente si el almacenamiento de límites no responde.")
    eventos: list[ApiKeyEventOut] = Field(
        default_factory=list, description="Historial, del más reciente al más antiguo."
    )


class ApiKeyCreated(ApiKeyOut):
    """La clave recién creada, con `clave`: el único momento en que se muestra completa."""

    clave: str = Field(
        description="La clave completa. Guárdela ahora: no se vuelve a mostrar.",
        examples=["cfe_live_Xy7Pq3aV0c2m9Tq4cJ1nX8rB6wLzD5fHkA3sE0uYiOg"],
    )


class ApiKeyList(Page[ApiKeyOut]):
    """Las claves de la empresa (activas y revocadas), de la más nueva a la más vieja."""
