"""The directory of electronic issuers: whether a RUT is an electronic receiver, and where to deliver to it.

The contract other areas use is `find_issuer` and `ElectronicIssuer`; how the table is filled (DGI's
ws_consultas, refreshed daily, the simulator's own list for development) lives beside it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session

from portal.service.intercambio.models import ElectronicIssuerRow


@dataclass(frozen=True)
class ElectronicIssuer:
    rut: str
    name: str
    exchange_email: str | None
    ws_url: str | None
    transition_from: date | None
    transition_to: date | None


def find_issuer(session: Session, rut: str) -> ElectronicIssuer | None:
    """The electronic issuer with this RUT, or None when the RUT is not an electronic receiver."""
    row = session.get(ElectronicIssuerRow, rut)
    if row is None:
        return None
    return ElectronicIssuer(
        rut=row.rut,
        name=row.name,
        exchange_email=row.exchange_email,
        ws_url=row.ws_url,
        transition_from=row.transition_from,
        transition_to=row.transition_to,
    )


def upsert_issuer(session: Session, issuer: ElectronicIssuer) -> None:
    """Adds or replaces one directory entry (the caller commits)."""
    row = session.get(ElectronicIssuerRow, issuer.rut) or ElectronicIssuerRow(rut=issuer.rut)
    row.name = issuer.name
    row.exchange_email = issuer.exchange_email
    row.ws_url = issuer.ws_url
    row.transition_from = issuer.transition_from
    row.transition_to = issuer.transition_to
    session.add(row)
