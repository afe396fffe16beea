"""The company's printed contingency books (CFC, types 2xx): registered by an admin from DGI's authorisation,
audited like the CAE ranges. When the company cannot issue electronically at all it writes paper receipts from
them, and keys each in afterwards (docs: ../shared/domain/CFE-URUGUAY.md section 13)."""

from __future__ import annotations

from sqlalchemy import select

from portal.domain.uruguay_time import today_montevideo
from portal.service import db
from portal.service.auth import Principal
from portal.service.comprobante.contingency import book_use, book_voids
from portal.service.empresa import audit
from portal.service.empresa.models import ContingencyBook
from portal.service.empresa.schemas import LibretaIn, LibretaList, LibretaOut
from portal.service.errors import Conflict, FieldError, ValidationFailed
from portal.service.i18n import _

# DGI authorises at most 999,999 contingency documents per request (type F), and for two years.
MAX_NUMBERS = 999_999


def _out(book: ContingencyBook, used: int = 0, voided: int = 0) -> LibretaOut:
    today = today_montevideo()
    size = book.nro_hasta - book.nro_desde + 1
    return LibretaOut(
        usados=used,
        anulados=voided,
        libres=max(size - used - voided, 0),
        id=book.id,
        tipoCFE=book.tipo_cfe,
        serie=book.serie,
        desde=book.nro_desde,
        hasta=book.nro_hasta,
        caeId=book.cae_id,
        fechaAutorizacion=book.fecha_autorizacion,
        vencimiento=book.fecha_vencimiento,
        vigente=book.fecha_autorizacion <= today <= book.fecha_vencimiento,
        registradaPor=book.created_by,
        registradaEn=book.created_at,
    )


def list_books(principal: Principal) -> LibretaList:
    books = db.session().scalars(
        select(ContingencyBook)
        .where(ContingencyBook.company_id == principal.company_id)
        .order_by(ContingencyBook.tipo_cfe, ContingencyBook.serie, ContingencyBook.nro_desde)
    )
    session = db.session()
    used, voided = book_use(session, principal.company_id), book_voids(session, principal.company_id)
    return LibretaList(items=[_out(b, used.get(b.id, 0), voided.get(b.id, 0)) for b in books])


def register(principal: Principal, body: LibretaIn) -> LibretaOut:
    """Record a book; its range may not overlap another book of the same type and serie (409)."""
    problems = []
    if body.hasta < body.desde:
        problems.append(FieldError("hasta", "range", "El último número no puede ser menor que el primero."))
    elif body.hasta - body.desde + 1 > MAX_NUMBERS:
        problems.append(FieldError("hasta", "range", "DGI autoriza hasta 999.999 números por libreta."))
    if body.vencimiento <= body.fechaAutorizacion:
        problems.append(FieldError("vencimiento", "range", "El vencimiento debe ser posterior a la autorización."))
    if problems:
        raise ValidationFailed(problems)
    with db.write_transaction() as session:
        overlapping = session.scalar(
            select(ContingencyBook).where(
                ContingencyBook.company_id == principal.company_id,
                ContingencyBook.tipo_cfe == body.tipoCFE,
                ContingencyBook.serie == body.serie,
                ContingencyBook.nro_desde <= body.hasta,
                ContingencyBook.nro_hasta >= body.desde,
            )
        )
        if overlapping is not None:
            raise Conflict(
                _(
                    "Ya hay una libreta de tipo {tipo} y serie {serie} que usa los números {primero} a {ultimo}: "
                    "los rangos no pueden superponerse.",
                    tipo=overlapping.tipo_cfe,
                    serie=overlapping.serie,
                    primero=overlapping.nro_desde,
                    ultimo=overlapping.nro_hasta,
                ),
                code="libreta_superpuesta",
            )
        book = ContingencyBook(
            company_id=principal.company_id,
            tipo_cfe=body.tipoCFE,
            serie=body.serie,
            nro_desde=body.desde,
            nro_hasta=body.hasta,
            cae_id=body.caeId,
            fecha_autorizacion=body.fechaAutorizacion,
            fecha_vencimiento=body.vencimiento,
            created_by=principal.actor,
        )
        session.add(book)
        session.flush()
        audit.record(
            session,
            principal,
            "libreta_contingencia",
            audit.diff(
                {},
                {
                    "tipoCFE": body.tipoCFE,
                    "serie": body.serie,
                    "desde": body.desde,
                    "hasta": body.hasta,
                    "caeId": body.caeId,
                    "fechaAutorizacion": body.fechaAutorizacion,
                    "vencimiento": body.vencimiento,
                },
            ),
            target=f"CFC {body.tipoCFE} serie {body.serie} {body.desde}-{body.hasta}",
        )
        return _out(book)
