"""Client methods of the Empresa API Key endpoints, and their typed results."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import quote

from portal.client.models import JsonObject, optional_datetime, parse_datetime
from portal.client.transport import Transport


@dataclass(frozen=True)
class RateLimit:
    limit: int
    window_seconds: int

    @classmethod
    def from_json(cls, data: JsonObject) -> RateLimit:
        return cls(limit=int(data["limite"]), window_seconds=int(data["ventanaSegundos"]))

    def to_json(self) -> dict[str, int]:
        return {"limite": self.limit, "ventanaSegundos": self.window_seconds}


@dataclass(frozen=True)
class WindowUsage:
    """How much of the current window the key has used."""

    used: int
    remaining: int
    resets_at: datetime

    @classmethod
    def from_json(cls, data: JsonObject) -> WindowUsage:
        return cls(
            used=int(data["usados"]), remaining=int(data["restantes"]), resets_at=parse_datetime(data["reiniciaEn"])
        )


@dataclass(frozen=True)
class ApiKeyEvent:
    """A create ("crear"), revoke ("revocar") or limit change ("rate-limit"): the limit before (a change) and
    after (a creation or a change), and the name a key was created with."""

    action: str
    actor: str
    at: datetime
    rate_limit_before: RateLimit | None = None
    rate_limit_after: RateLimit | None = None
    name: str | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> ApiKeyEvent:
        old: JsonObject = data.get("anterior") or {}
        new: JsonObject = data.get("nuevo") or {}
        before, after = old, new.get("rateLimit", new)  # a creation nests its limit; a change is the limit
        return cls(
            action=data["accion"],
            actor=data["actor"],
            at=parse_datetime(data["fecha"]),
            rate_limit_before=RateLimit.from_json(before) if "limite" in before else None,
            rate_limit_after=RateLimit.from_json(after) if "limite" in after else None,
            name=new.get("nombre"),
        )


@dataclass(frozen=True)
class ApiKey:
    id: str
    prefix: str
    name: str
    status: str  # "activa" | "revocada"
    created_at: datetime
    created_by: str
    last_used_at: datetime | None
    revoked_at: datetime | None
    revoked_by: str | None
    rate_limit: RateLimit
    usage: WindowUsage | None  # None when the service cannot read its limit storage
    events: tuple[ApiKeyEvent, ...]

    @property
    def active(self) -> bool:
        return self.status == "activa"

    @classmethod
    def from_json(cls, data: JsonObject) -> ApiKey:
        return cls(
            id=data["id"],
            prefix=data["prefijo"],
            name=data["nombre"],
            status=data["estado"],
            created_at=parse_datetime(data["creadaEn"]),
            created_by=data["creadaPor"],
            last_used_at=optional_datetime(data.get("ultimoUso")),
            revoked_at=optional_datetime(data.get("revocadaEn")),
            revoked_by=data.get("revocadaPor"),
            rate_limit=RateLimit.from_json(data["rateLimit"]),
            usage=WindowUsage.from_json(data["uso"]) if data.get("uso") else None,
            events=tuple(ApiKeyEvent.from_json(e) for e in data.get("eventos", [])),
        )


@dataclass(frozen=True)
class NewApiKey:
    """A key just created: `secret` is the whole key, which the service shows this once and never again."""

    key: ApiKey
    secret: str = field(repr=False)  # a stray log line or traceback must not carry it

    @classmethod
    def from_json(cls, data: JsonObject) -> NewApiKey:
        return cls(key=ApiKey.from_json(data), secret=data["clave"])


class ApiKeysApi(Transport):
    """The Empresa API Key endpoints (one method per endpoint). Bearer JWT only, admins (soporte lists)."""

    def list_api_keys(self) -> tuple[ApiKey, ...]:
        """The company's keys, newest first, revoked ones included."""
        return tuple(ApiKey.from_json(k) for k in self._json("GET", "/api/v1/apikeys")["claves"])

    def create_api_key(self, name: str, rate_limit: RateLimit | None = None) -> NewApiKey:
        body: dict[str, object] = {"nombre": name}
        if rate_limit is not None:
            body["rateLimit"] = rate_limit.to_json()
        return NewApiKey.from_json(self._json("POST", "/api/v1/apikeys", json=body))

    def revoke_api_key(self, key_id: str) -> ApiKey:
        return ApiKey.from_json(self._json("POST", f"/api/v1/apikeys/{quote(key_id, safe='')}/revocar"))

    def set_api_key_rate_limit(self, key_id: str, rate_limit: RateLimit) -> ApiKey:
        return ApiKey.from_json(
            self._json("POST", f"/api/v1/apikeys/{quote(key_id, safe='')}/rate-limit", json=rate_limit.to_json())
        )
