"""View models of an issued receipt: what the receipt page shows, built from the service's answer.

Totals are the service's own (`IssuedReceipt.totals`); this module only chooses which to
show and how to label them. No amount is computed here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from decimal import Decimal

from babel.numbers import format_decimal
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from portal.client.cfe import Receiver, Retention
from portal.client.comprobantes import CaeInfo, IssuedReceipt
from portal.client.totals import Totals
from portal.domain.cfe_types import (
    BOLETA_TYPES,
    CFC_TYPES,
    CFE_TYPES,
    CREDIT_NOTE_FOR,
    CREDIT_NOTES,
    DEBIT_NOTE_OF,
    electronic_type,
    headline_amount,
)
from portal.domain.identifiers import DocType, format_rut, is_valid_rut
from portal.web.comprobantes.choices import CFE_TYPES as CFE_TYPE_CHOICES
from portal.web.comprobantes.choices import (
    DGI_STATUS,
    DOC_TYPE_NAMES,
    FMA_PAGO,
    IND_FACT,
    MOD_VENTA,
    NOTE_NAMES,
    VIA_TRANSP,
    numbered_name,
    type_name,
)
from portal.web.comprobantes.qr import qr_svg_text

# (Totals field, label, Totals field of the rate shown in the label)
_TAX_ROWS = (
    ("net_minimum_rate", _l("Neto gravado a tasa mínima (%(rate)s\u00a0%%)"), "minimum_rate"),
    ("net_basic_rate", _l("Neto gravado a tasa básica (%(rate)s\u00a0%%)"), "basic_rate"),
    ("net_other_rate", _l("Neto gravado a otra tasa"), None),
    ("iva_minimum_rate", _l("IVA tasa mínima (%(rate)s\u00a0%%)"), "minimum_rate"),
    ("iva_basic_rate", _l("IVA tasa básica (%(rate)s\u00a0%%)"), "basic_rate"),
    ("iva_other_rate", _l("IVA otra tasa"), None),
    ("untaxed", _l("No gravado y exento"), None),
    ("export", _l("Exportación y asimiladas"), None),
    ("perceived_tax", _l("Impuesto percibido"), None),
    ("suspended_iva", _l("IVA en suspenso"), None),
)
_AFTER_TOTAL_ROWS = (
    ("withheld", _l("Retenciones y percepciones"), None),
    ("fiscal_credit", _l("Crédito fiscal"), None),
    ("not_billable", _l("No facturable"), None),
)
# What a receipt stands for (portal.domain.cfe_types.headline_amount) -> its Totals field and label.
_HEADLINES = {
    "MntPagar": ("to_pay", _l("Total a pagar")),
    "MntTotal": ("total", _l("Total")),
    "MntTotRetenido": ("withheld", _l("Total retenido")),
}


@dataclass(frozen=True)
class TotalRow:
    key: str
    label: str
    amount: Decimal
    emphasis: bool = False


@dataclass(frozen=True)
class LineRow:
    description: str
    quantity: Decimal | None
    unit: str
    price: Decimal | None
    discount: Decimal | None
    indicator: str
    retentions: tuple[Retention, ...] = ()


@dataclass(frozen=True)
class Actions:
    """What the receipt page offers a writer: which notes fit this receipt now."""

    cancel: bool
    partial_credit: bool
    cancel_rest: bool  # after partial credit notes: one credit note for what is left
    debit: bool
    copy: bool


@dataclass(frozen=True)
class ReceiptView:
    id: str
    title: str
    type_name: str
    number: str
    receipt: IssuedReceipt
    receiver: list[tuple[str, str]]
    totals: list[TotalRow]
    headline: TotalRow | None  # the amount the page puts first: none for an e-Remito
    qr_svg: Markup
    cae: CaeInfo
    dgi_status: tuple[str, str]
    lines: list[LineRow] = field(default_factory=list)
    actions: Actions = Actions(False, False, False, False, False)
    payment_form: str = ""
    terms: list[tuple[str, str]] = field(default_factory=list)  # an export's terms of sale, a principal

    @property
    def paper(self) -> bool:
        """A paper contingency receipt keyed in: it went to DGI only, its customer holds the paper."""
        return self.receipt.tipo_cfe in CFC_TYPES

    @property
    def is_boleta(self) -> bool:
        """An e-Boleta de entrada, its note or its paper one: the company's purchase, its other party the seller."""
        return electronic_type(self.receipt.tipo_cfe) in BOLETA_TYPES

    @staticmethod
    def name_of(code: int | None) -> str:
        """The name a number follows: a note's names itself, not its original (choices.NOTE_NAMES)."""
        return str(NOTE_NAMES.get(code) or type_name(code)) if code else ""


def _rate(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def headline(tipo_cfe: int, totals: Totals) -> TotalRow | None:
    """The amount a receipt stands for, labelled: a sale's amount to pay, an e-Remito de Exportación's total, an
    e-Resguardo's total withheld; None for an e-Remito, which has no amounts."""
    shown = headline_amount(tipo_cfe)
    if shown is None:
        return None
    key, label = _HEADLINES[shown]
    return TotalRow(key, str(label), totals.amount(key), emphasis=True)


def total_rows(tipo_cfe: int, totals: Totals) -> list[TotalRow]:
    """The service's totals worth showing: every non-zero amount, plus the total and the amount to pay of a sale;
    up to its total for an e-Remito de Exportación (nobody pays a remito), the total withheld alone for an
    e-Resguardo, nothing for an e-Remito."""
    last = headline(tipo_cfe, totals)
    if last is None or last.key == "withheld":
        return [last] if last else []
    rows = []
    for key, label, rate_key in _TAX_ROWS:
        if totals.amount(key):
            text = str(label) % {"rate": _rate(totals.amount(rate_key))} if rate_key else str(label)
            rows.append(TotalRow(key, text, totals.amount(key)))
    rows.append(TotalRow("total", _("Total"), totals.total, emphasis=True))
    if last.key == "total":
        return rows
    rows += [
        TotalRow(key, str(label), totals.amount(key)) for key, label, _r in _AFTER_TOTAL_ROWS if totals.amount(key)
    ]
    rows.append(last)
    return rows


def receiver_rows(receiver: Receiver | None) -> list[tuple[str, str]]:
    if not receiver:
        return []
    number = receiver.document or ""
    if receiver.doc_type == DocType.RUT and is_valid_rut(number):
        number = format_rut(number)
    kind = DOC_TYPE_NAMES.get(receiver.doc_type, "") if receiver.doc_type is not None else ""
    rows = [
        # The document's number on one line: browsers break after its dashes ("21-" above "484436-001-8"); a number
        # that does not fit beside its label goes under it whole (the facts' rows, static/css/app.css).
        (
            _("Documento"),
            Markup('{} <span class="receipt-number">{}</span>').format(kind, number).strip() if number else "",
        ),
        (_("Nombre"), receiver.name or ""),
        (
            _("Dirección"),
            ", ".join(v for v in (receiver.address, receiver.city, receiver.department, receiver.country_name) if v),
        ),
    ]
    return [(label, value) for label, value in rows if value]


def term_rows(receipt: IssuedReceipt) -> list[tuple[str, str]]:
    """What the receipt says besides its receiver: an export's terms of sale, the principal of a sale on behalf of
    others."""
    rows = [(_("Cláusula de venta"), receipt.sale_clause or "")]
    if receipt.sale_mode is not None:
        rows.append((_("Modalidad de venta"), str(dict(MOD_VENTA).get(receipt.sale_mode, receipt.sale_mode))))
    if receipt.transport is not None:
        rows.append((_("Vía de transporte"), str(dict(VIA_TRANSP).get(receipt.transport, receipt.transport))))
    if principal := receipt.principal:
        kind = DOC_TYPE_NAMES.get(principal.doc_type, "")
        rows.append((_("Mandante (venta por cuenta ajena)"), f"{principal.name} · {kind} {principal.document}"))
    return [(label, value) for label, value in rows if value]


def qr_svg(url: str) -> Markup:
    """The DGI verification QR as inline SVG, with no style attributes (the CSP forbids them)."""
    return _qr_svg(url, str(_("Código QR de verificación")))


@functools.lru_cache(maxsize=2048)
def _qr_svg(url: str, title: str) -> Markup:
    # A receipt's QR never changes: made once per receipt and language in each process. The same symbol as the
    # printed receipt's (portal/service/cfe/qr.py: error correction M, mask 0, checked with zbarimg): scoring
    # the eight masks cost three times the rest of a first view of the page, and segno's building of the rest
    # half of what was left (qr.py makes the same text in less than half the time).
    svg = qr_svg_text(url, title)
    # segno escapes the title; the only other text is the path data it generates.
    return Markup('<svg role="img" {}'.format(svg.removeprefix("<svg ")))  # noqa: S704


def _lines(receipt: IssuedReceipt) -> list[LineRow]:
    indicators = dict(IND_FACT)
    return [
        LineRow(
            description=line.name or "",
            quantity=line.quantity,
            unit=line.unit or "",
            price=line.unit_price,
            discount=line.discount,
            indicator=str(indicators.get(line.ind_fact, line.ind_fact) if line.ind_fact is not None else ""),
            retentions=line.retentions,
        )
        for line in receipt.lines
    ]


def _actions(receipt: IssuedReceipt) -> Actions:
    balance = receipt.creditable_balance
    return Actions(
        cancel=receipt.tipo_cfe in CREDIT_NOTE_FOR
        and bool(balance)
        and not any(n.tipo_cfe in CREDIT_NOTES for n in receipt.notes),
        partial_credit=receipt.tipo_cfe in CREDIT_NOTE_FOR and bool(balance),
        cancel_rest=receipt.tipo_cfe in CREDIT_NOTE_FOR
        and bool(balance)
        and any(n.tipo_cfe in CREDIT_NOTES for n in receipt.notes),
        debit=receipt.tipo_cfe in DEBIT_NOTE_OF,
        copy=receipt.tipo_cfe in dict(CFE_TYPE_CHOICES),
    )


def _title(receipt: IssuedReceipt) -> str:
    """The receipt's type and number; a note's says its original's too ("Nota de crédito e-Ticket A-0000003, de
    e-Ticket A-0000001")."""
    own = numbered_name(receipt.tipo_cfe, receipt.number)
    originals = [r for r in receipt.references if r.tipo_cfe and r.number and not r.global_reference]
    if receipt.tipo_cfe not in NOTE_NAMES or len(originals) != 1:
        return own
    return _(
        "%(note)s, de %(original)s", note=own, original=f"{type_name(originals[0].tipo_cfe)} {originals[0].number}"
    )


def receipt_view(receipt: IssuedReceipt) -> ReceiptView:
    name = type_name(receipt.tipo_cfe)
    status = DGI_STATUS.get(receipt.dgi_status, (receipt.dgi_status, "badge-neutral"))
    return ReceiptView(
        id=receipt.id,
        title=_title(receipt),
        type_name=name,
        number=receipt.number,
        receipt=receipt,
        receiver=receiver_rows(receipt.receiver),
        totals=total_rows(receipt.tipo_cfe, receipt.totals),
        headline=headline(receipt.tipo_cfe, receipt.totals),
        qr_svg=qr_svg(receipt.qr_url),
        cae=receipt.cae,
        dgi_status=(str(status[0]), status[1]),
        lines=_lines(receipt),
        actions=_actions(receipt),
        payment_form=str(dict(FMA_PAGO).get(receipt.payment_form, "")) if receipt.payment_form else "",
        terms=term_rows(receipt),
    )


def activity_summary(receipt: IssuedReceipt) -> str:
    """What the activity record says about an issued receipt, e.g. "e-Ticket A-0000012 · UYU 376,00".
    Stored once, so it uses DGI's Spanish names and Uruguayan number format whatever the user's language."""
    kind = CFE_TYPES.get(receipt.tipo_cfe)
    shown = headline(receipt.tipo_cfe, receipt.totals)
    if shown is None:  # an e-Remito: no amount
        return f"{kind.short_es if kind else receipt.tipo_cfe} {receipt.number}"
    amount = format_decimal(shown.amount, format="#,##0.00", locale="es_UY")
    return f"{kind.short_es if kind else receipt.tipo_cfe} {receipt.number} · {receipt.currency} {amount}"
