"""The compliance watch's judgements, as pure functions of the facts (unit-tested threshold by threshold).

Each returns a `Concern`: ok, warning or problem; a sentence a person understands; and the portal page
where it is fixed. `level` is the threshold crossed (30, 15, 7, 1 days for a certificate...): a concern that
crosses a new threshold is news again even if its state stays "warning".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final, Literal

State = Literal["ok", "warning", "problem"]
OK: Final = "ok"
WARNING: Final = "warning"
PROBLEM: Final = "problem"
SEVERITY: dict[State, int] = {OK: 0, WARNING: 1, PROBLEM: 2}

CERTIFICATE_THRESHOLDS = (30, 15, 7, 1)  # days left: warning at 30 and 15, problem at 7 and 1
CAE_LOW_SHARE = 0.20  # numbers left below this share of the range: warning
CAE_MIN_DAYS_OF_USE = 30  # numbers left for fewer days than this at the last 30 days' pace: warning
CAE_CRITICAL_DAYS_OF_USE = 7
CAE_EXPIRY_WARNING_DAYS = 30
CAE_EXPIRY_PROBLEM_DAYS = 7

CERTIFICATES_PAGE = "/empresa/certificados"
CAE_PAGE = "/empresa/cae"
ENVIOS_PAGE = "/envios/"
PENDING_PAGE = "/envios/pendientes"


@dataclass(frozen=True)
class Concern:
    key: str  # stable per concern and company: "certificado", "cae:12", "reporte_diario", ...
    kind: str  # certificado | cae | reporte_diario | dgi_demorados | sobres_rechazados | (extensions)
    state: State
    message: str
    action: str  # what fixes it, in words
    link: str  # the portal page where it is fixed
    level: int = 0
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        return f"{self.state}:{self.level}"


def _n(value: int) -> str:
    """A count as Uruguay writes it: 100.000."""
    return f"{value:,}".replace(",", ".")


def certificate(days_left: int | None, not_after: date | None) -> Concern:
    if days_left is None:
        return Concern(
            "certificado",
            "certificado",
            PROBLEM,
            "La empresa no tiene certificado de firma: no puede emitir.",
            "Cargar el certificado",
            CERTIFICATES_PAGE,
            level=-1,
        )
    facts = {"diasRestantes": days_left, "vence": not_after.isoformat() if not_after else None}
    if days_left < 0:
        return Concern(
            "certificado",
            "certificado",
            PROBLEM,
            f"El certificado de firma venció hace {-days_left} días: no se puede emitir.",
            "Cargar el certificado nuevo",
            CERTIFICATES_PAGE,
            level=0,
            facts=facts,
        )
    level = min((t for t in CERTIFICATE_THRESHOLDS if days_left <= t), default=None)
    if level is None:
        return Concern(
            "certificado",
            "certificado",
            OK,
            f"El certificado de firma vence en {days_left} días.",
            "Nada que hacer",
            CERTIFICATES_PAGE,
            facts=facts,
        )
    state: State = WARNING if level >= 15 else PROBLEM
    when = "mañana" if days_left == 1 else ("hoy" if days_left == 0 else f"en {days_left} días")
    return Concern(
        "certificado",
        "certificado",
        state,
        f"El certificado de firma vence {when}: pedí uno nuevo a tu certificadora y cargalo antes.",
        "Cargar el certificado nuevo",
        CERTIFICATES_PAGE,
        level=level,
        facts=facts,
    )


def cae_range(
    *,
    range_id: int,
    tipo_cfe: int,
    serie: str,
    size: int,
    remaining: int,
    used_last_30_days: int,
    days_to_expiry: int,
) -> Concern:
    """One CAE range still numbering (or just run out): numbers left against the pace of the last 30 days,
    and days to its expiry. At expiry the numbers left must be voided (reported as anulados)."""
    key, name = f"cae:{range_id}", f"CAE tipo {tipo_cfe} serie {serie}"
    daily = used_last_30_days / 30
    days_of_use = remaining / daily if daily else None
    facts = {
        "idRango": range_id,
        "tipoCFE": tipo_cfe,
        "serie": serie,
        "restantes": remaining,
        "usadosUltimos30Dias": used_last_30_days,
        "diasDeUso": None if days_of_use is None else round(days_of_use, 1),
        "diasParaVencer": days_to_expiry,
    }
    if days_to_expiry < 0:
        if remaining == 0:
            return Concern(
                key, "cae", OK, f"El {name} venció sin números sin usar.", "Nada que hacer", CAE_PAGE, facts=facts
            )
        return Concern(
            key,
            "cae",
            PROBLEM,
            f"El {name} venció con {_n(remaining)} números sin usar: hay que anularlos en el reporte diario.",
            "Anular los números que quedaron",
            ENVIOS_PAGE,
            level=0,
            facts=facts,
        )
    if remaining == 0:
        return Concern(
            key,
            "cae",
            PROBLEM,
            f"El {name} se agotó: pedí un CAE nuevo a DGI y cargalo.",
            "Cargar un CAE nuevo",
            CAE_PAGE,
            level=1,
            facts=facts,
        )
    findings: list[tuple[State, int, str]] = []
    if days_of_use is not None and days_of_use < CAE_CRITICAL_DAYS_OF_USE:
        findings.append((PROBLEM, 2, f"quedan {_n(remaining)} números, unos {days_of_use:.0f} días al ritmo actual"))
    elif days_of_use is not None and days_of_use < CAE_MIN_DAYS_OF_USE:
        findings.append((WARNING, 3, f"quedan {_n(remaining)} números, unos {days_of_use:.0f} días al ritmo actual"))
    elif remaining <= size * CAE_LOW_SHARE:
        findings.append((WARNING, 4, f"queda el {remaining * 100 // size}% de sus números ({_n(remaining)})"))
    if days_to_expiry <= CAE_EXPIRY_PROBLEM_DAYS:
        findings.append((PROBLEM, 5, f"vence en {days_to_expiry} días; lo que quede sin usar se deberá anular"))
    elif days_to_expiry <= CAE_EXPIRY_WARNING_DAYS:
        findings.append((WARNING, 6, f"vence en {days_to_expiry} días; lo que quede sin usar se deberá anular"))
    if not findings:
        return Concern(
            key,
            "cae",
            OK,
            f"El {name} tiene {_n(remaining)} números y vence en {days_to_expiry} días.",
            "Nada que hacer",
            CAE_PAGE,
            facts=facts,
        )
    worst = max(findings, key=lambda f: (SEVERITY[f[0]], -f[1]))
    return Concern(
        key,
        "cae",
        worst[0],
        f"El {name}: " + "; ".join(f[2] for f in findings) + ". Pedí un CAE nuevo a DGI.",
        "Cargar un CAE nuevo",
        CAE_PAGE,
        level=worst[1],
        facts=facts,
    )


def daily_report(day: date, had_activity: bool, report_state: str | None) -> Concern:
    """Yesterday's daily report: DGI requires one for every day with receipts or voided numbers."""
    facts = {"fecha": day.isoformat(), "estado": report_state}
    label = day.strftime("%d/%m/%Y")
    if not had_activity and report_state is None:
        return Concern(
            "reporte_diario",
            "reporte_diario",
            OK,
            f"Sin actividad el {label}: no lleva reporte.",
            "Nada que hacer",
            ENVIOS_PAGE,
            facts=facts,
        )
    if report_state == "aceptado":
        return Concern(
            "reporte_diario",
            "reporte_diario",
            OK,
            f"DGI aceptó el reporte diario del {label}.",
            "Nada que hacer",
            ENVIOS_PAGE,
            facts=facts,
        )
    if report_state == "rechazado":
        return Concern(
            "reporte_diario",
            "reporte_diario",
            PROBLEM,
            f"DGI rechazó el reporte diario del {label}.",
            "Revisar el motivo y reenviarlo",
            ENVIOS_PAGE,
            level=2,
            facts=facts,
        )
    if report_state == "error":
        return Concern(
            "reporte_diario",
            "reporte_diario",
            PROBLEM,
            f"El reporte diario del {label} no se pudo enviar.",
            "Reenviar el reporte",
            ENVIOS_PAGE,
            level=3,
            facts=facts,
        )
    sentence = (
        f"El reporte diario del {label} todavía no se envió."
        if report_state is None
        else f"El reporte diario del {label} espera la respuesta de DGI."
    )
    return Concern(
        "reporte_diario", "reporte_diario", WARNING, sentence, "Enviar el reporte", ENVIOS_PAGE, level=1, facts=facts
    )


def waiting_on_dgi(count: int, oldest_minutes: int | None, limit_minutes: int) -> Concern:
    """Receipts that should have had DGI's answer by now (CFE_ENVIOS_OVERDUE_MINUTES)."""
    facts = {"cantidad": count, "minutosMasAntiguo": oldest_minutes, "limiteMinutos": limit_minutes}
    if count == 0:
        return Concern(
            "dgi_demorados",
            "dgi_demorados",
            OK,
            "Ningún comprobante espera a DGI más de lo normal.",
            "Nada que hacer",
            PENDING_PAGE,
            facts=facts,
        )
    state: State
    level: int
    state, level = (PROBLEM, 2) if (oldest_minutes or 0) >= 24 * 60 else (WARNING, 1)
    return Concern(
        "dgi_demorados",
        "dgi_demorados",
        state,
        f"{count} comprobantes esperan la respuesta de DGI hace más de {limit_minutes} minutos.",
        "Ver los pendientes",
        PENDING_PAGE,
        level=level,
        facts=facts,
    )


def rejected_envelopes(receipts: int, envelopes_in_error: int) -> Concern:
    """Receipts whose envelope DGI refused (BS/BA) and envelopes that failed for good, not yet retried."""
    facts = {"comprobantes": receipts, "sobresConError": envelopes_in_error}
    if not receipts and not envelopes_in_error:
        return Concern(
            "sobres_rechazados",
            "sobres_rechazados",
            OK,
            "No hay sobres rechazados sin resolver.",
            "Nada que hacer",
            ENVIOS_PAGE,
            facts=facts,
        )
    parts = []
    if receipts:
        parts.append(f"{receipts} comprobantes en sobres que DGI rechazó")
    if envelopes_in_error:
        parts.append(f"{envelopes_in_error} sobres que no se pudieron enviar")
    return Concern(
        "sobres_rechazados",
        "sobres_rechazados",
        PROBLEM,
        "Hay " + " y ".join(parts) + ".",
        "Revisar y reintentar",
        ENVIOS_PAGE,
        level=1,
        facts=facts,
    )
