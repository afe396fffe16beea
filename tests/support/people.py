"""More people in a demo company than a page of its members list holds, stored directly (the list's tests need
rows, not the way in: adding one is tests/integration/test_empresa_people_api.py)."""

from __future__ import annotations

from flask import Flask

from portal.service.platform import db
from portal.service.platform.models import Membership, User


def add_people(service_app: Flask, count: int, *, company_id: int = 1, role: str = "usuario") -> list[str]:
    """`count` members of the company with `role`, named "Persona 001"... (so their order by name is their
    number); their e-mails, in that order. They cannot sign in (no password hash matches anything)."""
    emails = [f"persona{n:03d}@demo.uy" for n in range(1, count + 1)]
    with service_app.app_context():
        session = db.session()
        for n, email in enumerate(emails, start=1):
            user = User(email=email, name=f"Persona {n:03d}", password_hash="!")
            session.add(user)
            session.flush()
            session.add(Membership(user_id=user.id, company_id=company_id, role=role))
        session.commit()
    return emails
