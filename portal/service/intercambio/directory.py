"""The directory of electronic issuers: whether a RUT is an electronic receiver, and where to deliver to it.

The contract other areas use is `find_issuer` and `ElectronicIssuer`; how the table is filled (DGI's
ws_consultas, refreshed daily, the simulator's own list for development) lives beside it."""

from __future__ import annotations

from sqlalchemy.orm import Session

from portal.domain.uruguay_time import today_montevideo
from portal.service.envios.consultas import ElectronicIssuer
from portal.service.intercambio.models import ElectronicIssuerRow
from portal.service.platform import db
from portal.service.platform.i18n import _


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
        tech_email=row.tech_email,
    )


# A reason smart issuance gives (said in its reader's language: a catalogue message, not a plain sentence).
ELECTRONIC_RECEIVER = _(
    "Receptor electrónico: figura en el directorio de emisores electrónicos de DGI; además de DGI, el "
    "comprobante se le entrega firmado por intercambio."
)


def is_electronic_receiver(rut: str) -> bool:
    """Whether this RUT is an electronic receiver today (the directory, read with the request's session)."""
    row = db.session().get(ElectronicIssuerRow, rut)
    return row is not None and (row.transition_from is None or row.transition_from <= today_montevideo())


def upsert_issuer(session: Session, issuer: ElectronicIssuer, source: str = "dgi") -> None:
    """Adds or replaces one directory entry (the caller commits). `source`: "dgi" or "simulador"."""
    row = session.get(ElectronicIssuerRow, issuer.rut) or ElectronicIssuerRow(rut=issuer.rut)
    row.name = issuer.name
    row.exchange_email = issuer.exchange_email
    row.ws_url = issuer.ws_url
    row.transition_from = issuer.transition_from
    row.transition_to = issuer.transition_to
    row.tech_email = issuer.tech_email
    row.source = source
    session.add(row)
