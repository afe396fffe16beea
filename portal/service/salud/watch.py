"""The scheduled check: evaluate every concern of a company, keep the verdicts, and act on what turned worse.

A concern whose signature (state and threshold) changes to a warning or a problem gets a notice in the
notification centre, a webhook event where one exists (`cae.por_agotarse`, `certificado.por_vencer`), and a
line in the admins' e-mail digest unless that concern was already mailed in the last 24 hours (one that became a
problem is mailed at once).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from portal.service.eventos.admin_mail import tell_admins
from portal.service.eventos.publishing import publish
from portal.service.platform import db
from portal.service.platform.i18n import _
from portal.service.platform.models import Company
from portal.service.salud import checks, dgi, notices  # noqa: F401 - dgi registers its concerns
from portal.service.salud.concerns import OK, PROBLEM, Concern
from portal.service.salud.models import ConcernState, Notice

MAIL_INTERVAL = timedelta(hours=24)
EVENTS = {"cae": "cae.por_agotarse", "certificado": "certificado.por_vencer"}


def run(company_id: int, now: datetime | None = None) -> list[Concern]:
    """Check one company and record the outcome; returns the concerns that turned worse."""
    now = now or datetime.now(UTC)
    to_mail: list[Concern] = []
    turned: list[Concern] = []
    with db.write_transaction() as session:
        found = checks.evaluate(checks.Context(session, company_id, now))
        known = {s.key: s for s in session.scalars(select(ConcernState).where(ConcernState.company_id == company_id))}
        for concern in found:
            state = known.pop(concern.key, None)
            news = concern.state != OK and (state is None or state.signature != concern.signature)
            # A warning that became a problem is mailed at once, whenever the warning was (the daily limit is for
            # the steps within a state: 30 days, then 15, of a certificate's warning).
            escalated = concern.state == PROBLEM and (state is None or state.state != PROBLEM)
            if state is None:
                state = ConcernState(company_id=company_id, key=concern.key, changed_at=now)
                session.add(state)
            elif state.signature != concern.signature:
                state.changed_at = now
            state.kind, state.state, state.signature = concern.kind, concern.state, concern.signature
            state.message, state.action, state.link = concern.message, concern.action, concern.link
            state.facts, state.checked_at = concern.facts, now
            if not news:
                continue
            turned.append(concern)
            session.add(
                Notice(
                    company_id=company_id,
                    key=concern.key,
                    kind=concern.kind,
                    state=concern.state,
                    message=concern.message,
                    action=concern.action,
                    link=concern.link,
                    created_at=now,
                    texts=notices.texts(concern.message, concern.action),
                )
            )
            if concern.kind in EVENTS:
                publish(
                    session,
                    company_id,
                    EVENTS[concern.kind],
                    {"clave": concern.key, "estado": concern.state, **concern.facts},
                )
            if escalated or state.mailed_at is None or now - state.mailed_at >= MAIL_INTERVAL:
                state.mailed_at = now
                to_mail.append(concern)
        for gone in known.values():  # a concern that no longer exists (a range replaced): forget it
            session.delete(gone)
    if to_mail:
        _digest(company_id, to_mail)
    return turned


def _digest(company_id: int, found: list[Concern]) -> None:
    with db.new_session() as session:
        company = session.get_one(Company, company_id)
        # Each concern's sentence and action are catalogue messages, said in each admin's language with the rest.
        tell_admins(
            session,
            company_id,
            _(
                "Avisos de cumplimiento de {empresa}: {cantidad} para atender",
                empresa=company.razon_social,
                cantidad=len(found),
            ),
            _("El control de cumplimiento encontró:"),
            *[
                _("- {aviso}\n  Qué hacer: {accion} ({enlace})", aviso=c.message, accion=c.action, enlace=c.link)
                for c in found
            ],
            _("Vea todos los avisos en el portal."),
        )


def run_all(now: datetime | None = None) -> int:
    with db.new_session() as session:
        companies = list(session.scalars(select(Company.id)))
    for company_id in companies:
        run(company_id, now)
    return len(companies)
