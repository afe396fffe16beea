"""Demo data of the road to DGI (development only): the DGI simulator's signing key, made up front rather than
at the first acknowledgement (an RSA key takes about 0.1 s to make, and every test database is a copy of the
demo one)."""

from __future__ import annotations

from collections.abc import Iterator

from flask import current_app
from sqlalchemy.orm import Session

from portal.service.envios.models import SimKey
from portal.service.envios.simulator import SimulatedDgi


def seed_demo(session: Session, companies: list) -> Iterator[str]:
    if session.get(SimKey, 1) is None:
        SimulatedDgi(current_app.config).signing_key(session)
        yield "DGI simulator's signing key created"
