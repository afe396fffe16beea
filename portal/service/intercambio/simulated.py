"""The embedded DGI simulator's directory of electronic issuers: what its ws_consultas answers offline.

Its own data: every sandbox taxpayer DGI would list as an electronic issuer, DGI itself aside
(portal/service/dgi/sandbox_data.py, DGI's example RUTs included) with the exchange e-mail its fiscal address
declares, and both demo companies
(portal/service/seed.py) with a channel that works on one machine: the local exchange web service when
CFE_INTERCAMBIO_LOCAL_WS_URL names one, and in any case an exchange address whose mail lands in the development
mailbox (correo's, when no SMTP server is set)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from portal.service.dgi.sandbox_data import DGI_RUT, taxpayers
from portal.service.envios.consultas import ElectronicIssuer

# The demo companies' exchange addresses (development mailbox) and names, as seed.py creates them.
DEMO_EXCHANGE = {
    "219999830019": ("Demo S.A.", "intercambio@demo.uy"),
    "211003420017": ("Comercial del Norte S.R.L.", "intercambio@delnorte.uy"),
}
DEMO_SINCE = date(2013, 6, 3)


def _email(entity) -> str | None:
    address = entity.domicilio_fiscal
    for contact in address.contactos if address else ():
        if contact.tipo == "CORREO ELECTRONICO":
            return contact.valor.lower()
    return None


def simulated_issuers(
    config: Mapping[str, Any], since: datetime | None = None, rut: str | None = None
) -> list[ElectronicIssuer]:
    """The simulator's electronic issuers that changed after `since` (all of them when None), or one RUT."""
    local_ws = config.get("INTERCAMBIO_LOCAL_WS_URL") or None
    found: dict[str, ElectronicIssuer] = {}
    for taxpayer in taxpayers().values():
        entity = taxpayer.entity
        if not entity.emisor_electronico or entity.rut == DGI_RUT:  # DGI gets its copy as the tax authority
            continue
        desde = entity.emisor_electronico_desde
        if since is not None and desde is not None and desde < since.date():
            continue
        found[entity.rut] = ElectronicIssuer(entity.rut, entity.denominacion[:150], _email(entity), None, desde, None)
    for demo_rut, (name, email) in DEMO_EXCHANGE.items():
        # Always listed: their channel follows this process's settings.
        found[demo_rut] = ElectronicIssuer(demo_rut, name, email, local_ws, DEMO_SINCE, None)
    issuers = sorted(found.values(), key=lambda issuer: issuer.rut)
    return [issuer for issuer in issuers if rut is None or issuer.rut == rut]
