"""Response bodies of the eventos endpoint (published as OpenAPI by `operation`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class EventType(_Out):
    nombre: str
    descripcion: str


class EventCatalogue(_Out):
    items: list[EventType]
