"""A receipt's DGI state as people see it: a badge, DGI's reasons when it refused, and how soon to look again.

One presenter for every page that shows the state (receipt page, recent list, smart-issuance status), through
the one partial templates/_dgi_state.html. A state that is not final carries `poll_seconds`: the partial asks
its fragment again after that long (htmx load-polling) and stops once the state is final.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from flask_babel import lazy_gettext as _l

from portal.web.dgi_labels import STATES

_UNKNOWN_POLL_SECONDS = 30
_NOT_FINAL_POLL_SECONDS = 3


@dataclass(frozen=True)
class Reason:
    code: str
    text: str
    detail: str | None = None


@dataclass(frozen=True)
class DgiBadge:
    receipt_id: str
    state: str
    label: str
    tone: str
    reasons: tuple[Reason, ...] = ()
    poll_seconds: int | None = None

    @property
    def final(self) -> bool:
        return self.poll_seconds is None

    @property
    def rejected(self) -> bool:
        """DGI refused the receipt: it has no fiscal validity and its number is voided."""
        return self.state == "rechazado"


def dgi_badge(receipt_id: str, state: str | None, motives: Iterable = (), *, final: bool | None = None) -> DgiBadge:
    """The badge of `state`; `motives` are DGI's (objects with code, text and maybe detail). `final`, when
    the service says it, decides whether to look again. No state yet (a list that only knows the receipt's
    id) renders a placeholder that asks its fragment at once."""
    if state is None:
        return DgiBadge(receipt_id, "consultando", str(_l("Consultando DGI…")), "neutral", (), 0)
    label, tone, poll = STATES.get(state, (state, "neutral", _UNKNOWN_POLL_SECONDS))
    if final is not None:
        poll = None if final else (poll or _NOT_FINAL_POLL_SECONDS)
    reasons = tuple(Reason(m.code, m.text, getattr(m, "detail", None)) for m in motives)
    return DgiBadge(receipt_id, state, str(label), tone, reasons, poll)


@dataclass(frozen=True)
class DgiPanel:
    """The receipt page's DGI block: the badge, since when, and the links of a corrected re-issue."""

    badge: DgiBadge
    since: datetime | None = None
    corrects: str | None = None
    corrected_by: str | None = None
    can_correct: bool = False
    labels: dict[str, str] = field(default_factory=dict)  # linked receipt id -> "e-Factura A-0000001"
    observations: int = 0  # times DGI observed it (a contingency receipt keyed in from paper)
    can_correct_contingency: bool = False  # observed: "Corregir y reenviar" (same paper, same number)
    dgi_down_since: datetime | None = None  # it waits and DGI does not answer: since when (the shell's notice)

    def label(self, receipt_id: str) -> str:
        return self.labels.get(receipt_id, receipt_id)


def receipt_badge(receipt) -> DgiBadge:
    """The badge of an issued receipt (portal.client.comprobantes.IssuedReceipt)."""
    dgi = receipt.dgi
    if dgi is None:  # a service without the envios area: its plain estadoDGI
        return dgi_badge(receipt.id, receipt.dgi_status)
    return dgi_badge(receipt.id, dgi.state, dgi.motives, final=dgi.final)


def receipt_panel(receipt, *, can_write: bool, labels: dict[str, str] | None = None) -> DgiPanel:
    """`labels` names the linked receipts (the rejected one and its correction) for their links."""
    dgi = receipt.dgi
    badge = receipt_badge(receipt)
    if dgi is None:
        return DgiPanel(badge)
    return DgiPanel(
        badge,
        dgi.since,
        dgi.corrects,
        dgi.corrected_by,
        can_correct=can_write and badge.rejected and not dgi.corrected_by,
        labels=labels or {},
        observations=dgi.observations,
        can_correct_contingency=can_write and dgi.state == "observado",
        dgi_down_since=None if badge.final else dgi.dgi_down_since,
    )
