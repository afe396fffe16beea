"""Issuing a receipt: the company's issuer data and certificate, numbering, signing, storing, and the PDF.

The workflow for one `emitir`, in ONE write transaction: look the Idempotency-Key up, check the references,
take the next number, build and sign the CFE, store it and the key's outcome; commit. Any failure rolls the
number back, so numbering stays gapless. Issues arriving together share that transaction and its commit
(`db.grouped_write`); a failure stays its request's own (see portal/service/platform/groupcommit.py).
`emitir` issues most receipts through comprobante/fastpath.py instead: the same checks, key, numbering, signing
and group commit (`checked_for_issue`, `run_issue`, `sign_checked`, `receipt_values` here), the rows as plain
values.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from flask import Response, current_app, g, has_request_context, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from portal.domain.cfe_types import NOTE_REFERENCE_TYPES
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe import (
    CfeInput,
    CfeSchemaError,
    CfeValidationError,
    Issuer,
    Numbering,
    SignedCfe,
    Totals,
    sign_validated_cfe,
)
from portal.service.cfe.contingency import is_cfc
from portal.service.cfe.pdf import render_preview, render_receipt
from portal.service.cfe.rules import validate
from portal.service.cfe.rules_dgi import Emission
from portal.service.comprobante import contingency, hooks, notes
from portal.service.comprobante.amounts import book_amounts
from portal.service.comprobante.events import receipt
from portal.service.comprobante.issuer import (
    PrintSettings,
    SigningKey,
    cached_issuer,
    issuer_for,
    print_settings,
    require_address,
    signing_key,
)
from portal.service.comprobante.models import CaeRangeRecord, IssuedCfe, PrintedLogo
from portal.service.comprobante.numbering import Allocation, allocate, numbering_refusal, range_claim, range_numbering
from portal.service.comprobante.search import folded, remember_receiver
from portal.service.eventos.publishing import publish
from portal.service.indices.ui import ui_value_on
from portal.service.platform import db, idempotency, jobs
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError, FieldError, ValidationFailed
from portal.service.platform.i18n import _, cfe_type, cfe_types_either
from portal.service.platform.models import Company


@dataclass(frozen=True)
class IssueResult:
    """The stored receipt and its warnings, or `replay`: the first outcome of the request's Idempotency-Key."""

    cfe: IssuedCfe | None
    warnings: list[dict]
    replay: Response | None = None
    wakeups: tuple[hooks.Wakeup, ...] = ()  # what the areas following the issue start after its commit
    answer: dict | None = None  # the 201's JSON value, for emitir (comprobante.fastpath)
    numbering: Numbering | None = None  # its number and CAE range


def field_errors(exc: CfeValidationError) -> list[FieldError]:
    return [FieldError(e.field, e.code, e.message) for e in exc.errors]


def check_rules(cfe: CfeInput, company: Company) -> Issuer:
    """The engine's and DGI's blocking rules for this company's issuer (its regime) signing today, with the
    UI of the issue date's year: a 422 with one entry per field, raised before any number is taken.
    Returns the issuer it checked against."""
    return _checked(cfe, company.id)[0]


def _checked(cfe: CfeInput, company_id: int) -> tuple[Issuer, Decimal, Totals]:
    """`check_rules`, also returning the UI value it used (the issue signs with the same one) and the totals it
    computed (the issue signs with those)."""
    cfe = contingency.engine_input(cfe)  # a paper CFC (2xx) is checked as its 1xx type
    issuer = cached_issuer(company_id, cfe)
    ui_value = ui_value_on(cfe.fch_emis)
    emission = Emission(signing_date=today_montevideo(), regimen=issuer.regimen)
    checked = validate(cfe, ui_value=ui_value, emission=emission)
    if checked.errors or checked.totals is None:
        raise ValidationFailed(
            [FieldError(e.field, e.code, e.message) for e in checked.errors], message=_("El comprobante no es válido.")
        )
    return issuer, ui_value, checked.totals


def _check_references(session: Session, company_id: int, cfe: CfeInput) -> list[notes.Original]:
    """A credit or debit note must point at receipts this company issued, of a type the note may reference
    (NOTE_REFERENCE_TYPES), that DGI did not reject, with the original's date; returns the receipts it names.
    Runs in the issue's write transaction before the number is taken, so a refusal burns no number."""
    allowed = NOTE_REFERENCE_TYPES.get(cfe.tipo_cfe)
    if allowed is None:
        return []
    problems, originals = [], []
    for index, ref in enumerate(cfe.referencias):
        if getattr(ref, "ind_global", None) == 1:
            continue
        where = f"referencias[{index}]"
        named = f"{ref.serie}-{ref.nro_cfe_ref}"
        # Locked: two credit notes of the same receipt must see each other's amounts (PostgreSQL).
        found = session.scalar(
            select(IssuedCfe)
            .where(
                IssuedCfe.company_id == company_id,
                IssuedCfe.tipo_cfe == ref.tpo_doc_ref,
                IssuedCfe.serie == ref.serie,
                IssuedCfe.nro == ref.nro_cfe_ref,
            )
            .with_for_update()
        )
        if ref.tpo_doc_ref not in allowed:
            problems.append(
                FieldError(
                    f"{where}.tpoDocRef",
                    "not_allowed",
                    _("Una {tipo} solo refiere {kinds}.", tipo=cfe_type(cfe.tipo_cfe), kinds=cfe_types_either(allowed)),
                )
            )
        elif found is None:
            problems.append(
                FieldError(
                    f"{where}.nroCFERef",
                    "not_found",
                    _(
                        "No existe el comprobante {tipo} {numero} emitido por esta empresa.",
                        tipo=cfe_type(ref.tpo_doc_ref),
                        numero=named,
                    ),
                )
            )
        elif found.dgi_status == "rechazado":
            problems.append(
                FieldError(
                    f"{where}.nroCFERef",
                    "rechazado_por_dgi",
                    _(
                        "DGI rechazó el comprobante {tipo} {numero}: no tiene validez fiscal y no admite notas (DGI "
                        "las rechazaría, E12). Emití el comprobante corregido.",
                        tipo=cfe_type(found.tipo_cfe),
                        numero=named,
                    ),
                )
            )
        elif ref.fecha_cfe_ref is not None and ref.fecha_cfe_ref != found.fch_emis:
            problems.append(
                FieldError(
                    f"{where}.fechaCFEref",
                    "fecha_distinta",
                    _(
                        "El comprobante {numero} es del {fecha}: la referencia lleva su fecha (dejala vacía y se "
                        "toma del comprobante).",
                        numero=named,
                        fecha=f"{found.fch_emis:%d/%m/%Y}",
                    ),
                )
            )
        else:
            originals.append(notes.Original(index, found))
    if problems:
        raise ValidationFailed(problems, message=_("La nota no corresponde a los comprobantes que refiere."))
    return originals


def totals_json(totals: Totals) -> dict:
    """The totals with DGI's names (lower camelCase), amounts as strings with their exact decimals."""
    names = {
        "mnt_no_grv": "mntNoGrv",
        "mnt_expo_y_asim": "mntExpoyAsim",
        "mnt_impuesto_perc": "mntImpuestoPerc",
        "mnt_iva_en_susp": "mntIVaenSusp",
        "mnt_neto_iva_tasa_min": "mntNetoIvaTasaMin",
        "mnt_neto_iva_tasa_basica": "mntNetoIVATasaBasica",
        "mnt_neto_iva_otra": "mntNetoIVAOtra",
        "iva_tasa_min": "ivaTasaMin",
        "iva_tasa_basica": "ivaTasaBasica",
        "mnt_iva_tasa_min": "mntIVATasaMin",
        "mnt_iva_tasa_basica": "mntIVATasaBasica",
        "mnt_iva_otra": "mntIVAOtra",
        "mnt_total": "mntTotal",
        "mnt_tot_retenido": "mntTotRetenido",
        "mnt_tot_cred_fisc": "mntTotCredFisc",
        "cant_lin_det": "cantLinDet",
        "monto_nf": "montoNF",
        "mnt_pagar": "mntPagar",
    }
    result: dict = {camel: _plain(getattr(totals, snake)) for snake, camel in names.items()}
    result["montosItems"] = [_plain(v) for v in totals.line_amounts]
    result["retencPercep"] = [{"codRet": code, "valRetPerc": _plain(value)} for code, value in totals.retenc_percep]
    return result


def _plain(value):
    return (
        f"{value:.2f}"
        if isinstance(value, Decimal) and value == value.quantize(Decimal("0.01"))
        else (str(value) if isinstance(value, Decimal) else value)
    )


@dataclass(frozen=True)
class Checked:
    """What an issue signs with, read and checked before its write transaction."""

    issuer: Issuer
    ui_value: Decimal
    totals: Totals
    key: SigningKey
    printed: PrintSettings


def setup_refusals(company_id: int, cfe: CfeInput) -> list[ApiError]:
    """Every refusal the company's setup would give this receipt now, all at once and without a lock: no fiscal
    address, no valid certificate, no CAE range to number it (the 409s issuing answers, each checked again when it
    issues). Smart issuance's preview says them before the confirmation."""
    refusals: list[ApiError] = []
    for check in (
        lambda: require_address(cached_issuer(company_id, cfe)),
        lambda: signing_key(db.session(), company_id),
    ):
        try:
            check()
        except ApiError as refusal:
            refusals.append(refusal)
    if (numbering := numbering_refusal(db.session(), company_id, cfe.tipo_cfe, cfe.fch_emis)) is not None:
        refusals.append(numbering)
    return refusals


def checked_for_issue(
    principal: Principal, cfe: CfeInput, idempotency_key: idempotency.RequestedKey | None
) -> Checked | IssueResult:
    """The rules checked and the issuer, UI value, signing key and print settings read, before the write
    transaction; or the replay of the key's first outcome when something refuses and the key was used."""
    # Read once, before the write transaction: the issue signs with the issuer, UI value and key it was checked
    # against, and the write lock is not held while they are read (a cold cache reads them, and parses a key,
    # while other issues go on: 50 companies issuing at once reloaded keys under the lock).
    try:
        contingency.check_shape(cfe)
        issuer, ui_value, totals = _checked(cfe, principal.company_id)
        require_address(issuer)  # 409: what the engine would refuse while signing (a 500) if it got there
        key = signing_key(db.session(), principal.company_id)  # 409 when no certificate is valid
        printed = print_settings(principal.company_id)
    except ApiError:
        # A retry of an issue that succeeded replays it even if a rule it passed has changed since (another
        # regime, a CAE or certificate expired). Looked up only when something refuses: an accepted request
        # looks its key up in the write transaction below anyway (one query less on the hot path).
        replay = idempotency.recorded(principal.company_id, idempotency_key) if idempotency_key else None
        if replay is not None:
            return IssueResult(None, [], replay)
        raise
    return Checked(issuer, ui_value, totals, key, printed)


def issue(
    principal: Principal, cfe: CfeInput, *, on_stored=None, idempotency_key: idempotency.RequestedKey | None = None
) -> IssueResult:
    """Number, sign and store one receipt in a single write transaction. `on_stored(session, result)` runs
    inside that transaction (whatever must commit with the receipt: the idempotency key's outcome). With
    `idempotency_key`, a key already used answers with `replay` instead, and nothing is issued."""
    checked = checked_for_issue(principal, cfe, idempotency_key)
    if isinstance(checked, IssueResult):
        return checked

    def work(session: Session) -> IssueResult:
        return issue_in(session, principal, cfe, checked, on_stored)

    return run_issue(principal, cfe, work, idempotency_key)


def run_issue(
    principal: Principal,
    cfe: CfeInput,
    work: Callable[[Session], IssueResult],
    idempotency_key: idempotency.RequestedKey | None,
) -> IssueResult:
    """`work` in the shared write transaction after the key's look-up (its replay instead, if it was used), then
    the wake-ups of what follows the receipt, once committed."""

    def looked_up(session: Session) -> IssueResult:
        if idempotency_key is not None:
            replay = idempotency.lookup(session, principal.company_id, idempotency_key)
            if replay is not None:
                return IssueResult(None, [], replay)
        return work(session)

    # The CAE ranges numbering locks, claimed with the batch's others first (no two processes' batches wait
    # for each other); a paper CFC is numbered by its printed book instead.
    claim = None if is_cfc(cfe.tipo_cfe) else range_claim(principal.company_id, cfe.tipo_cfe)
    try:
        result = db.grouped_write(looked_up, claim)
    except IntegrityError:
        if idempotency_key is None:
            if cfe.contingencia is not None:  # the same paper keyed in at the same moment (PostgreSQL)
                raise contingency.keyed_in_already(cfe.contingencia.serie, cfe.contingencia.nro) from None
            raise
        # A first request with the same key committed while this one was issuing: answer with its outcome (or,
        # the same paper keyed in under another key at the same moment, its 409 on the second try).
        result = db.grouped_write(looked_up, claim)
    for wakeup in result.wakeups:
        jobs.enqueue_safely(wakeup.run, wakeup.label)
    return result


def issue_in(session: Session, principal: Principal, cfe: CfeInput, checked: Checked, on_stored) -> IssueResult:
    """The issue itself, in the (shared) write transaction `session`."""
    issuer, ui_value, totals, key, printed = (
        checked.issuer,
        checked.ui_value,
        checked.totals,
        checked.key,
        checked.printed,
    )
    company_id = principal.company_id
    paper = None
    if is_cfc(cfe.tipo_cfe):  # keyed in from paper: numbered by its printed book
        paper = contingency.paper_number(session, company_id, cfe)
        # A paper note (202, 203, 212, 222, ...) is checked and linked as its 1xx type is: it adjusts its
        # original's balance, and each one's page shows the other.
        as_engine = contingency.engine_input(cfe)
        originals = _check_references(session, company_id, as_engine)
        shares = notes.shares_of(session, as_engine, originals)
        cfe = notes.with_reference_amounts(cfe, originals)
        allocation = Allocation(None, paper.numbering, None)
    else:
        originals = _check_references(session, company_id, cfe)
        shares = notes.shares_of(session, cfe, originals)
        cfe = notes.with_reference_amounts(cfe, originals)
        allocation = allocate(session, company_id, cfe.tipo_cfe, cfe.fch_emis)
    signed = sign_checked(cfe, totals, issuer, allocation.numbering, key.signer)
    record = _new_record(principal, cfe, issuer, allocation.numbering, allocation.range_id, key.certificate_id, signed)
    record.libreta_id = paper.book_id if paper is not None else None
    _snapshot_print_settings(session, record, printed)
    issued = hooks.Issued(record, cfe, issuer.rut, ui_value, signed.totals, tuple(o.record for o in originals))
    follow_ups = hooks.follow_ups()
    # What follows the receipt (its road to DGI: envios), committed with it. Held here while on_stored runs: the
    # session keeps only weak references, and the answer reads it (one SELECT less).
    rows = [row for follow_up in follow_ups for row in follow_up.rows(session, issued)]
    db.insert_loaded(session, record, *rows)  # Core INSERTs: cheaper than the unit of work's flush
    remember_receiver(session, company_id, record.receptor_busqueda)
    notes.link(session, record, shares)
    # Then what needs it stored (its delivery to an electronic receiver: intercambio), committed with it too.
    wakeups = tuple(w for follow_up in follow_ups if (w := follow_up.stored(session, issued)) is not None)
    publish(session, company_id, "comprobante.emitido", receipt(record))  # one INSERT: the webhooks' outbox
    session.flush()  # a note's links (the rest is written already)
    warnings = [allocation.warning] if allocation.warning else []
    result = IssueResult(record, warnings, numbering=allocation.numbering, wakeups=wakeups)
    if on_stored is not None:
        on_stored(session, result)
    del rows
    return result


def sign_checked(cfe: CfeInput, totals: Totals, issuer: Issuer, numbering: Numbering, signer) -> SignedCfe:
    """Sign a receipt `_checked` validated before its number was taken: only the CAE's own rules run again, and
    the totals are the ones it computed (reference amounts filled in since do not change them). A paper CFC is
    built as its 1xx type and then made the 2xx it records."""
    try:
        signed = sign_validated_cfe(
            contingency.engine_input(cfe), totals, issuer, numbering, signer, paper=is_cfc(cfe.tipo_cfe)
        )
        if is_cfc(cfe.tipo_cfe):
            signed = contingency.as_contingency(signed, cfe, issuer.rut, signer)
    except CfeValidationError as exc:
        raise ValidationFailed(field_errors(exc), message=exc.message) from exc
    except CfeSchemaError:
        current_app.logger.exception("generated CFE failed DGI's XSD")
        raise
    return signed


def _new_record(principal, cfe, issuer, numbering: Numbering, range_id, cert_id, signed: SignedCfe) -> IssuedCfe:
    return IssuedCfe(**receipt_values(principal, cfe, issuer, numbering, range_id, cert_id, signed))


def receipt_values(
    principal: Principal,
    cfe: CfeInput,
    issuer: Issuer,
    numbering: Numbering,
    range_id: int | None,
    cert_id: int,
    signed: SignedCfe,
) -> dict:
    """A new receipt's columns (both paths store exactly these; the print snapshot and the follow-ups' columns
    are added by each)."""
    receptor = cfe.receptor
    return dict(
        id=uuid.uuid4().hex,
        company_id=principal.company_id,
        cae_range_id=range_id,
        tipo_cfe=cfe.tipo_cfe,
        serie=numbering.serie,
        nro=numbering.nro,
        fch_emis=cfe.fch_emis,
        tmst_firma=signed.tmst_firma,
        tpo_moneda=cfe.tpo_moneda,
        mnt_total=signed.totals.mnt_total,
        mnt_pagar=signed.totals.mnt_pagar,
        **book_amounts(signed.totals),  # the IVA books' amount columns (pgbooks, migration 0240)
        receptor_doc=receptor.doc_recep if receptor else None,
        receptor_nombre=receptor.rzn_soc_recep if receptor else None,
        receptor_busqueda=folded(receptor.rzn_soc_recep) if receptor else None,
        input_json=cfe.model_dump(mode="json", by_alias=True, exclude_none=True),
        issuer_json=dict(vars(issuer)),  # flat, JSON-ready values (asdict would deep-copy each)
        totals_json=totals_json(signed.totals),
        xml=signed.xml,
        digest=signed.digest,
        security_code=signed.security_code,
        qr_url=signed.qr_url,
        certificate_id=cert_id,
        created_by=principal.actor,
        request_id=g.get("request_id"),
        idempotency_key=request.headers.get("Idempotency-Key") if has_request_context() else None,
        referencia_cobro=None,
        created_at=datetime.now(UTC),
        answer_version=0,  # triggers bump it from here on (migration 0310)
    )


def numbering_of(record: IssuedCfe, session: Session) -> Numbering:
    if record.cae_range_id is None:  # a paper CFC keyed in: its printed book
        return dataclasses.replace(contingency.book_numbering(session, record), nro=record.nro)
    return range_numbering(session.get_one(CaeRangeRecord, record.cae_range_id), record.nro)


def _snapshot_print_settings(session: Session, record: IssuedCfe, settings: PrintSettings) -> None:
    """Record with the receipt the paper and logo the company's settings print now (`settings`; its issuer is in
    issuer_json already): its PDF comes from what was true when it was signed, whatever changes later."""
    record.print_paper, record.print_logo_sha256 = print_snapshot(session, record.company_id, settings)


def print_snapshot(session: Session, company_id: int, settings: PrintSettings) -> tuple[str, str | None]:
    """The paper and logo (its sha256) a receipt records, the logo stored once per company (`_snapshot...`)."""
    if settings.logo_sha256 and session.get(PrintedLogo, (company_id, settings.logo_sha256)) is None:
        # ON CONFLICT DO NOTHING: two first receipts with a new logo, issued at once (PostgreSQL), store it once.
        values = {"company_id": company_id, "sha256": settings.logo_sha256, "data": settings.logo}
        db.insert_if_absent(session, PrintedLogo, {**values, "created_at": datetime.now(UTC)})
    return settings.paper, settings.logo_sha256


def printed_logo(session: Session, record: IssuedCfe) -> bytes | None:
    """The logo `record` was issued with; for a receipt issued before snapshots (print_paper NULL), the
    company's logo of the day, as such receipts always printed."""
    if record.print_paper is None:
        return hooks.company_settings().logo(session, record.company_id)
    if record.print_logo_sha256 is None:
        return None
    logo = session.get(PrintedLogo, (record.company_id, record.print_logo_sha256))
    return logo.data if logo is not None else None


def printed_paper(session: Session, record: IssuedCfe) -> str:
    """The paper `record` prints on unless another is asked for: the company's default when it was issued (the
    company's default of the day for a receipt issued before snapshots)."""
    return record.print_paper or hooks.company_settings().paper(session, record.company_id)


def receipt_pdf(
    record: IssuedCfe, *, logo: bytes | None = None, paper: str = "a4", bilingual: bool | None = None
) -> bytes:
    """The printed representation, read from the signed XML as stored (number and CAE included), with the
    adenda and the issuer settings snapshot taken when it was issued: a reprint never disagrees with what
    was signed. `logo` is printed_logo(session, record) for an issued receipt."""
    return render_receipt(
        record.xml,
        Issuer(**record.issuer_json),
        adenda=record.input_json.get("adenda"),
        security_code=record.security_code,
        qr_url=record.qr_url,
        logo=logo,
        paper=paper,
        bilingual=bilingual,
    )


def preview_pdf(company: Company, cfe: CfeInput, *, logo: bytes | None = None, paper: str = "a4") -> bytes:
    check_rules(cfe, company)
    cfe = contingency.engine_input(cfe)
    return render_preview(cfe, issuer_for(company, cfe), logo=logo, paper=paper)
