"""What the company does with a received CFE: accept or reject it commercially (sent to the supplier as a
second ACKCFE, AE or BE with a motive E20-E60), and book or unbook it (the flag an accounting system uses to
pull only what is new). A CFE rejected on arrival, or that DGI rejected, can be neither accepted nor booked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from portal.domain.commercial_motives import is_agreed
from portal.domain.uruguay_time import montevideo_time
from portal.service.envios.acks import CfeVerdict
from portal.service.platform import db
from portal.service.platform.errors import ApiError, FieldError, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.models import Company
from portal.service.recibidos import acks
from portal.service.recibidos.models import PURCHASE, ReceivedCfe, ReceivedEnvelope
from portal.service.recibidos.motives import motive


def _conflict(message: str, code: str) -> ApiError:
    return ApiError(message, code=code, status=409)


def _check_open(row: ReceivedCfe) -> None:
    if row.estado != "AE":
        raise _conflict(_("Este CFE fue rechazado al recibirlo (BE): no admite otra respuesta."), "recibido_rechazado")
    if row.anulado_dgi:
        raise _conflict(_("DGI rechazó este CFE: no admite otra respuesta."), "rechazado_por_dgi")
    if row.decision is not None:
        decided = row.decided_at or datetime.now(UTC)  # set with the decision, always
        dia = f"{montevideo_time(decided):%d/%m/%Y}"  # the day in Uruguay (22:30 there is tomorrow in UTC)
        if row.decision == "aceptado":
            raise _conflict(_("Este CFE ya fue aceptado el {dia}.", dia=dia), "ya_decidido")
        raise _conflict(_("Este CFE ya fue rechazado el {dia}.", dia=dia), "ya_decidido")


def check(row: ReceivedCfe, decision: str, code: str | None = None, text: str | None = None) -> None:
    """The 409 or 422 that refuses this decision on this CFE, raised before anything changes."""
    _check_open(row)
    if decision == "rechazado" and row.contabilizado:
        # Its booked mark is what an accounting system pulls: a rejected purchase left booked would stay in the books
        # unseen. The accountant takes the mark off first, knowing whether the entry was already passed on.
        raise _conflict(
            _(
                "Este CFE está marcado como contabilizado: quitá la marca antes de rechazarlo (si ya pasó a la "
                "contabilidad, revertí el asiento)."
            ),
            "recibido_contabilizado",
        )
    if decision == "rechazado":
        check_motive(code, text)


def check_motive(code: str | None, text: str | None) -> None:
    """422 on `detalle` for a motive agreed between the parties (E27-E60) without its words."""
    if code and is_agreed(code) and not (text or "").strip():
        raise ValidationFailed(
            [
                FieldError(
                    "detalle", "required", _("El motivo {code} se acuerda entre las partes: escribilo.", code=code)
                )
            ],
            message=_("Falta el detalle del motivo."),
        )


def decide(
    session: Session, row: ReceivedCfe, decision: str, actor: str, code: str | None = None, text: str | None = None
) -> int:
    """Records the decision and the ACKCFE that tells the supplier; returns the answer's id (wake it after the
    commit)."""
    check(row, decision, code, text)
    now = datetime.now(UTC)
    row.decision, row.decided_at, row.decided_by = decision, now, actor
    row.decision_motive = code if decision == "rechazado" else None
    row.decision_text = (text or "").strip()[:500] or None
    envelope = session.get_one(ReceivedEnvelope, row.sobre_id)
    company = session.get_one(Company, row.company_id)
    verdict = CfeVerdict(
        ordinal=row.ordinal,
        tipo_cfe=row.tipo_cfe,
        serie=row.serie,
        nro=row.nro,
        estado="BE" if decision == "rechazado" else "AE",
        motives=[motive(code, text)] if decision == "rechazado" and code else [],
        fecha=row.fch_emis.isoformat() if row.fch_emis else None,
        tmst=row.tmst_firma,
    )
    answer = acks.ack_cfe(session, company, envelope, [verdict], now, cfe_id=row.id)
    session.flush()
    return answer.id


def chosen(session: Session, company_id: int, ids: Sequence[int]) -> tuple[list[ReceivedCfe], list[int]]:
    """The company's received CFEs among `ids`, locked until the write transaction ends, in the caller's order, and
    the ids that are not the company's (another company's are as missing as those that never were). Locked in the
    order of their ids: two calls at once over the same CFEs (PostgreSQL) wait for each other, never deadlock."""
    rows = session.scalars(
        select(ReceivedCfe)
        .where(ReceivedCfe.id.in_(ids), ReceivedCfe.company_id == company_id)
        .order_by(ReceivedCfe.id)
        .with_for_update()
    ).all()
    position = {received_id: index for index, received_id in enumerate(ids)}
    found = {row.id for row in rows}
    return sorted(rows, key=lambda r: position[r.id]), [i for i in ids if i not in found]


@dataclass(frozen=True)
class Several:
    """What a decision on several received CFEs did: each id is done, refused (with the error a call for it
    alone answers) or missing; `answer_ids` are the answers to wake after the commit."""

    done: list[int]
    refused: list[tuple[ReceivedCfe, ApiError]]
    missing: list[int]
    answer_ids: list[int]


def reject_several(
    session: Session, company_id: int, ids: Sequence[int], actor: str, code: str, text: str | None
) -> Several:
    """Reject each chosen CFE as a rejection of it alone does (its rules, its ACKCFE recorded in this transaction);
    the ones those rules refuse are said with why, and the rest go on."""
    rows, missing = chosen(session, company_id, ids)
    done: list[int] = []
    refused: list[tuple[ReceivedCfe, ApiError]] = []
    answer_ids: list[int] = []
    for row in rows:
        try:
            check(row, "rechazado", code, text)
        except ApiError as exc:
            refused.append((row, exc))
            continue
        # Outside the try: a failure past the checks (signing the answer) is no refusal of this CFE, and rolls
        # back the whole call rather than leave a decision without its answer.
        answer_ids.append(decide(session, row, "rechazado", actor, code, text))
        done.append(row.id)
    return Several(done, refused, missing, answer_ids)


def book(row: ReceivedCfe, booked: bool) -> None:
    if booked and not row.is_purchase:
        if row.anulado_dgi:
            raise _conflict(_("No se puede contabilizar: DGI rechazó este CFE."), "no_contabilizable")
        raise _conflict(_("No se puede contabilizar: el CFE está rechazado."), "no_contabilizable")
    if row.contabilizado != booked:
        row.contabilizado = booked
        row.contabilizado_at = datetime.now(UTC) if booked else None


def book_matching(session: Session, where: list, up_to: int | None, limit: int) -> tuple[int, int]:
    """Book the purchases not booked yet that match `where` (and whose id is at most `up_to`), at most `limit` of
    them, oldest first, in one UPDATE; answers how many were booked and how many still match. Rejected ones are
    no purchase and are left alone, as book() refuses them."""
    matching = [*where, *PURCHASE, ReceivedCfe.contabilizado.is_(False)]
    if up_to is not None:
        matching.append(ReceivedCfe.id <= up_to)
    chosen = select(ReceivedCfe.id).where(*matching).order_by(ReceivedCfe.id).limit(limit).scalar_subquery()
    booked = db.rows_affected(
        session,
        update(ReceivedCfe)
        .where(ReceivedCfe.id.in_(chosen))
        .values(contabilizado=True, contabilizado_at=datetime.now(UTC))
        .execution_options(synchronize_session=False),
    )
    left = session.scalar(select(func.count()).select_from(ReceivedCfe).where(*matching)) or 0
    return booked, left
