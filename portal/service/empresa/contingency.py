"""The company's printed contingency books (CFC, types 2xx): registered by an admin from DGI's authorisation,
audited like the CAE ranges. When the company cannot issue electronically at all it writes paper receipts from
them, and keys each in afterwards (docs: ../shared/domain/CFE-URUGUAY.md section 13)."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import today_montevideo
from portal.service.comprobante.models import CaeRangeRecord, ContingencyBook, IssuedCfe, VoidedRange
from portal.service.empresa import audit
from portal.service.empresa.schemas import AnularLibretaIn, LibretaAnulacionOut, LibretaIn, LibretaList, LibretaOut
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _, cfe_type


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
    # The range and the dates were checked with the body's other fields (schemas.LibretaIn): one 422 for all.
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
                    tipo=cfe_type(overlapping.tipo_cfe),
                    serie=overlapping.serie,
                    primero=overlapping.nro_desde,
                    ultimo=overlapping.nro_hasta,
                ),
                code="libreta_superpuesta",
            )
        _check_authorisation_number(session, principal.company_id, body)
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


def _check_authorisation_number(session: Session, company_id: int, body: LibretaIn) -> None:
    """DGI gives each authorisation one type and serie, with its dates: the same number on a book of another type,
    serie or dates, or on one of the company's electronic CAE ranges, is a typo, and DGI would observe every paper
    keyed in from that book (C09). The same authorisation printed as several booklets is registered booklet by
    booklet: the same number with the same type, serie and dates."""
    other = session.scalar(
        select(ContingencyBook).where(
            ContingencyBook.company_id == company_id,
            ContingencyBook.cae_id == body.caeId,
            or_(
                ContingencyBook.tipo_cfe != body.tipoCFE,
                ContingencyBook.serie != body.serie,
                ContingencyBook.fecha_autorizacion != body.fechaAutorizacion,
                ContingencyBook.fecha_vencimiento != body.vencimiento,
            ),
        )
    )
    if other is not None:
        message = _(
            "La autorización {numero} de DGI ya está registrada para la libreta de tipo {tipo}, serie {serie}, "
            "autorizada el {fecha:%d/%m/%Y}: cada autorización es de un solo tipo y serie. Revisá el número en la "
            "constancia.",
            numero=body.caeId,
            tipo=cfe_type(other.tipo_cfe),
            serie=other.serie,
            fecha=other.fecha_autorizacion,
        )
        raise Conflict(message, code="libreta_autorizacion_repetida")
    cae = session.scalar(
        select(CaeRangeRecord).where(CaeRangeRecord.company_id == company_id, CaeRangeRecord.cae_id == int(body.caeId))
    )
    if cae is not None:
        message = _(
            "La autorización {numero} de DGI es la del CAE electrónico de tipo {tipo}, serie {serie}: una libreta de "
            "contingencia tiene su propia autorización. Revisá el número en la constancia.",
            numero=body.caeId,
            tipo=cfe_type(cae.tipo_cfe),
            serie=cae.serie,
        )
        raise Conflict(message, code="libreta_autorizacion_repetida")


# The books' use (empresa's list of books) and voiding their unused numbers ------------------------------------


def book_use(session: Session, company_id: int) -> dict[int, int]:
    """Paper receipts keyed in, per book of the company."""
    rows = session.execute(
        select(IssuedCfe.libreta_id, func.count())
        .where(IssuedCfe.company_id == company_id, IssuedCfe.libreta_id.is_not(None))
        .group_by(IssuedCfe.libreta_id)
    )
    return {book_id: count for book_id, count in rows if book_id is not None}


def book_voids(session: Session, company_id: int) -> dict[int, int]:
    """Numbers voided, per book."""
    rows = session.execute(
        select(VoidedRange.libreta_id, func.sum(VoidedRange.nro_hasta - VoidedRange.nro_desde + 1))
        .where(VoidedRange.company_id == company_id, VoidedRange.libreta_id.is_not(None))
        .group_by(VoidedRange.libreta_id)
    )
    return {book_id: int(count) for book_id, count in rows if book_id is not None}


def _locked_book(session: Session, principal: Principal, book_id: int) -> ContingencyBook:
    """The caller's company's book, locked for the change; 404 for one that is not (another company's too)."""
    book = session.get(ContingencyBook, book_id, with_for_update=True)
    if book is None or book.company_id != principal.company_id:
        raise NotFound(_("No existe esa libreta de contingencia en la empresa."), code="libreta_no_encontrada")
    return book


def void_paper(principal: Principal, book_id: int, body: AnularLibretaIn) -> LibretaAnulacionOut:
    """Void paper numbers `desde`..`hasta` of a book that were never keyed in nor voided, as a CAE range's unused
    numbers are voided (dgi_anulacion, with the book instead of a range; audited). A voided number is never keyed
    in afterwards."""
    with db.write_transaction() as session:
        book = _locked_book(session, principal, book_id)
        if body.hasta < body.desde or body.desde < book.nro_desde or body.hasta > book.nro_hasta:
            message = _(
                "La libreta va del {primero} al {ultimo}: anulá números dentro de ese rango, del menor al mayor.",
                primero=book.nro_desde,
                ultimo=book.nro_hasta,
            )
            raise ValidationFailed(
                [FieldError("hasta", "anulacion_fuera_de_libreta", message)],
                message=message,
                code="anulacion_fuera_de_libreta",
            )
        used = session.scalar(
            select(func.min(IssuedCfe.nro)).where(
                IssuedCfe.libreta_id == book.id, IssuedCfe.nro >= body.desde, IssuedCfe.nro <= body.hasta
            )
        )
        voided = session.scalar(
            select(func.min(VoidedRange.nro_desde)).where(
                VoidedRange.libreta_id == book.id,
                VoidedRange.nro_desde <= body.hasta,
                VoidedRange.nro_hasta >= body.desde,
            )
        )
        if used is not None or voided is not None:
            raise Conflict(
                _(
                    "Entre el {primero} y el {ultimo} hay números ya ingresados o anulados: anulá solo los libres.",
                    primero=body.desde,
                    ultimo=body.hasta,
                ),
                code="cfc_numero_usado",
            )
        record = VoidedRange(
            company_id=principal.company_id,
            cae_range_id=None,
            libreta_id=book.id,
            tipo_cfe=book.tipo_cfe,
            serie=book.serie,
            nro_desde=body.desde,
            nro_hasta=body.hasta,
            fecha=today_montevideo(),
            source="operador",
            reason=body.motivo,
            created_by=principal.actor,
        )
        session.add(record)
        audit.record(
            session,
            principal,
            "libreta_contingencia_anulacion",
            audit.diff({}, {"desde": body.desde, "hasta": body.hasta, "motivo": body.motivo}),
            target=f"CFC {book.tipo_cfe} serie {book.serie} {book.nro_desde}-{book.nro_hasta}",
        )
        session.flush()
        return LibretaAnulacionOut(
            libreta=book.id,
            tipoCFE=book.tipo_cfe,
            serie=book.serie,
            desde=body.desde,
            hasta=body.hasta,
            fecha=record.fecha,
            motivo=body.motivo,
            anuladaPor=principal.actor,
        )


def remove(principal: Principal, book_id: int) -> None:
    """Remove a book registered with a mistake (a number, a date), so it can be registered again as DGI authorised
    it: a book's data are what its papers are checked against, and they never change. Only a book nothing was
    done with: a paper keyed in or a number voided ties it to what was reported (409 `libreta_en_uso`)."""
    with db.write_transaction() as session:
        book = _locked_book(session, principal, book_id)
        keyed_in = session.scalar(select(func.count()).where(IssuedCfe.libreta_id == book.id))
        voided = session.scalar(select(func.count()).where(VoidedRange.libreta_id == book.id))
        if keyed_in or voided:
            raise Conflict(
                _(
                    "La libreta ya tiene papeles ingresados o números anulados: no se puede borrar. Anulá sus "
                    "números libres si no se va a usar más."
                ),
                code="libreta_en_uso",
            )
        registered = {
            "tipoCFE": book.tipo_cfe,
            "serie": book.serie,
            "desde": book.nro_desde,
            "hasta": book.nro_hasta,
            "caeId": book.cae_id,
            "fechaAutorizacion": book.fecha_autorizacion,
            "vencimiento": book.fecha_vencimiento,
        }
        audit.record(
            session,
            principal,
            "libreta_contingencia_borrada",
            audit.diff(registered, dict.fromkeys(registered)),  # what it said, and nothing after
            target=f"CFC {book.tipo_cfe} serie {book.serie} {book.nro_desde}-{book.nro_hasta}",
        )
        session.delete(book)
