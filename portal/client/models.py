"""Typed results of the service's answers (each has `from_json` and is frozen: views never see raw dicts), and
the helpers request classes build their JSON with."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

# A JSON object as the service writes and reads it; it never leaves portal/client (test_client_types.py).
JsonObject = dict[str, Any]


def parse_datetime(value: str) -> datetime:
    """An ISO 8601 moment from the service ("Z" or an offset): a field the service always sends."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def parse_date(value: str) -> date:
    """An ISO day (or the day of a moment) from the service: a field the service always sends."""
    return date.fromisoformat(value[:10])


def optional_datetime(value: str | None) -> datetime | None:
    """A moment the service may leave out or send as null (or empty): None then."""
    return parse_datetime(value) if value else None


def optional_date(value: str | None) -> date | None:
    """A day the service may leave out or send as null (or empty): None then."""
    return parse_date(value) if value else None


def json_object(pairs: Iterable[tuple[str, object]]) -> JsonObject:
    """The JSON object of the pairs that are set; decimals as exact strings, dates as ISO days."""
    result: JsonObject = {}
    for name, value in pairs:
        if value is None or value == "" or value == ():
            continue
        if isinstance(value, Decimal):
            value = format(value, "f")
        elif isinstance(value, date):
            value = value.isoformat()
        result[name] = value
    return result


@dataclass(frozen=True)
class CertificateRef:
    id: int
    name: str
    expires: date

    @classmethod
    def from_json(cls, data: JsonObject) -> CertificateRef:
        return cls(id=int(data["id"]), name=data["nombre"], expires=date.fromisoformat(data["vence"]))


@dataclass(frozen=True)
class CompanyMembership:
    id: int
    rut: str
    name: str
    role: str
    certificates: tuple[CertificateRef, ...] = ()

    @classmethod
    def from_json(cls, data: JsonObject) -> CompanyMembership:
        return cls(
            id=int(data["id"]),
            rut=data["rut"],
            name=data["nombre"],
            role=data["rol"],
            certificates=tuple(CertificateRef.from_json(c) for c in data.get("certificados", [])),
        )


@dataclass(frozen=True)
class UserInfo:
    sub: str
    email: str
    name: str
    locale: str
    companies: tuple[CompanyMembership, ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> UserInfo:
        return cls(
            sub=str(data["sub"]),
            email=data.get("email", ""),
            name=data.get("name", ""),
            locale=data.get("locale", "es"),
            companies=tuple(CompanyMembership.from_json(c) for c in data.get("empresas", [])),
        )

    def company(self, company_id: int | None) -> CompanyMembership | None:
        return next((c for c in self.companies if c.id == company_id), None)
