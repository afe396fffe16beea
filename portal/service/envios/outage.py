"""DGI outages: what this service has seen of DGI's reception, the probe that calls it while it is down, and
the embedded simulator's outage modes.

Issuing never calls DGI (a receipt is signed and stored; the worker sends it), so an outage never slows or
fails issuing. What an outage changes is the sending:

- the first transient failure (no connection, a timeout, a SOAP fault from DGI's side, an HTTP 5xx) marks
  DGI down since that moment (`dgi_estado.down_since`);
- while it is down, only one probe at a time calls DGI, with the oldest thing waiting (an envelope, an
  answer to fetch, a daily report), every 2, 4, 8 ... seconds up to CFE_DGI_OUTAGE_PROBE_MAX_SECONDS; every
  other send waits without calling DGI;
- the first answer marks DGI up again and wakes everything that waits, oldest first (tasks.resume).

The simulator's modes (CFE_DGI_SIMULATOR_MODE at start, `envios-simulador-modo` at run time; the row in
dgisim_modo wins) make it behave like DGI on a bad day: `caido` unreachable, `lento` slow (past the SOAP
timeout when CFE_DGI_SIMULATOR_SLOW_SECONDS exceeds it), `falla_soap` SOAP faults, `sin_respuestas` envelopes
acknowledged but the per-CFE results never ready.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, case, func, literal_column, null, select
from sqlalchemy.orm import Session

from portal.service.envios.adapter import DgiTransientError
from portal.service.envios.models import DgiDailyReport, DgiEnvelope, DgiStatus, DgiSubmission, SimMode
from portal.service.platform import db
from portal.service.platform.i18n import _, stored

MODES: dict[str, str] = {
    "normal": "DGI responde normalmente.",
    "caido": "DGI no responde: no se puede conectar.",
    "lento": "DGI responde muy lento (más que el tiempo de espera).",
    "falla_soap": "DGI responde con fallas SOAP (servicio no disponible).",
    "sin_respuestas": "DGI recibe los sobres pero no devuelve el resultado de cada comprobante.",
}
# Receipt states that wait on DGI (states.py): not yet sent, in an envelope, received without an answer.
WAITING_STATES = ("pendiente", "en_sobre", "recibido")


def _now() -> datetime:
    return datetime.now(UTC)


# --- the simulator's modes -------------------------------------------------------------------------------


def simulator_mode(config: Mapping[str, Any]) -> tuple[str, float]:
    """The simulator's mode and its slow delay: the operator's row, else the settings."""
    with db.new_session() as session:
        row = session.get(SimMode, 1)
        if row is not None:
            slow = row.slow_seconds
            return row.mode, float(slow if slow is not None else config.get("DGI_SIMULATOR_SLOW_SECONDS", 45.0))
    return str(config.get("DGI_SIMULATOR_MODE", "normal")), float(config.get("DGI_SIMULATOR_SLOW_SECONDS", 45.0))


def set_simulator_mode(mode: str, slow_seconds: float | None = None) -> None:
    """Switch the simulator (every process that shares the database sees it at its next call)."""
    if mode not in MODES:
        raise ValueError(f"modo desconocido: {mode!r} ({', '.join(MODES)})")
    with db.write_transaction() as session:
        row = session.get(SimMode, 1)
        if row is None:
            row = SimMode(id=1, mode=mode)
            session.add(row)
        row.mode, row.slow_seconds, row.changed_at = mode, slow_seconds, _now()


def simulate(config: Mapping[str, Any], operation: str) -> str:
    """Behave as the current mode says before the simulator answers `operation`; returns the mode.
    Raises the adapter's transient errors exactly as the SOAP client reports those failures."""
    mode, slow = simulator_mode(config)
    if mode == "caido":
        raise DgiTransientError(_("No se pudo conectar con el servicio de DGI."), code="dgi_unavailable")
    if mode == "falla_soap":
        raise DgiTransientError(
            _("DGI rechazó el pedido: {motivo}", motivo="Servicio temporalmente no disponible"), code="dgi_fault"
        )
    if mode == "lento":
        timeout = float(config.get("DGI_RECEPTION_TIMEOUT_SECONDS", 30.0))
        time.sleep(min(slow, timeout))
        if slow >= timeout:
            raise DgiTransientError(_("DGI no respondió en {segundos} s.", segundos=f"{timeout:g}"), code="dgi_timeout")
    return mode


# --- what we have seen of DGI ----------------------------------------------------------------------------


def _row(session: Session, *, lock: bool = False) -> DgiStatus:
    row = session.get(DgiStatus, 1, with_for_update=lock)
    if row is None:
        row = DgiStatus(id=1, failures=0)
        session.add(row)
        session.flush()
    return row


OK_REFRESH = timedelta(seconds=60)  # while DGI answers, its last answer is written at most this often


def answered() -> bool:
    """DGI answered a call (whatever it said). True when it was down until now: the caller resumes the rest.
    While DGI answers, the write (SQLite's one writer) is skipped unless the last answer noted is a minute old."""
    with db.new_session() as reading:
        row = reading.get(DgiStatus, 1)
        if row is not None and row.down_since is None and row.last_ok_at and _now() - row.last_ok_at < OK_REFRESH:
            return False
    with db.write_transaction() as session:
        row = _row(session, lock=True)
        was_down = row.down_since is not None
        row.down_since, row.failures, row.next_probe_at, row.last_ok_at = None, 0, None, _now()
        return was_down


def failed(error: str, probe_max: float) -> float:
    """A call failed for a reason on DGI's side (or the network's). Marks DGI down from now if it was up;
    returns in how many seconds the next probe may call it."""
    with db.write_transaction() as session:
        row = _row(session, lock=True)
        now = _now()
        row.down_since = row.down_since or now
        row.failures = (row.failures or 0) + 1
        row.last_failure_at, row.last_error, row.last_error_texts = now, error[:500], stored(error)
        delay = float(min(2 ** min(row.failures, 16), probe_max))
        row.next_probe_at = now + timedelta(seconds=delay)
        return delay


def is_down(session: Session | None = None) -> bool:
    if session is None:
        with db.new_session() as own:
            return is_down(own)
    row = session.get(DgiStatus, 1)
    return row is not None and row.down_since is not None


def down_since_for(session: Session, state: str) -> datetime | None:
    """Since when DGI does not answer, for a receipt in `state` that waits on it (None while DGI answers, or for
    a receipt that does not wait): what `GET /dgi/aviso` says, on the receipt's own answer. One read by key."""
    if state not in WAITING_STATES:
        return None
    row = session.get(DgiStatus, 1)
    return None if row is None else row.down_since


def waiting_down_since(state: ColumnElement[str]) -> ColumnElement[datetime | None]:
    """`down_since_for` as a column of a receipt's row, for its answer's ETag: `state` is the expression of the
    state the answer shows (its submission's, or the receipt's own when it has none)."""
    waiting = state.in_([literal_column(f"'{name}'") for name in WAITING_STATES])  # inline: no binds
    since = select(DgiStatus.down_since).where(DgiStatus.id == literal_column("1")).scalar_subquery()
    return case((waiting, since), else_=null())


def take_probe() -> bool:
    """While DGI is down: whether this caller may call it now (its probe time came, and nobody else took it).
    The slot is held until the call's outcome sets the next one."""
    with db.write_transaction() as session:
        row = _row(session, lock=True)
        now = _now()
        if row.down_since is None:
            return True
        if row.next_probe_at is not None and row.next_probe_at > now:
            return False
        row.next_probe_at = now + timedelta(seconds=120)  # a probe that dies frees the slot in two minutes
        return True


def probe_now() -> None:
    """Let the next probe call DGI at once (an operator's sweep, a restart)."""
    with db.write_transaction() as session:
        row = _row(session, lock=True)
        if row.down_since is not None:
            row.next_probe_at = _now()


def probe_delay(session: Session) -> float:
    """Seconds until the next probe may call DGI (0 when it is up or the time came)."""
    row = session.get(DgiStatus, 1)
    if row is None or row.down_since is None or row.next_probe_at is None:
        return 0.0
    return max((row.next_probe_at - _now()).total_seconds(), 0.0)


# --- what waits ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backlog:
    receipts: int
    envelopes: int
    reports: int
    oldest: datetime | None  # when the oldest waiting receipt was issued


def backlog(session: Session, company_id: int | None = None) -> Backlog:
    """What waits on DGI: receipts not yet answered, envelopes not yet acknowledged, reports not yet answered."""
    subs = select(func.count(), func.min(DgiSubmission.created_at)).where(
        DgiSubmission.route == "sobre", DgiSubmission.state.in_(WAITING_STATES)
    )
    envelopes = select(func.count()).where(DgiEnvelope.state.in_(("armado", "recibido")))
    reports = select(func.count()).where(DgiDailyReport.state == "armado")
    if company_id is not None:
        subs = subs.where(DgiSubmission.company_id == company_id)
        envelopes = envelopes.where(DgiEnvelope.company_id == company_id)
        reports = reports.where(DgiDailyReport.company_id == company_id)
    count, oldest = session.execute(subs).one()
    return Backlog(
        receipts=int(count or 0),
        envelopes=int(session.scalar(envelopes.select_from(DgiEnvelope)) or 0),
        reports=int(session.scalar(reports.select_from(DgiDailyReport)) or 0),
        oldest=oldest,
    )


@dataclass(frozen=True)
class Status:
    down_since: datetime | None
    last_ok_at: datetime | None
    last_failure_at: datetime | None
    last_error: str | None
    last_error_texts: dict | None  # the error as i18n.stored keeps it (None: stored before migration 0365)
    failures: int
    next_probe_at: datetime | None


def status(session: Session) -> Status:
    row = session.get(DgiStatus, 1)
    if row is None:
        return Status(None, None, None, None, None, 0, None)
    return Status(
        row.down_since,
        row.last_ok_at,
        row.last_failure_at,
        row.last_error,
        row.last_error_texts,
        row.failures or 0,
        row.next_probe_at,
    )
