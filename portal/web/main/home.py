"""The home page's view model: the service's day summary in the words and order a person reads it, and the
main actions the user's role may take."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

from portal.client.empresa import CaeRangeInUse, CurrencyTotal, DaySummary, SigningCertificate
from portal.domain import roles
from portal.web.comprobantes.choices import DGI_STATUS, type_name


@dataclass(frozen=True)
class Action:
    endpoint: str
    label: object
    primary: bool = False


_ACTIONS = (
    (Action("comprobantes.new", _l("Nuevo comprobante"), primary=True), roles.WRITERS),
    (Action("inteligente.new", _l("Emisión inteligente")), roles.WRITERS),
    (Action("dgi.index", _l("Consultar DGI")), roles.ALL),
    (Action("apikeys.index", _l("Claves de API")), roles.ADMINS),
    (Action("empresa.settings", _l("Empresa")), roles.ADMINS),
)


def actions_for(role: str | None) -> list[Action]:
    return [action for action, roles in _ACTIONS if role in roles]


def dgi_state_name(state: str) -> str:
    known = DGI_STATUS.get(state)
    return str(known[0]) if known else state


@dataclass(frozen=True)
class HomeView:
    summary: DaySummary
    net_by_currency: tuple[CurrencyTotal, ...]  # pesos first
    dgi_states: tuple[tuple[str, int], ...]  # (label, receipts)
    cae_ranges: tuple[CaeRangeInUse, ...]
    types_without_cae: tuple[str, ...]
    certificates: tuple[SigningCertificate, ...]


def home_view(summary: DaySummary) -> HomeView:
    return HomeView(
        summary=summary,
        net_by_currency=tuple(sorted(summary.today_by_currency, key=lambda t: (t.currency != "UYU", t.currency))),
        dgi_states=tuple((dgi_state_name(state), count) for state, count in summary.dgi.by_status),
        cae_ranges=summary.cae_ranges,
        types_without_cae=tuple(type_name(code) for code in summary.types_without_cae),
        certificates=summary.certificates,
    )
