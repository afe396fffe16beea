"""The notification centre: a company's notices, newest first, read and unread per person."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import func, insert, select

from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import NotFound
from portal.service.platform.i18n import _, said, say, stored
from portal.service.salud.models import Notice, NoticeRead
from portal.service.salud.schemas import NoticeOut, NoticePage, NoticeQuery


def _reader(principal: Principal) -> str:
    return principal.email or principal.actor


def texts(message: str, action: str) -> dict:
    """What a Notice keeps in `texts`: its message and action, to be said in each reader's language."""
    return {"mensaje": stored(message), "accion": stored(action, "accion")}


def _said(notice: Notice) -> tuple[str, str]:
    if not notice.texts:
        return say(notice.message), say(notice.action)
    return said(notice.texts["mensaje"]), said(notice.texts["accion"], "accion")


def unread_count(principal: Principal) -> int:
    read = select(NoticeRead.notice_id).where(NoticeRead.user_email == _reader(principal))
    return int(
        db.session().scalar(
            select(func.count()).where(Notice.company_id == principal.company_id, Notice.id.not_in(read))
        )
        or 0
    )


def page(principal: Principal, query: NoticeQuery) -> NoticePage:
    session = db.session()
    statement = (
        select(Notice, NoticeRead.id)
        .outerjoin(NoticeRead, (NoticeRead.notice_id == Notice.id) & (NoticeRead.user_email == _reader(principal)))
        .where(Notice.company_id == principal.company_id)
        .order_by(Notice.id.desc())
        .limit(query.limite + 1)
    )
    if query.cursor:
        statement = statement.where(Notice.id < int(query.cursor))
    rows = session.execute(statement).all()
    items = [
        NoticeOut(
            id=n.id,
            clave=n.key,
            tipo=n.kind,
            estado=n.state,
            mensaje=_said(n)[0],
            accion=_said(n)[1],
            enlace=n.link,
            creado=n.created_at,
            leido=read_id is not None,
        )
        for n, read_id in rows[: query.limite]
    ]
    more = len(rows) > query.limite
    return NoticePage(
        items=items, noLeidos=unread_count(principal), siguienteCursor=str(items[-1].id) if more else None
    )


def mark_read(principal: Principal, notice_id: int | None) -> None:
    """Mark one notice (or, with None, every notice of the company) read for this person."""
    reader, now = _reader(principal), datetime.now(UTC)
    with db.write_transaction() as session:
        unread = select(Notice.id).where(
            Notice.company_id == principal.company_id,
            Notice.id.not_in(select(NoticeRead.notice_id).where(NoticeRead.user_email == reader)),
        )
        if notice_id is not None:
            notice = session.get(Notice, notice_id)
            if notice is None or notice.company_id != principal.company_id:
                raise NotFound(_("No existe ese aviso en la empresa."))
            unread = unread.where(Notice.id == notice_id)
        ids = list(session.scalars(unread))
        if ids:
            session.execute(insert(NoticeRead), [{"notice_id": i, "user_email": reader, "read_at": now} for i in ids])
