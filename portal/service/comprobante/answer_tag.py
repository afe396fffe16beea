"""The strong ETag of a receipt's JSON answer (getByIdCfeEmitido), read without building the answer.

One query, by the receipt's id within the caller's company: IssuedCfe.answer_version, which triggers bump in the
same transaction as any change of what the answer shows in several rows per receipt (migration 0310: the
receipt itself, a voided number, its reference's history, a note issued against it, its e-mail sends), and
the columns the answer shows of the rows read one to one with it or shared by several receipts (its CAE range
or contingency book here; through hooks.TagPart its road to DGI, DGI's envelope and daily report, its road to
an electronic receiver, that receiver's envelope, notice and directory entry). To those: what the answer shows
that changes with the time alone (a receipt late for DGI, hooks.TagPart.now), the answer's language, the
addresses its links are built from, and the shape of the answer (its schema, once per process). Equal tags,
equal answers; a tag read before the answer is built is never newer than it.
"""

from __future__ import annotations

import functools
import hashlib
import json

from flask import current_app, request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from portal.service.comprobante import hooks
from portal.service.comprobante.models import CaeRangeRecord, ContingencyBook, IssuedCfe
from portal.service.comprobante.schemas import CfeEmitido
from portal.service.platform import db
from portal.service.platform.i18n import language


def answer_tag(session: Session, cfe_id: str, company_id: int) -> str | None:
    """The answer's ETag (quoted, strong), or None when the company has no such receipt."""
    # Columns only, prepared once: run straight on the session's connection (its transaction).
    prepared, names = _statement()
    rows = prepared.rows(session.connection(), {"cfe_id": cfe_id, "company_id": company_id})
    if not rows:
        return None
    now = hooks.tag_now(dict(zip(names, rows[0], strict=True)))
    values = (rows, now, language(), request.host_url, current_app.config["ISSUER"], _shape())
    return '"' + hashlib.blake2b(repr(values).encode(), digest_size=16).hexdigest() + '"'


def _statement() -> tuple[db.Prepared, tuple[str, ...]]:
    """The tag's statement, prepared, and its columns' names (the labelled ones TagPart.now reads)."""
    return _built_statement(hooks.sections())


@functools.lru_cache(maxsize=8)
def _built_statement(_sections: tuple) -> tuple[db.Prepared, tuple[str, ...]]:
    statement = (
        select(
            IssuedCfe.answer_version,
            CaeRangeRecord.cae_id,
            CaeRangeRecord.dnro,
            CaeRangeRecord.hnro,
            CaeRangeRecord.vencimiento,
            ContingencyBook.serie,
            ContingencyBook.cae_id,
            ContingencyBook.nro_desde,
            ContingencyBook.nro_hasta,
            ContingencyBook.fecha_vencimiento,
        )
        .outerjoin(CaeRangeRecord, CaeRangeRecord.id == IssuedCfe.cae_range_id)
        .outerjoin(ContingencyBook, ContingencyBook.id == IssuedCfe.libreta_id)
        .where(IssuedCfe.id == bindparam("cfe_id"), IssuedCfe.company_id == bindparam("company_id"))
    )
    statement = hooks.with_tag_columns(statement)
    return db.Prepared(statement), tuple(str(column.key) for column in statement.selected_columns)


@functools.cache
def _shape() -> str:
    """The answer's schema: a new release that changes what the answer holds changes every tag."""
    schema = json.dumps(CfeEmitido.model_json_schema(by_alias=True), sort_keys=True)
    return hashlib.blake2b(schema.encode(), digest_size=8).hexdigest()


def matches(tag: str) -> bool:
    """Whether the request's If-None-Match names `tag` (weak comparison, as RFC 9110 asks for it, or `*`)."""
    conditional = request.if_none_match
    return bool(conditional) and conditional.contains_weak(tag.strip('"'))
