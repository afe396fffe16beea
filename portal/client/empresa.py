"""Client methods of the Empresa endpoints (settings, branches, logo, certificates, CAE, audit), typed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from portal.client.models import parse_date as _day
from portal.client.models import parse_datetime as _moment
from portal.client.transport import Transport

BASE = "/api/v1/empresa"


@dataclass(frozen=True)
class Logo:
    mimetype: str
    size_bytes: int
    width: int
    height: int

    @classmethod
    def from_json(cls, data: dict) -> Logo:
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
    def from_json(cls, data: dict) -> FiscalSettings:
        return cls(
            regime=data["regimen"],
            exemption_norm=data.get("normaExoneracion"),
            resolution=data.get("resolucion"),
            issuer_since=_day(data.get("fechaEmisor")),
            iva_al_dia=bool(data["ivaAlDia"]),
            verification_url=data.get("urlVerificacion"),
            paper=data["formatoPapel"],
            rut=data.get("rut", ""),
            company_name=data.get("razonSocial", ""),
            logo=Logo.from_json(data["logo"]) if data.get("logo") else None,
            updated_at=_moment(data.get("actualizadoEn")),
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

    @classmethod
    def from_json(cls, data: dict) -> Branch:
        return cls(
            id=int(data["id"]),
            code=int(data["codigo"]),
            name=data["nombre"],
            address=data["domicilio"],
            city=data["ciudad"],
            department=data["departamento"],
            default=bool(data["predeterminada"]),
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
    status: str  # vigente | por_vencer (within 30 days) | vencido | no_vigente

    @property
    def expiring(self) -> bool:
        return self.status == "por_vencer"

    @classmethod
    def from_json(cls, data: dict) -> SigningCertificate:
        return cls(
            id=int(data["id"]),
            name=data["nombre"],
            subject=data["sujeto"],
            issuer=data["emisor"],
            serial=data["serie"],
            rut=data.get("rut"),
            valid_from=_moment(data["desde"]),
            valid_to=_moment(data["hasta"]),
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
    status: str  # vigente | por_vencer | vencido | agotado
    special: int | None
    source: str

    @classmethod
    def from_json(cls, data: dict) -> CaeRange:
        return cls(
            id=int(data["id"]),
            cae_id=int(data["caeId"]),
            cfe_type=int(data["tipoCFE"]),
            serie=data["serie"],
            first=int(data["desde"]),
            last=int(data["hasta"]),
            next=int(data["proximo"]),
            remaining=int(data["restantes"]),
            authorised_on=_day(data["fechaAutorizacion"]),
            expires_on=_day(data["vencimiento"]),
            days_left=int(data["diasRestantes"]),
            status=data["estado"],
            special=data.get("caeEspecial"),
            source=data["origen"],
        )


@dataclass(frozen=True)
class UploadedCae:
    range: CaeRange
    created: bool  # False: that CAE was already loaded


@dataclass(frozen=True)
class AuditEvent:
    at: datetime
    actor: str
    action: str
    target: str | None
    changes: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict) -> AuditEvent:
        return cls(
            at=_moment(data["fecha"]),
            actor=data["actor"],
            action=data["accion"],
            target=data.get("objeto"),
            changes=data.get("cambios") or {},
        )


@dataclass(frozen=True)
class TodayLine:
    """Today's receipts of one CFE type in one currency."""

    cfe_type: int
    currency: str
    count: int
    total: Decimal  # sum of MntPagar

    @classmethod
    def from_json(cls, data: dict) -> TodayLine:
        return cls(
            cfe_type=int(data["tipoCFE"]),
            currency=data["moneda"],
            count=int(data["cantidad"]),
            total=Decimal(str(data["total"])),
        )


@dataclass(frozen=True)
class CurrencyTotal:
    """What was invoiced today in one currency: sales and debit notes less credit notes."""

    currency: str
    count: int
    net: Decimal

    @classmethod
    def from_json(cls, data: dict) -> CurrencyTotal:
        return cls(currency=data["moneda"], count=int(data["cantidad"]), net=Decimal(str(data["neto"])))


@dataclass(frozen=True)
class RejectedReceipt:
    id: str
    cfe_type: int
    serie: str
    number: int
    issued_on: date
    dgi_status: str

    @classmethod
    def from_json(cls, data: dict) -> RejectedReceipt:
        return cls(
            id=data["id"],
            cfe_type=int(data["tipoCFE"]),
            serie=data["serie"],
            number=int(data["nro"]),
            issued_on=_day(data["fecha"]),
            dgi_status=data["estado"],
        )


@dataclass(frozen=True)
class DgiSummary:
    by_status: tuple[tuple[str, int], ...]  # (DGI state, receipts in it)
    waiting: int  # not yet accepted, rejected or observed by DGI
    rejected: int  # rejected, themselves or their envelope
    latest_rejected: tuple[RejectedReceipt, ...]

    @classmethod
    def from_json(cls, data: dict) -> DgiSummary:
        return cls(
            by_status=tuple((s["estado"], int(s["cantidad"])) for s in data["porEstado"]),
            waiting=int(data["enEspera"]),
            rejected=int(data["rechazados"]),
            latest_rejected=tuple(RejectedReceipt.from_json(r) for r in data["ultimosRechazados"]),
        )


@dataclass(frozen=True)
class CaeRangeInUse:
    """A CAE range that still numbers, with what to act on."""

    range: CaeRange
    low_numbers: bool  # under 10 % of the range left
    expiring: bool  # expires within 30 days

    @property
    def warned(self) -> bool:
        return self.low_numbers or self.expiring

    @classmethod
    def from_json(cls, data: dict) -> CaeRangeInUse:
        warnings = data.get("avisos") or ()
        return cls(
            range=CaeRange.from_json(data), low_numbers="pocos_numeros" in warnings, expiring="por_vencer" in warnings
        )


@dataclass(frozen=True)
class DaySummary:
    """The company's day at a glance (GET /empresa/resumen)."""

    day: date
    receipts_today: int
    today_by_type: tuple[TodayLine, ...]
    today_by_currency: tuple[CurrencyTotal, ...]
    dgi: DgiSummary
    cae_ranges: tuple[CaeRangeInUse, ...]
    types_without_cae: tuple[int, ...]  # types whose every range is exhausted or expired
    certificates: tuple[SigningCertificate, ...]

    @classmethod
    def from_json(cls, data: dict) -> DaySummary:
        today = data["hoy"]
        return cls(
            day=_day(today["fecha"]),
            receipts_today=int(today["cantidad"]),
            today_by_type=tuple(TodayLine.from_json(t) for t in today["porTipo"]),
            today_by_currency=tuple(CurrencyTotal.from_json(t) for t in today["porMoneda"]),
            dgi=DgiSummary.from_json(data["dgi"]),
            cae_ranges=tuple(CaeRangeInUse.from_json(r) for r in data["cae"]),
            types_without_cae=tuple(int(t) for t in data["tiposSinCae"]),
            certificates=tuple(SigningCertificate.from_json(c) for c in data["certificados"]),
        )


class EmpresaApi(Transport):
    """The Empresa endpoints (one method per endpoint). Bearer JWT; admins change, members read."""

    def get_fiscal_settings(self) -> FiscalSettings:
        return FiscalSettings.from_json(self._json("GET", f"{BASE}/configuracion"))

    def update_fiscal_settings(self, settings: FiscalSettings) -> FiscalSettings:
        return FiscalSettings.from_json(self._json("PUT", f"{BASE}/configuracion", json=settings.to_json()))

    def list_branches(self) -> tuple[Branch, ...]:
        return tuple(Branch.from_json(b) for b in self._json("GET", f"{BASE}/sucursales")["sucursales"])

    def create_branch(self, branch: Branch) -> Branch:
        return Branch.from_json(self._json("POST", f"{BASE}/sucursales", json=branch.to_json()))

    def update_branch(self, branch_id: int, branch: Branch) -> Branch:
        return Branch.from_json(self._json("PUT", f"{BASE}/sucursales/{int(branch_id)}", json=branch.to_json()))

    def get_logo(self) -> tuple[bytes, str]:
        """(image bytes, mimetype); NotFound when the company has none."""
        response = self._request("GET", f"{BASE}/logo", accept="image/png, image/jpeg")
        return response.content, response.headers.get("Content-Type", "application/octet-stream")

    def upload_logo(self, image: bytes, mimetype: str) -> Logo:
        return Logo.from_json(self._json("PUT", f"{BASE}/logo", data=image, headers_extra={"Content-Type": mimetype}))

    def delete_logo(self) -> None:
        self._request("DELETE", f"{BASE}/logo")

    def list_certificates(self) -> tuple[SigningCertificate, ...]:
        data = self._json("GET", f"{BASE}/certificados")
        return tuple(SigningCertificate.from_json(c) for c in data["certificados"])

    def upload_certificate(self, p12: bytes, password: str, name: str | None = None) -> SigningCertificate:
        form = {"password": password, **({"nombre": name} if name else {})}
        return SigningCertificate.from_json(
            self._json(
                "POST",
                f"{BASE}/certificados",
                data=form,
                files={"archivo": ("certificado.p12", p12, "application/x-pkcs12")},
            )
        )

    def list_cae_ranges(self) -> tuple[CaeRange, ...]:
        return tuple(CaeRange.from_json(r) for r in self._json("GET", f"{BASE}/cae")["rangos"])

    def upload_cae(self, xml: bytes) -> UploadedCae:
        response = self._request("POST", f"{BASE}/cae", data=xml, headers_extra={"Content-Type": "application/xml"})
        return UploadedCae(CaeRange.from_json(response.json()), created=response.status_code == 201)

    def get_day_summary(self) -> DaySummary:
        return DaySummary.from_json(self._json("GET", f"{BASE}/resumen"))

    def list_audit(self) -> tuple[AuditEvent, ...]:
        return tuple(AuditEvent.from_json(e) for e in self._json("GET", f"{BASE}/auditoria")["eventos"])
