"""Bodies of the compliance watch and notification centre endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from portal.service.salud.concerns import State


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class ConcernOut(_Out):
    clave: str = Field(description="Identifica la preocupación en la empresa: certificado, cae:<id>, reporte_diario...")
    tipo: str = Field(
        description="certificado, cae, reporte_diario, dgi_demorados, sobres_rechazados, intercambio_directorio, "
        "intercambio_buzon o intercambio_correos (correos del buzón que no se recibieron en los últimos 7 días)."
    )
    estado: State
    mensaje: str = Field(description="Qué pasa, en una frase.")
    accion: str = Field(description="Qué hacer.")
    enlace: str = Field(description="La página del portal donde se resuelve.")
    datos: dict[str, Any] = Field(description="Los números detrás del juicio (días, restantes, uso...).")


class HealthOut(_Out):
    estado: State = Field(description="El peor de los estados.")
    comprobado: datetime
    items: list[ConcernOut]


class NoticeOut(_Out):
    id: int
    clave: str
    tipo: str
    estado: State
    mensaje: str
    accion: str
    enlace: str
    creado: datetime
    leido: bool


class NoticePage(_Out):
    items: list[NoticeOut]
    noLeidos: int  # noqa: N815
    siguienteCursor: str | None  # noqa: N815


class NoticeQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limite: int = Field(20, ge=1, le=100, description="Avisos por página (20 si no se indica, hasta 100).")
    cursor: str | None = Field(None, pattern=r"^[0-9]{1,18}$", description="El siguienteCursor de la página anterior.")
