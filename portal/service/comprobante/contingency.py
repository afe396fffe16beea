"""Keying a paper contingency receipt (CFC, types 2xx) in, and correcting one DGI observed.

The company wrote the receipt on paper from a printed book DGI authorised (registered in /empresa/contingencia)
because it could not issue electronically at all. Keyed in afterwards, it is checked against that book (type,
serie, range, dates; each paper number once, never a voided one), built and signed as its 1xx type with the
paper's serie and number and the book's CAE data, then made TipoCFE 2xx and signed again
(portal/service/cfe/contingency.py). It goes to DGI only: never by e-mail to the customer, never by the exchange
between companies. DGI answers AE or CE "observado" (C03-C15); an observed one is corrected here, keeping its
number, and sent again (CFE-URUGUAY.md section 13).
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe import CfeInput, Numbering, SignedCfe
from portal.service.cfe import contingency as cfc
from portal.service.cfe.amounts import qr_amount
from portal.service.cfe.errors import CfeSchemaError
from portal.service.cfe.qr import qr_url
from portal.service.cfe.schema import schema_available, validate_cfe
from portal.service.cfe.signing import CfeSigner
from portal.service.comprobante.models import ContingencyBook, IssuedCfe, VoidedRange
from portal.service.platform.errors import Conflict, FieldError, ValidationFailed
from portal.service.platform.i18n import _, cfe_type

PAPER = "contingencia"


@dataclass(frozen=True)
class PaperNumber:
    """The book that authorises a paper number, and the numbering the receipt is signed with."""

    book_id: int
    numbering: Numbering


def engine_input(cfe: CfeInput) -> CfeInput:
    """What the engine validates and builds for `cfe`: a CFC's 1xx type (2xx = 1xx + 100), the same data."""
    if not cfc.is_cfc(cfe.tipo_cfe):
        return cfe
    return cfe.model_copy(update={"tipo_cfe": cfc.base_type(cfe.tipo_cfe), "contingencia": None})


def check_shape(cfe: CfeInput) -> None:
    """A CFC names its paper (serie, number) and date; a CFE names no paper. 422 before anything else."""
    if not cfc.is_cfc(cfe.tipo_cfe):
        if cfe.contingencia is not None:
            raise _refused(
                "cfc_tipo_distinto",
                PAPER,
                _("Los datos del papel solo van con un tipo de contingencia (el tipo electrónico + 100, como 211)."),
            )
        return
    problems = []
    if cfe.contingencia is None:
        problems.append(FieldError(PAPER, "required", _("Indicá la serie y el número impresos en el papel.")))
    if "fch_emis" not in cfe.model_fields_set:
        problems.append(FieldError("fchEmis", "required", _("Indicá la fecha escrita en el papel.")))
    if problems:
        raise ValidationFailed(problems, message=_("Faltan los datos del comprobante de contingencia en papel."))
    if cfe.fch_emis > today_montevideo():
        raise _refused("cfc_fecha_futura", "fchEmis", _("La fecha del papel no puede ser posterior a hoy."))


def paper_number(session: Session, company_id: int, cfe: CfeInput, *, keyed: IssuedCfe | None = None) -> PaperNumber:
    """Check the paper against the company's books (in the write transaction, before signing) and return how it
    is numbered. `keyed`: the receipt being corrected (its own number is not "already keyed in")."""
    paper = cfe.contingencia
    assert paper is not None  # check_shape ran
    books = list(
        session.scalars(
            select(ContingencyBook).where(
                ContingencyBook.company_id == company_id,
                ContingencyBook.serie == paper.serie,
                ContingencyBook.nro_desde <= paper.nro,
                ContingencyBook.nro_hasta >= paper.nro,
            )
        )
    )
    book = next((b for b in books if b.tipo_cfe == cfe.tipo_cfe), None)
    if book is None:
        if books:
            raise _refused(
                "cfc_tipo_distinto",
                "tipoCFE",
                _(
                    "El número {nro} de la serie {serie} es de una libreta de tipo {tipo}, no {pedido}.",
                    nro=paper.nro,
                    serie=paper.serie,
                    tipo=cfe_type(books[0].tipo_cfe),
                    pedido=cfe_type(cfe.tipo_cfe),
                ),
            )
        raise _refused(
            "cfc_fuera_de_libreta",
            f"{PAPER}.nro",
            _(
                "Ninguna libreta de contingencia registrada de tipo {tipo} y serie {serie} tiene el número {nro}.",
                tipo=cfe_type(cfe.tipo_cfe),
                serie=paper.serie,
                nro=paper.nro,
            ),
        )
    if cfe.fch_emis < book.fecha_autorizacion:
        raise _refused(
            "libreta_no_vigente",
            "fchEmis",
            _(
                "La libreta recién fue autorizada el {fecha:%d/%m/%Y}: el papel no puede ser de antes.",
                fecha=book.fecha_autorizacion,
            ),
        )
    if cfe.fch_emis > book.fecha_vencimiento:
        raise _refused(
            "libreta_vencida",
            "fchEmis",
            _("La libreta venció el {fecha:%d/%m/%Y}: no autoriza un papel posterior.", fecha=book.fecha_vencimiento),
        )
    _check_unused(session, company_id, cfe.tipo_cfe, paper.serie, paper.nro, book.id, keyed)
    numbering = Numbering(
        serie=paper.serie,
        nro=paper.nro,
        cae_id=int(book.cae_id),
        dnro=book.nro_desde,
        hnro=book.nro_hasta,
        fec_venc=book.fecha_vencimiento,
    )
    return PaperNumber(book.id, numbering)


def _check_unused(
    session: Session, company_id: int, tipo: int, serie: str, nro: int, book_id: int, keyed: IssuedCfe | None
) -> None:
    if keyed is None:
        earlier = session.scalar(
            select(IssuedCfe.id).where(
                IssuedCfe.company_id == company_id,
                IssuedCfe.tipo_cfe == tipo,
                IssuedCfe.serie == serie,
                IssuedCfe.nro == nro,
            )
        )
        if earlier is not None:
            raise keyed_in_already(serie, nro)
    voided = session.scalar(
        select(VoidedRange.id).where(
            VoidedRange.libreta_id == book_id, VoidedRange.nro_desde <= nro, VoidedRange.nro_hasta >= nro
        )
    )
    if voided is not None:
        raise Conflict(
            _("El número {serie}-{nro} de la libreta está anulado.", serie=serie, nro=nro), code="cfc_numero_anulado"
        )


def keyed_in_already(serie: str, nro: int) -> Conflict:
    return Conflict(_("El papel {serie}-{nro} ya fue ingresado.", serie=serie, nro=nro), code="cfc_ya_ingresado")


def as_contingency(signed: SignedCfe, cfe: CfeInput, rut: str, signer: CfeSigner) -> SignedCfe:
    """`signed` (built and signed as the 1xx type, with the paper's numbering) made the CFC: TipoCFE 2xx, signed
    again, valid against DGI's XSD; its security code and QR from the new signature."""
    root = etree.fromstring(signed.xml, etree.XMLParser(resolve_entities=False, no_network=True))
    for signature in root.findall(f"{cfc.DS}Signature"):
        root.remove(signature)
    doc = next(child for child in root if isinstance(child.tag, str))
    tipo = doc.find(f"{{{cfc.NS}}}Encabezado/{{{cfc.NS}}}IdDoc/{{{cfc.NS}}}TipoCFE")
    assert tipo is not None
    tipo.text = str(cfe.tipo_cfe)
    again = signer.sign(root)
    if schema_available():
        problems = validate_cfe(again.xml)
        if problems:
            raise CfeSchemaError(problems)
    paper = cfe.contingencia
    assert paper is not None
    amount = qr_amount(cfc.base_type(cfe.tipo_cfe), signed.totals)
    url = qr_url(rut, cfe.tipo_cfe, paper.serie, paper.nro, amount, cfe.fch_emis, again.digest)
    return SignedCfe(
        xml=again.xml,
        totals=signed.totals,
        digest=again.digest,
        security_code=again.security_code,
        qr_url=url,
        tmst_firma=signed.tmst_firma,
    )


def book_numbering(session: Session, record: IssuedCfe) -> Numbering:
    """What the answer shows of a keyed-in CFC's authorisation: its book."""
    book = session.get_one(ContingencyBook, record.libreta_id)
    return Numbering(
        serie=book.serie,
        nro=0,
        cae_id=int(book.cae_id),
        dnro=book.nro_desde,
        hnro=book.nro_hasta,
        fec_venc=book.fecha_vencimiento,
    )


def _refused(code: str, field: str, message) -> ValidationFailed:
    return ValidationFailed([FieldError(field, code, message)], message=message, code=code)
