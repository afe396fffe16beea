"""The plain issuing path: `emitir` for the receipts most integrations send, as one function over the write
transaction's DBAPI connection.

Why two paths (CONVENTIONS: one way to do each thing, so only where the speed needs it): issue #31 asks an
issue to cost at most 1.5 x a no-op POST plus building and signing, and the general path (issuing.issue_in)
builds an ORM receipt, attaches it and its DGI record to the session, and answers through the CfeEmitido model.
Here the same rows are written from plain values with statements compiled once per process
(db.Prepared: the columns' own bind processing, so the stored values are the same) and the answer is written
from the values in hand (presenters.fresh_json, the general path's answer byte for byte:
tests/integration/test_issued_answer.py). Both paths share everything else: the checks before the lock, the
key's look-up and record, numbering, signing, the group commit (durable before the 201, kill -9 safe), the
webhook outbox.

What this path covers: an electronic receipt (not a paper CFC) without references, for which every area that
follows issues offers its plain part (hooks.IssueFollowUp.plain_covers: envios does unless it corrects a
rejected receipt, intercambio unless the receipt may go to an electronic receiver or is a credit note). Anything
else, and every other caller of issuing.issue (smart requests, the full credit note), takes the general path.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sqlalchemy import Table
from sqlalchemy.orm import Session

from portal.service.cfe import CfeInput
from portal.service.cfe.contingency import is_cfc
from portal.service.comprobante import hooks, issuing
from portal.service.comprobante.events import receipt
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.numbering import allocate
from portal.service.comprobante.presenters import fresh_json, issued_json
from portal.service.comprobante.search import remember_receiver
from portal.service.eventos.publishing import publish
from portal.service.platform import db, idempotency
from portal.service.platform.auth import Principal

_RECEIPTS = IssuedCfe.metadata.tables[IssuedCfe.__tablename__]
_INSERTS: dict[Table, tuple[db.Prepared, tuple[tuple[str, bool], ...]]] = {}


def _insert_plan(table: Table) -> tuple[db.Prepared, tuple[tuple[str, bool], ...]]:
    plan = _INSERTS.get(table)
    if plan is None:
        plan = _INSERTS[table] = db.prepared_insert(table)
    return plan


def covers(cfe: CfeInput, issuer_rut: str) -> bool:
    """Whether this path issues `cfe` (see the module's docstring)."""
    if is_cfc(cfe.tipo_cfe) or cfe.referencias:
        return False
    return all(follow_up.plain_covers(cfe, issuer_rut) for follow_up in hooks.follow_ups())


def emitir(
    principal: Principal, cfe: CfeInput, idempotency_key: idempotency.RequestedKey | None
) -> issuing.IssueResult:
    """Issue `cfe` for the `emitir` endpoint: the result carries the 201's JSON value (`answer`), which the
    key's outcome records too, or the key's replay."""
    checked = issuing.checked_for_issue(principal, cfe, idempotency_key)
    if isinstance(checked, issuing.IssueResult):
        return checked
    if covers(cfe, checked.issuer.rut):

        def work(session: Session) -> issuing.IssueResult:
            return _issue_plainly(session, principal, cfe, checked, idempotency_key)

    else:

        def work(session: Session) -> issuing.IssueResult:
            answer: dict[str, Any] = {}

            def remember(session: Session, result: issuing.IssueResult) -> None:
                # Built once, inside the transaction: it is what a replay of the key will send too.
                assert result.cfe is not None and result.numbering is not None
                answer.update(issued_json(result.cfe, result.warnings, session, result.numbering))
                if idempotency_key is not None:
                    idempotency.record(session, principal.company_id, idempotency_key, 201, answer)

            result = issuing.issue_in(session, principal, cfe, checked, remember)
            return issuing.IssueResult(None, result.warnings, wakeups=result.wakeups, answer=answer)

    return issuing.run_issue(principal, cfe, work, idempotency_key)


def _issue_plainly(
    session: Session,
    principal: Principal,
    cfe: CfeInput,
    checked: issuing.Checked,
    idempotency_key: idempotency.RequestedKey | None,
) -> issuing.IssueResult:
    """The issue in the (shared) write transaction `session`: the same rows as issuing.issue_in, as plain
    values on its connection."""
    company_id = principal.company_id
    connection = db.connection_of(session)
    allocation = allocate(session, company_id, cfe.tipo_cfe, cfe.fch_emis)
    signed = issuing.sign_checked(cfe, checked.totals, checked.issuer, allocation.numbering, checked.key.signer)
    values = issuing.receipt_values(
        principal,
        cfe,
        checked.issuer,
        allocation.numbering,
        allocation.range_id,
        checked.key.certificate_id,
        signed,
    )
    values["libreta_id"] = None
    values["print_paper"], values["print_logo_sha256"] = issuing.print_snapshot(session, company_id, checked.printed)
    issued = hooks.PlainIssued(values, cfe, checked.issuer.rut, checked.ui_value, signed.totals)
    parts = [follow_up.plain(issued) for follow_up in hooks.follow_ups()]
    for part in parts:
        values.update(part.receipt)
    db.insert_values(connection, _insert_plan(_RECEIPTS), values)
    sections: dict[str, Any] = {}
    for part in parts:
        for table, row in part.rows:
            db.insert_values(connection, _insert_plan(table), row)
        sections.update(part.sections)
    remember_receiver(session, company_id, values["receptor_busqueda"])
    record: Any = SimpleNamespace(**values)  # the receipt's columns, read by name as the ORM object's would be
    publish(session, company_id, "comprobante.emitido", receipt(record))  # the webhooks' outbox
    warnings = [allocation.warning] if allocation.warning else []
    answer = fresh_json(record, warnings, allocation.numbering, sections)
    if idempotency_key is not None:
        idempotency.record(session, company_id, idempotency_key, 201, answer)
    wakeups = tuple(part.wakeup for part in parts if part.wakeup is not None)
    return issuing.IssueResult(None, warnings, wakeups=wakeups, numbering=allocation.numbering, answer=answer)
