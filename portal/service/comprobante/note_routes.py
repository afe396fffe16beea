"""HTTP endpoints of notes derived from a receipt: cancel it with a full credit note, or get the draft of a
partial credit note or a debit note to edit and issue."""

from __future__ import annotations

from sqlalchemy import select

from portal.domain.roles import ALL, WRITERS
from portal.service.cfe import CfeInput
from portal.service.cfe.pdf_text import money
from portal.service.comprobante import cfc_correction, hooks, issuing, notes
from portal.service.comprobante.blueprint import BOTH, IDEMPOTENCY, TAG, bp
from portal.service.comprobante.models import IssuedCfe
from portal.service.comprobante.presenters import cfe_emitido, cfe_emitido_json
from portal.service.comprobante.schemas import BorradorNota, BorradorNotaQuery, CfeEmitido, NotaCreditoTotal
from portal.service.platform import db, idempotency
from portal.service.platform.api import operation
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError, Conflict, NotFound, ValidationFailed
from portal.service.platform.i18n import _


def _original(principal: Principal, cfe_id: str) -> IssuedCfe:
    record = db.session().scalar(
        select(IssuedCfe).where(IssuedCfe.id == cfe_id, IssuedCfe.company_id == principal.company_id)
    )
    if record is None:
        raise NotFound(_("No existe ese comprobante en tu empresa."), code="cfe_no_encontrado")
    return record


# The codes the issue's balance check (notes.shares_of, in the write transaction) refuses a credit note with.
_NO_BALANCE = frozenset({"sin_saldo", "supera_saldo"})


def _untouched(original: IssuedCfe) -> None:
    """A full credit note only for a receipt no credit note has touched yet."""
    already = notes.credited(db.session(), original.id)
    if not already:
        return
    left = notes.remaining(db.session(), original)
    if not left:
        raise Conflict(
            _("Este comprobante ya está anulado: sus notas de crédito cubren todo su monto."), code="ya_anulado"
        )
    raise Conflict(
        _(
            "Este comprobante ya tiene notas de crédito por {acreditado}; para acreditar lo que queda ({saldo}) "
            "emití una nota de crédito parcial.",
            acreditado=money(already),
            saldo=money(left),
        ),
        code="acreditado_en_parte",
    )


@operation(
    bp,
    "POST",
    "/notaCreditoTotal",
    tag=TAG,
    summary="Anular un comprobante con nota de crédito",
    auth=BOTH,
    roles=WRITERS,
    body=NotaCreditoTotal,
    extra_headers=IDEMPOTENCY,
    responses={
        201: CfeEmitido,
        400: "Idempotency-Key con formato inválido.",
        404: "No existe o es de otra empresa.",
        409: "El comprobante no admite nota de crédito, ya tiene notas de crédito, no hay CAE "
        "vigente o la Idempotency-Key está en curso.",
    },
)
def nota_credito_total(body: NotaCreditoTotal, principal: Principal):
    """Issues the credit note of the whole receipt: same lines, currency and exchange rate, the reference
    (with MntCFEref, TpoMonedaRef, TpoCambioRef) filled in, and the reason given."""
    claim = idempotency.claim(principal.company_id, "comprobante.notaCreditoTotal")
    if claim.replay is not None:
        return claim.replay

    def remember(session, result):
        idempotency.complete(session, claim, 201, cfe_emitido_json(result.cfe, result.warnings, session))

    try:
        original = _original(principal, body.id_cfe_emitido)
        _untouched(original)
        try:
            result = issuing.issue(
                principal, notes.full_credit_note(original, body.razon, body.fch_emis), on_stored=remember
            )
        except ValidationFailed as exc:
            if not {f.code for f in exc.fields} & _NO_BALANCE:
                raise
            # Another note was committed after the check above (concurrent requests): answer as a request made
            # after it would (ya_anulado), not with the issue's 422 on a field this request never sent.
            db.session().rollback()  # end the snapshot the check above read
            _untouched(original)
            raise
    except Exception:
        idempotency.release(claim)
        raise
    assert result.cfe is not None  # issued without an Idempotency-Key of issue's own: never a replay
    return cfe_emitido(result.cfe, result.warnings, db.session()), 201


@operation(
    bp,
    "GET",
    "/borradorNota",
    tag=TAG,
    summary="Borrador de nota de crédito parcial o de débito",
    auth=BOTH,
    roles=ALL,
    query=BorradorNotaQuery,
    responses={
        200: BorradorNota,
        404: "No existe o es de otra empresa.",
        409: "Ese comprobante no admite ese tipo de nota.",
    },
)
def borrador_nota(query: BorradorNotaQuery, principal: Principal):
    """The body of a note for the receipt, to edit (lines, amounts) and send to emitir: its receiver,
    currency, exchange rate, price mode and lines, and the reference to it. Nothing is issued."""
    original = _original(principal, query.id_cfe_emitido)
    table = notes.CREDIT_NOTE_FOR if query.tipo == "credito" else notes.DEBIT_NOTE_FOR
    if original.tipo_cfe not in table:
        raise ApiError(_("Ese comprobante no admite una nota de ese tipo."), code="tipo_sin_nota", status=409)
    left = notes.remaining(db.session(), original) if query.tipo == "credito" else None
    # A receiver's commercial rejection (intercambio): the note's reason is the receiver's motive.
    reason = hooks.credit_note_reason(db.session(), original) if query.tipo == "credito" else None
    return BorradorNota(
        borrador=notes.note_draft(original, table[original.tipo_cfe], reason),
        saldo_acreditable=left,
        id_cfe_original=original.id,
    )


@operation(
    bp,
    "POST",
    "/contingencia/<string:cfe_id>/corregir",
    tag=TAG,
    summary="Corregir y reenviar un comprobante de contingencia observado",
    auth=BOTH,
    roles=WRITERS,
    path_params={"cfe_id": "El idCfeEmitido del comprobante de contingencia que DGI observó."},
    body=CfeInput,
    responses={
        200: CfeEmitido,
        404: "`cfe_no_encontrado`: no existe o es de otra empresa.",
        409: "`cfc_no_observado`: no es un comprobante de contingencia que DGI observó; `cfc_numero_anulado`: "
        "ese número de la libreta está anulado.",
        422: "Datos no válidos; `cfc_distinto`: otro tipo, serie o número que el del papel; los rechazos de "
        "emitir para un CFC (`libreta_vencida`, `libreta_no_vigente`, `cfc_fecha_futura`, ...).",
    },
)
def corregir_contingencia(cfe_id: str, body: CfeInput, principal: Principal):
    """The same paper contingency receipt (type, serie, number) with its data corrected: signed again and sent to
    DGI again, never to the customer. The receipt keeps its id and number; `dgi.observaciones` keeps how many
    times DGI observed it. Only for a CFC whose DGI state is `observado`."""
    record = cfc_correction.correct(principal, cfe_id, body)
    return cfe_emitido(record, [], db.session()), 200
