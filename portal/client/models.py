"""Typed results of the service's answers (each has `from_json` and is frozen: views never see raw dicts), and
the helpers request classes build their JSON with."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal


def parse_datetime(value: str | None) -> datetime | None:
    """An ISO 8601 moment from the service ("Z" or an offset), or None."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def parse_date(value: str | None) -> date | None:
    return date.fromisoformat(value[:10]) if value else None


def json_object(pairs: Iterable[tuple[str, object]]) -> dict:
    """The JSON object of the pairs that are set; decimals as exact strings, dates as ISO days."""
    result: dict = {}
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
    def from_json(cls, data: dict) -> CertificateRef:
        return cls(id=int(data["id"]), name=data["nombre"], expires=date.fromisoformat(data["vence"]))


@dataclass(frozen=True)
class CompanyMembership:
    id: int
    rut: str
    name: str
    role: str
    certificates: tuple[CertificateRef, ...] = ()

    @classmethod
    def from_json(cls, data: dict) -> CompanyMembership:
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
    def from_json(cls, data: dict) -> UserInfo:
        return cls(
            sub=str(data["sub"]),
            email=data.get("email", ""),
            name=data.get("name", ""),
            locale=data.get("locale", "es"),
            companies=tuple(CompanyMembership.from_json(c) for c in data.get("empresas", [])),
        )

    def company(self, company_id: int | None) -> CompanyMembership | None:
        return next((c for c in self.companies if c.id == company_id), None)
