"""The compliance watch's judgements, as pure functions of the facts (unit-tested threshold by threshold).

Each returns a `Concern`: ok, warning or problem; a sentence a person understands; and the portal page
where it is fixed. `level` is the threshold crossed (30, 15, 7, 1 days for a certificate...): a concern that
crosses a new threshold is news again even if its state stays "warning".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final, Literal

from portal.service.platform.i18n import Text, _, cfe_type

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
NOTHING = _("Nada que hacer")


@dataclass(frozen=True)
class Concern:
    key: str  # stable per concern and company: "certificado", "cae:12", "reporte_diario", ...
    kind: str  # certificado | cae | reporte_diario | dgi_demorados | sobres_rechazados | (extensions)
    state: State
    message: str  # a Text (platform.i18n): said in the language of whoever reads it
    action: str  # what fixes it, in words (a Text too)
    link: str  # the portal page where it is fixed
    level: int = 0
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        return f"{self.state}:{self.level}"


def certificate(days_left: int | None, not_after: date | None) -> Concern:
    if days_left is None:
        return Concern(
            "certificado",
            "certificado",
            PROBLEM,
            _("La empresa no tiene certificado de firma: no puede emitir."),
            _("Cargar el certificado"),
            CERTIFICATES_PAGE,
            level=-1,
        )
    facts = {"diasRestantes": days_left, "vence": not_after.isoformat() if not_after else None}
    if days_left < 0:
        return Concern(
            "certificado",
            "certificado",
            PROBLEM,
            _("El certificado de firma venció hace {days} días: no se puede emitir.", days=-days_left),
            _("Cargar el certificado nuevo"),
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
            _("El certificado de firma vence en {days} días.", days=days_left),
            NOTHING,
            CERTIFICATES_PAGE,
            facts=facts,
        )
    state: State = WARNING if level >= 15 else PROBLEM
    when = _("mañana") if days_left == 1 else (_("hoy") if days_left == 0 else _("en {days} días", days=days_left))
    return Concern(
        "certificado",
        "certificado",
        state,
        _("El certificado de firma vence {when}: pedí uno nuevo a tu certificadora y cargalo antes.", when=when),
        _("Cargar el certificado nuevo"),
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
    key, name = f"cae:{range_id}", _("CAE de {tipo} serie {serie}", tipo=cfe_type(tipo_cfe), serie=serie)
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
                key, "cae", OK, _("El {name} venció sin números sin usar.", name=name), NOTHING, CAE_PAGE, facts=facts
            )
        return Concern(
            key,
            "cae",
            PROBLEM,
            _(
                "El {name} venció con {left:,} números sin usar: hay que anularlos en el reporte diario.",
                name=name,
                left=remaining,
            ),
            _("Anular los números que quedaron"),
            ENVIOS_PAGE,
            level=0,
            facts=facts,
        )
    if remaining == 0:
        return Concern(
            key,
            "cae",
            PROBLEM,
            _("El {name} se agotó: pedí un CAE nuevo a DGI y cargalo.", name=name),
            _("Cargar un CAE nuevo"),
            CAE_PAGE,
            level=1,
            facts=facts,
        )
    findings: list[tuple[State, int, Text]] = []
    pace = _(
        "quedan {left:,} números, unos {days} días al ritmo actual", left=remaining, days=f"{days_of_use or 0:.0f}"
    )
    expiring = _("vence en {days} días; lo que quede sin usar se deberá anular", days=days_to_expiry)
    if days_of_use is not None and days_of_use < CAE_CRITICAL_DAYS_OF_USE:
        findings.append((PROBLEM, 2, pace))
    elif days_of_use is not None and days_of_use < CAE_MIN_DAYS_OF_USE:
        findings.append((WARNING, 3, pace))
    elif remaining <= size * CAE_LOW_SHARE:
        percent = remaining * 100 // size  # 5 numbers of 100.000 are not "el 0%"
        share = (
            _("queda el {share} de sus números ({left:,})", share=f"{percent}%", left=remaining)
            if percent
            else _("quedan solo {left:,} de sus números, menos del 1%", left=remaining)
        )
        findings.append((WARNING, 4, share))
    if days_to_expiry <= CAE_EXPIRY_PROBLEM_DAYS:
        findings.append((PROBLEM, 5, expiring))
    elif days_to_expiry <= CAE_EXPIRY_WARNING_DAYS:
        findings.append((WARNING, 6, expiring))
    if not findings:
        return Concern(
            key,
            "cae",
            OK,
            _(
                "El {name} tiene {left:,} números y vence en {days} días.",
                name=name,
                left=remaining,
                days=days_to_expiry,
            ),
            NOTHING,
            CAE_PAGE,
            facts=facts,
        )
    worst = max(findings, key=lambda f: (SEVERITY[f[0]], -f[1]))
    said = [f[2] for f in findings]  # one or two: how many numbers are left, and when it expires
    message = (
        _("El {name}: {first}. Pedí un CAE nuevo a DGI.", name=name, first=said[0])
        if len(said) == 1
        else _("El {name}: {first}; {second}. Pedí un CAE nuevo a DGI.", name=name, first=said[0], second=said[1])
    )
    return Concern(
        key,
        "cae",
        worst[0],
        message,
        _("Cargar un CAE nuevo"),
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
            _("Sin actividad el {day}: no lleva reporte.", day=label),
            NOTHING,
            ENVIOS_PAGE,
            facts=facts,
        )
    if report_state == "aceptado":
        return Concern(
            "reporte_diario",
            "reporte_diario",
            OK,
            _("DGI aceptó el reporte diario del {day}.", day=label),
            NOTHING,
            ENVIOS_PAGE,
            facts=facts,
        )
    if report_state == "rechazado":
        return Concern(
            "reporte_diario",
            "reporte_diario",
            PROBLEM,
            _("DGI rechazó el reporte diario del {day}.", day=label),
            _("Revisar el motivo y reenviarlo"),
            ENVIOS_PAGE,
            level=2,
            facts=facts,
        )
    if report_state == "error":
        return Concern(
            "reporte_diario",
            "reporte_diario",
            PROBLEM,
            _("El reporte diario del {day} no se pudo enviar.", day=label),
            _("Reenviar el reporte"),
            ENVIOS_PAGE,
            level=3,
            facts=facts,
        )
    sentence = (
        _("El reporte diario del {day} todavía no se envió.", day=label)
        if report_state is None
        else _("El reporte diario del {day} espera la respuesta de DGI.", day=label)
    )
    return Concern(
        "reporte_diario", "reporte_diario", WARNING, sentence, _("Enviar el reporte"), ENVIOS_PAGE, level=1, facts=facts
    )


def waiting_on_dgi(count: int, oldest_minutes: int | None, limit_minutes: int) -> Concern:
    """Receipts that should have had DGI's answer by now (CFE_ENVIOS_OVERDUE_MINUTES)."""
    facts = {"cantidad": count, "minutosMasAntiguo": oldest_minutes, "limiteMinutos": limit_minutes}
    if count == 0:
        return Concern(
            "dgi_demorados",
            "dgi_demorados",
            OK,
            _("Ningún comprobante espera a DGI más de lo normal."),
            NOTHING,
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
        _(
            "{count:,} comprobantes esperan la respuesta de DGI hace más de {minutes} minutos.",
            count=count,
            minutes=limit_minutes,
        ),
        _("Ver los pendientes"),
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
            _("No hay sobres rechazados sin resolver."),
            NOTHING,
            ENVIOS_PAGE,
            facts=facts,
        )
    if receipts and envelopes_in_error:
        message = _(
            "Hay {receipts:,} comprobantes en sobres que DGI rechazó y {envelopes:,} sobres que no se pudieron enviar.",
            receipts=receipts,
            envelopes=envelopes_in_error,
        )
    elif receipts:
        message = _("Hay {receipts:,} comprobantes en sobres que DGI rechazó.", receipts=receipts)
    else:
        message = _("Hay {envelopes:,} sobres que no se pudieron enviar.", envelopes=envelopes_in_error)
    return Concern(
        "sobres_rechazados",
        "sobres_rechazados",
        PROBLEM,
        message,
        _("Revisar y reintentar"),
        ENVIOS_PAGE,
        level=1,
        facts=facts,
    )
