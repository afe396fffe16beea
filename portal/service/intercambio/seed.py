"""Demo data of the exchange (development only): the directory filled from the embedded simulator's list, so
that both demo companies are electronic issuers (and receivers) of each other from the first `make run`."""

from __future__ import annotations

from collections.abc import Iterator

from flask import current_app
from sqlalchemy.orm import Session

from portal.service.intercambio.directory import upsert_issuer
from portal.service.intercambio.simulated import simulated_issuers


def seed_demo(session: Session, companies: list) -> Iterator[str]:
    issuers = simulated_issuers(current_app.config)
    for issuer in issuers:
        upsert_issuer(session, issuer, "simulador")
    yield f"exchange directory: {len(issuers)} electronic issuers from the DGI simulator (both demo companies)"
