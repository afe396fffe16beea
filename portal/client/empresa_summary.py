"""The company's day at a glance (GET /empresa/resumen), typed: today's receipts, DGI's answers, the CAE
ranges still numbering, the certificates and what is left to set up before issuing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from portal.client.empresa_records import CaeRange, SigningCertificate
from portal.client.models import JsonObject, parse_date


@dataclass(frozen=True)
class TodayLine:
    """Today's receipts of one CFE type in one currency."""

    cfe_type: int
    currency: str
    count: int
    total: Decimal  # sum of MntPagar

    @classmethod
    def from_json(cls, data: JsonObject) -> TodayLine:
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
    def from_json(cls, data: JsonObject) -> CurrencyTotal:
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
    def from_json(cls, data: JsonObject) -> RejectedReceipt:
        return cls(
            id=data["id"],
            cfe_type=int(data["tipoCFE"]),
            serie=data["serie"],
            number=int(data["nro"]),
            issued_on=parse_date(data["fecha"]),
            dgi_status=data["estado"],
        )


@dataclass(frozen=True)
class DgiSummary:
    by_status: tuple[tuple[str, int], ...]  # (DGI state, receipts in it)
    waiting: int  # not yet accepted, rejected or observed by DGI
    rejected: int  # rejected, themselves or their envelope
    latest_rejected: tuple[RejectedReceipt, ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> DgiSummary:
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
    def from_json(cls, data: JsonObject) -> CaeRangeInUse:
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
    # What is left to set up before receipts are right, in the order of the Empresa pages (the service's codes:
    # sin_resolucion_ni_fecha_emisor, sin_domicilio, sin_certificado, sin_cae); empty when nothing is.
    pending: tuple[str, ...]

    @classmethod
    def from_json(cls, data: JsonObject) -> DaySummary:
        today = data["hoy"]
        return cls(
            day=parse_date(today["fecha"]),
            receipts_today=int(today["cantidad"]),
            today_by_type=tuple(TodayLine.from_json(t) for t in today["porTipo"]),
            today_by_currency=tuple(CurrencyTotal.from_json(t) for t in today["porMoneda"]),
            dgi=DgiSummary.from_json(data["dgi"]),
            cae_ranges=tuple(CaeRangeInUse.from_json(r) for r in data["cae"]),
            types_without_cae=tuple(int(t) for t in data["tiposSinCae"]),
            certificates=tuple(SigningCertificate.from_json(c) for c in data["certificados"]),
            pending=tuple(str(code) for code in data["pendientes"]),
        )
