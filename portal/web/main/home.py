"""The home page's view model: the service's day summary in the words and order a person reads it, what is
left to set up before issuing, and the main actions the user's role may take."""

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
class SetupStep:
    """Something an admin must still set up before receipts are right, and the Empresa page that does it."""

    text: object
    endpoint: str
    page: object


# The service's codes (DaySummary.pending); one it may add later and the portal does not know yet is left out.
_SETUP_STEPS = {
    "sin_resolucion_ni_fecha_emisor": SetupStep(
        _l("La resolución de DGI o la fecha de ingreso como emisor: el pie del comprobante impreso la lleva."),
        "empresa.settings",
        _l("Datos fiscales"),
    ),
    "sin_domicilio": SetupStep(
        _l("La sucursal registrada en DGI, con su domicilio fiscal: sin ella no se puede emitir."),
        "empresa.branches",
        _l("Sucursales"),
    ),
    "sin_certificado": SetupStep(
        _l("Un certificado de firma electrónica vigente: sin él no se puede emitir."),
        "empresa.certificates",
        _l("Certificados"),
    ),
    "sin_cae": SetupStep(
        _l("Los CAE (los números que autoriza DGI) de los tipos que emite: sin ellos no se puede emitir."),
        "empresa.cae",
        _l("CAE"),
    ),
}


@dataclass(frozen=True)
class HomeView:
    summary: DaySummary
    net_by_currency: tuple[CurrencyTotal, ...]  # pesos first
    dgi_states: tuple[tuple[str, int], ...]  # (label, receipts)
    cae_ranges: tuple[CaeRangeInUse, ...]
    types_without_cae: tuple[str, ...]
    certificates: tuple[SigningCertificate, ...]
    setup: tuple[SetupStep, ...]  # what is left to set up before issuing, in the order of the Empresa pages


def home_view(summary: DaySummary) -> HomeView:
    return HomeView(
        summary=summary,
        net_by_currency=tuple(sorted(summary.today_by_currency, key=lambda t: (t.currency != "UYU", t.currency))),
        dgi_states=tuple((dgi_state_name(state), count) for state, count in summary.dgi.by_status),
        cae_ranges=summary.cae_ranges,
        types_without_cae=tuple(type_name(code) for code in summary.types_without_cae),
        certificates=summary.certificates,
        setup=tuple(_SETUP_STEPS[code] for code in summary.pending if code in _SETUP_STEPS),
    )
