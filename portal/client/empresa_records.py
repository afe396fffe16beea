"""The company's fiscal settings, branches, logo, signing certificates, CAE ranges and audit, typed. The ones
an admin changes carry `to_json` (the body of the update)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from portal.client.models import JsonObject, optional_date, optional_datetime, parse_date, parse_datetime


@dataclass(frozen=True)
class Logo:
    mimetype: str
    size_bytes: int
    width: int
    height: int

    @classmethod
    def from_json(cls, data: JsonObject) -> Logo:
        return cls(
            mimetype=data["tipo"], size_bytes=int(data["bytes"]), width=int(data["ancho"]), height=int(data["alto"])
        )


@dataclass(frozen=True)
class FiscalSettings:
    """What the company prints and which rules apply to it. `to_json` is the body of an update."""

    regime: str  # general | iva_minimo | monotributo | monotributo_mides | exonerado
    exemption_norm: str | None = None
    resolution: str | None = None  # "1234/2020"
    issuer_since: date | None = None  # "Fecha emisor"
    iva_al_dia: bool = True
    verification_url: str | None = None
    paper: str = "a4"  # a4 | 80mm | 57mm
    rut: str = ""
    company_name: str = ""
    logo: Logo | None = None
    updated_at: datetime | None = None
    updated_by: str | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> FiscalSettings:
        return cls(
            regime=data["regimen"],
            exemption_norm=data.get("normaExoneracion"),
            resolution=data.get("resolucion"),
            issuer_since=optional_date(data.get("fechaEmisor")),
            iva_al_dia=bool(data["ivaAlDia"]),
            verification_url=data.get("urlVerificacion"),
            paper=data["formatoPapel"],
            rut=data.get("rut", ""),
            company_name=data.get("razonSocial", ""),
            logo=Logo.from_json(data["logo"]) if data.get("logo") else None,
            updated_at=optional_datetime(data.get("actualizadoEn")),
            updated_by=data.get("actualizadoPor"),
        )

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"regimen": self.regime, "ivaAlDia": self.iva_al_dia, "formatoPapel": self.paper}
        optional = {
            "normaExoneracion": self.exemption_norm,
            "resolucion": self.resolution,
            "fechaEmisor": self.issuer_since.isoformat() if self.issuer_since else None,
            "urlVerificacion": self.verification_url,
        }
        body.update({name: value for name, value in optional.items() if value})
        return body


@dataclass(frozen=True)
class Branch:
    code: int
    name: str
    address: str
    city: str
    department: str
    default: bool = False
    id: int | None = None  # None for one not created yet
    active: bool = True  # False: retired (dada de baja), no receipt is issued from it

    @classmethod
    def from_json(cls, data: JsonObject) -> Branch:
        return cls(
            id=int(data["id"]),
            code=int(data["codigo"]),
            name=data["nombre"],
            address=data["domicilio"],
            city=data["ciudad"],
            department=data["departamento"],
            default=bool(data["predeterminada"]),
            active=bool(data.get("activa", True)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "codigo": self.code,
            "nombre": self.name,
            "domicilio": self.address,
            "ciudad": self.city,
            "departamento": self.department,
            "predeterminada": self.default,
        }


@dataclass(frozen=True)
class SigningCertificate:
    id: int
    name: str
    subject: str
    issuer: str
    serial: str
    rut: str | None
    valid_from: datetime
    valid_to: datetime
    days_left: int
    status: str  # vigente | por_vencer (within 30 days) | vencido | no_vigente | dado_de_baja

    @property
    def expiring(self) -> bool:
        return self.status == "por_vencer"

    @classmethod
    def from_json(cls, data: JsonObject) -> SigningCertificate:
        return cls(
            id=int(data["id"]),
            name=data["nombre"],
            subject=data["sujeto"],
            issuer=data["emisor"],
            serial=data["serie"],
            rut=data.get("rut"),
            valid_from=parse_datetime(data["desde"]),
            valid_to=parse_datetime(data["hasta"]),
            days_left=int(data["diasRestantes"]),
            status=data["estado"],
        )


@dataclass(frozen=True)
class CaeRange:
    id: int
    cae_id: int
    cfe_type: int
    serie: str
    first: int
    last: int
    next: int
    remaining: int
    authorised_on: date
    expires_on: date
    days_left: int
    status: str  # vigente | por_vencer | vencido | agotado | no_vigente
    special: int | None
    source: str

    @classmethod
    def from_json(cls, data: JsonObject) -> CaeRange:
        return cls(
            id=int(data["id"]),
            cae_id=int(data["caeId"]),
            cfe_type=int(data["tipoCFE"]),
            serie=data["serie"],
            first=int(data["desde"]),
            last=int(data["hasta"]),
            next=int(data["proximo"]),
            remaining=int(data["restantes"]),
            authorised_on=parse_date(data["fechaAutorizacion"]),
            expires_on=parse_date(data["vencimiento"]),
            days_left=int(data["diasRestantes"]),
            status=data["estado"],
            special=data.get("caeEspecial"),
            source=data["origen"],
        )


@dataclass(frozen=True)
class RetiredCae:
    """A CAE range retired: the range as it is now (nothing left) and the numbers voided, reported in the daily
    report of `report_day`."""

    range: CaeRange
    void_id: int
    first: int
    last: int
    count: int
    report_day: date

    @classmethod
    def from_json(cls, data: JsonObject) -> RetiredCae:
        return cls(
            range=CaeRange.from_json(data["cae"]),
            void_id=int(data["idAnulacion"]),
            first=int(data["nroDesde"]),
            last=int(data["nroHasta"]),
            count=int(data["cantidad"]),
            report_day=parse_date(data["fechaReporte"]),
        )


@dataclass(frozen=True)
class UploadedCae:
    range: CaeRange
    created: bool  # False: that CAE was already loaded


AuditValue = str | int | float | bool | None


@dataclass(frozen=True)
class AuditChange:
    """One setting an event touched: `field` is its name as the service records it (regimen, formatoPapel,
    tipoCFE, ...); `changed` False when the event records a value (a branch created) rather than a change."""

    field: str
    after: AuditValue
    before: AuditValue = None
    changed: bool = False

    @classmethod
    def from_item(cls, name: str, value: AuditValue | dict[str, AuditValue]) -> AuditChange:
        if isinstance(value, dict) and set(value) == {"antes", "despues"}:
            return cls(name, value["despues"], value["antes"], changed=True)
        return cls(name, None if isinstance(value, dict) else value)


@dataclass(frozen=True)
class AuditEvent:
    at: datetime
    actor: str
    action: str
    target: str | None
    changes: tuple[AuditChange, ...] = ()

    @classmethod
    def from_json(cls, data: JsonObject) -> AuditEvent:
        return cls(
            at=parse_datetime(data["fecha"]),
            actor=data["actor"],
            action=data["accion"],
            target=data.get("objeto"),
            changes=tuple(AuditChange.from_item(name, value) for name, value in (data.get("cambios") or {}).items()),
        )


@dataclass(frozen=True)
class ContingencyBook:
    """A printed contingency book (CFC, types 2xx) DGI authorised."""

    id: int
    cfe_type: int
    serie: str
    first: int
    last: int
    cae_id: str
    authorised_on: date
    expires_on: date
    current: bool
    registered_by: str
    registered_at: datetime
    used: int = 0  # paper receipts keyed in
    voided: int = 0
    free: int = 0

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    @classmethod
    def from_json(cls, data: JsonObject) -> ContingencyBook:
        return cls(
            id=int(data["id"]),
            cfe_type=int(data["tipoCFE"]),
            serie=data["serie"],
            first=int(data["desde"]),
            last=int(data["hasta"]),
            cae_id=data["caeId"],
            authorised_on=parse_date(data["fechaAutorizacion"]),
            expires_on=parse_date(data["vencimiento"]),
            current=bool(data["vigente"]),
            registered_by=data["registradaPor"],
            registered_at=parse_datetime(data["registradaEn"]),
            used=int(data.get("usados", 0)),
            voided=int(data.get("anulados", 0)),
            free=int(data.get("libres", 0)),
        )
