"""Credit and debit notes tied to the receipts they adjust.

Every note that references a receipt of the company is linked to it (`NoteReference`), so each side finds the
other. A credit note never takes more than what is left of its original (the original's total minus the
credit notes already set against it) and never changes its currency. The reference lines carry DGI's
MntCFEref, TpoMonedaRef and TpoCambioRef (XSD 1.44), filled from the original when the caller left them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from portal.domain.cfe_types import CREDIT_NOTE_FOR, CREDIT_NOTES, DEBIT_NOTE_OF, NOTE_BASE_TYPE
from portal.service.cfe import CfeInput, compute_totals
from portal.service.cfe.pdf_text import money
from portal.service.comprobante.models import IssuedCfe, NoteReference
from portal.service.platform.errors import ApiError, FieldError, ValidationFailed
from portal.service.platform.i18n import Text, _, cfe_type

# What each receipt's credit and debit notes are (portal.domain.cfe_types): an e-Ticket's are 102/103, an
# e-Factura's 112/113, and a debit note can itself be credited.
DEBIT_NOTE_FOR = DEBIT_NOTE_OF
# An export's notes repeat its terms of sale (A-C13 to A-C15).
_EXPORT_TERMS = ("clauVenta", "modVenta", "viaTransp")
# ... and those of a sale on behalf of others name the same principal (zona K).
_TYPE_PARTS = (*_EXPORT_TERMS, "complFiscal")


@dataclass(frozen=True)
class Original:
    """A referenced receipt of the company, with the index of the reference that names it."""

    index: int
    record: IssuedCfe


def credited(session: Session, original_id: str) -> Decimal:
    """The sum of the credit notes already set against a receipt."""
    total = session.scalar(
        select(func.coalesce(func.sum(NoteReference.amount), 0)).where(
            NoteReference.original_id == original_id, NoteReference.is_credit.is_(True)
        )
    )
    return Decimal(str(total)).quantize(Decimal("0.01"))


def release_rejected(session: Session, note_id: str) -> None:
    """A note DGI rejected counts as not issued (its number is voided): it adjusts nothing, so what it set against
    its receipts goes back to them. They can be credited again and are not shown cancelled by it; the link stays,
    applying 0 (and its change renews both receipts' answers, migration 0310's trigger)."""
    session.execute(update(NoteReference).where(NoteReference.note_id == note_id).values(amount=0))


def remaining(session: Session, original: IssuedCfe) -> Decimal:
    """What a credit note can still take from `original`."""
    return max(
        Decimal(str(original.mnt_total)).quantize(Decimal("0.01")) - credited(session, original.id), Decimal("0.00")
    )


def with_reference_amounts(cfe: CfeInput, originals: list[Original]) -> CfeInput:
    """The note with MntCFEref, TpoMonedaRef and TpoCambioRef of each original the caller left out."""
    if not originals:
        return cfe
    refs = list(cfe.referencias)
    for found in originals:
        ref, record = refs[found.index], found.record
        rate = record.input_json.get("tpoCambio")
        refs[found.index] = ref.model_copy(
            update={
                "mnt_cfe_ref": ref.mnt_cfe_ref
                if ref.mnt_cfe_ref is not None
                else Decimal(str(record.mnt_total)).quantize(Decimal("0.01")),
                "tpo_moneda_ref": ref.tpo_moneda_ref or record.tpo_moneda,
                "tpo_cambio_ref": ref.tpo_cambio_ref
                if ref.tpo_cambio_ref is not None or rate is None
                else Decimal(str(rate)),
                "fecha_cfe_ref": ref.fecha_cfe_ref or record.fch_emis,
            }
        )
    return cfe.model_copy(update={"referencias": refs})


def _currency_problems(cfe: CfeInput, originals: list[Original]) -> list[FieldError]:
    """A note, credit or debit, is in its original's currency (F-C9: TpoMonedaRef = the original's)."""

    def said(record: IssuedCfe) -> Text:
        number = f"{record.serie}-{record.nro}"
        if cfe.tipo_cfe in CREDIT_NOTES:
            return _(
                "La nota de crédito debe ser en {moneda}, la moneda del comprobante {numero}.",
                moneda=record.tpo_moneda,
                numero=number,
            )
        return _(
            "La nota de débito debe ser en {moneda}, la moneda del comprobante {numero}.",
            moneda=record.tpo_moneda,
            numero=number,
        )

    return [
        FieldError("tpoMoneda", "moneda_distinta", said(found.record))
        for found in originals
        if found.record.tpo_moneda != cfe.tpo_moneda
    ]


def shares_of(session: Session, cfe: CfeInput, originals: list[Original]) -> list[tuple[IssuedCfe, Decimal]]:
    """How much of the note goes against each original; refuse another currency than the original's (credit
    and debit notes), and for a credit note more than is left (422 with the reference's field). A note with
    only a global reference (IndGlobal, no receipt named) has no original to cap it."""
    if not originals:
        return []
    if currency := _currency_problems(cfe, originals):
        raise ValidationFailed(currency, message=_("La nota no corresponde al comprobante referido."))
    total = compute_totals(cfe).mnt_total
    if cfe.tipo_cfe not in CREDIT_NOTES:
        return [(found.record, total if len(originals) == 1 else Decimal("0.00")) for found in originals]
    problems, shares, left_to_place = [], [], total
    for found in originals:
        record, where = found.record, f"referencias[{found.index}]"
        share = min(left_to_place, remaining(session, record))
        shares.append((record, share))
        left_to_place -= share
        if share == 0 and left_to_place > 0:
            problems.append(
                FieldError(
                    f"{where}.nroCFERef",
                    "sin_saldo",
                    _(
                        "El comprobante {numero} ya está acreditado por completo.",
                        numero=f"{record.serie}-{record.nro}",
                    ),
                )
            )
    if not problems and left_to_place > 0:
        left = sum((remaining(session, found.record) for found in originals), Decimal("0.00"))
        problems.append(
            FieldError(
                "items",
                "supera_saldo",
                _(
                    "La nota de crédito ({total}) supera lo que queda por acreditar del comprobante referido "
                    "({saldo}); emití una nota por ese saldo o menos.",
                    total=money(total),
                    saldo=money(left),
                ),
            )
        )
    if problems:
        raise ValidationFailed(problems, message=_("La nota de crédito no corresponde al comprobante referido."))
    return shares


def link(session: Session, note: IssuedCfe, shares: list[tuple[IssuedCfe, Decimal]]) -> None:
    for original, amount in shares:
        session.add(
            NoteReference(
                company_id=note.company_id,
                note_id=note.id,
                original_id=original.id,
                is_credit=note.tipo_cfe in CREDIT_NOTES,
                amount=amount,
            )
        )


def _reference(original: IssuedCfe, reason: str | None) -> dict:
    return {
        "tpoDocRef": original.tipo_cfe,
        "serie": original.serie,
        "nroCFERef": original.nro,
        **({"razonRef": reason} if reason else {}),
        "fechaCFEref": original.fch_emis.isoformat(),
    }


def note_draft(original: IssuedCfe, note_type: int, reason: str | None = None) -> dict:
    """A note of `note_type` for `original` as CfeInput JSON: the receiver, currency, exchange rate, price
    mode and payment form of the original, its lines (to trim for a partial note), and the reference."""
    source = original.input_json
    draft = {
        key: source[key]
        for key in ("fmaPago", "mntBruto", "tpoMoneda", "tpoCambio", "receptor", "mntIVAOtra", *_TYPE_PARTS)
        if key in source
    }
    draft.update(tipoCFE=note_type, items=source.get("items", []), referencias=[_reference(original, reason)])
    return draft


def full_credit_note(original: IssuedCfe, reason: str, issue_date: date | None = None) -> CfeInput:
    """The credit note that cancels `original` entirely: same lines, discounts and surcharges."""
    note_type = CREDIT_NOTE_FOR.get(original.tipo_cfe)
    if note_type is None:
        raise ApiError(
            _("Un {tipo} no se anula con nota de crédito.", tipo=cfe_type(original.tipo_cfe)),
            code="tipo_sin_nota",
            status=409,
        )
    draft = note_draft(original, note_type, reason)
    if original.input_json.get("dscRcgGlobal"):
        draft["dscRcgGlobal"] = original.input_json["dscRcgGlobal"]
    if issue_date is not None:
        draft["fchEmis"] = issue_date.isoformat()
    return CfeInput.model_validate(draft)


def is_note(tipo_cfe: int) -> bool:
    return tipo_cfe in NOTE_BASE_TYPE
