"""The CFE types (Tabla A of DGI's "Formato de los CFE") and the facts about them both rooms need."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

# The days a CFE can carry (the range of dates DGI's CFE schema and rules admit): none before the regime began.
FIRST_CFE_DAY, LAST_CFE_DAY = date(2011, 10, 1), date(2050, 12, 31)

# The unit of measure (B-C10) a line carries when it has none: the service writes it, a form shows an empty field.
NO_UNIT = "N/A"


@dataclass(frozen=True)
class CfeType:
    code: int
    name_es: str
    short_es: str
    element: str  # the child of <CFE> that carries it (eTck, eFact, ...)
    max_lines: int
    is_note: bool = False
    note_sign: int = 0  # -1 credit note, +1 debit note

    @property
    def requires_rut_receiver(self) -> bool:
        return self.element == "eFact"


_TYPES = (
    CfeType(101, "e-Ticket", "e-Ticket", "eTck", 700),
    CfeType(102, "Nota de Crédito de e-Ticket", "NC e-Ticket", "eTck", 700, True, -1),
    CfeType(103, "Nota de Débito de e-Ticket", "ND e-Ticket", "eTck", 700, True, 1),
    CfeType(111, "e-Factura", "e-Factura", "eFact", 200),
    CfeType(112, "Nota de Crédito de e-Factura", "NC e-Factura", "eFact", 200, True, -1),
    CfeType(113, "Nota de Débito de e-Factura", "ND e-Factura", "eFact", 200, True, 1),
    CfeType(131, "e-Ticket Venta por Cuenta Ajena", "e-Ticket Cta. Ajena", "eTck", 700),
    CfeType(132, "Nota de Crédito de e-Ticket Venta por Cuenta Ajena", "NC e-Ticket Cta. Ajena", "eTck", 700, True, -1),
    CfeType(133, "Nota de Débito de e-Ticket Venta por Cuenta Ajena", "ND e-Ticket Cta. Ajena", "eTck", 700, True, 1),
    CfeType(141, "e-Factura Venta por Cuenta Ajena", "e-Factura Cta. Ajena", "eFact", 200),
    CfeType(
        142, "Nota de Crédito de e-Factura Venta por Cuenta Ajena", "NC e-Factura Cta. Ajena", "eFact", 200, True, -1
    ),
    CfeType(
        143, "Nota de Débito de e-Factura Venta por Cuenta Ajena", "ND e-Factura Cta. Ajena", "eFact", 200, True, 1
    ),
    CfeType(121, "e-Factura de Exportación", "e-Fact. Exp.", "eFact_Exp", 200),
    CfeType(122, "Nota de Crédito de e-Factura de Exportación", "NC e-Fact. Exp.", "eFact_Exp", 200, True, -1),
    CfeType(123, "Nota de Débito de e-Factura de Exportación", "ND e-Fact. Exp.", "eFact_Exp", 200, True, 1),
    CfeType(124, "e-Remito de Exportación", "e-Rem. Exp.", "eRem_Exp", 200),
    CfeType(151, "e-Boleta de entrada", "e-Boleta", "eBoleta", 200),
    CfeType(152, "Nota de Crédito de e-Boleta de entrada", "NC e-Boleta", "eBoleta", 200, True, -1),
    CfeType(153, "Nota de Débito de e-Boleta de entrada", "ND e-Boleta", "eBoleta", 200, True, 1),
    CfeType(181, "e-Remito", "e-Remito", "eRem", 200),
    CfeType(182, "e-Resguardo", "e-Resguardo", "eResg", 200),
)

CFE_TYPES: dict[int, CfeType] = {t.code: t for t in _TYPES}

# What a note of each kind adjusts: a credit/debit note of type N refers to receipts of type N - 1 or N - 2.
NOTE_BASE_TYPE = {
    **{102: 101, 103: 101, 112: 111, 113: 111, 122: 121, 123: 121},
    **{132: 131, 133: 131, 142: 141, 143: 141, 152: 151, 153: 151},
}
# A paper contingency receipt keyed in (CFC, 2xx = 1xx + 100, CFE-URUGUAY.md section 13) is the fiscally valid
# document, recorded as its 1xx type's XML element with TipoCFE 2xx. DGI defines one for every type above (the
# XSDs' IdDoc_* admit 201-203, 211-213, 221-224, 231-233, 241-243, 251-253, 281, 282): this is the one list they
# all come from. A CFC is adjusted afterwards by the electronic notes of its 1xx type: DGI's TpoDocRef (DGITypes.xsd
# CFEType) admits every 2xx in a note's reference. A CFC e-Remito, e-Remito de Exportación or e-Resguardo (281,
# 224, 282) has no notes.
CFC_OFFSET = 100
CFC_BASE: dict[int, int] = {t.code + CFC_OFFSET: t.code for t in _TYPES}
CFC_TYPES = frozenset(CFC_BASE)
CFC_NAMES = {code: f"{CFE_TYPES[base].name_es} de contingencia" for code, base in sorted(CFC_BASE.items())}


def with_cfc(types: frozenset[int] | set[int]) -> frozenset[int]:
    """`types` and their contingency types (2xx): a CFC is what its 1xx type is in every list of kinds."""
    return frozenset(types) | {code + CFC_OFFSET for code in types if code + CFC_OFFSET in CFC_TYPES}


def electronic_type(code: int) -> int:
    """The 1xx type a receipt is built, checked and printed as: a CFC's base type, any other its own."""
    return CFC_BASE.get(code, code)


def _with_cfc_originals(table: dict[int, int]) -> dict[int, int]:
    """A note table (original -> its note) with each original's CFC too: a paper receipt is adjusted by the
    electronic note of its 1xx type (a 221 by a 122, as a 121 is)."""
    return {**table, **{code + CFC_OFFSET: note for code, note in table.items()}}


CREDIT_NOTE_OF = _with_cfc_originals({101: 102, 111: 112, 121: 122, 131: 132, 141: 142, 151: 152})
DEBIT_NOTE_OF = _with_cfc_originals({101: 103, 111: 113, 121: 123, 131: 133, 141: 143, 151: 153})
# The credit note that credits a receipt: a debit note can itself be credited.
CREDIT_NOTE_FOR = _with_cfc_originals(
    {
        **{101: 102, 103: 102, 111: 112, 113: 112, 121: 122, 123: 122},
        **{131: 132, 133: 132, 141: 142, 143: 142, 151: 152, 153: 152},
    }
)
# The credit notes, the paper contingency ones keyed in (202, 212, 222, ...) among them: each takes its amounts back.
CREDIT_NOTES = with_cfc(frozenset(CREDIT_NOTE_FOR.values()))
# What a note may reference (F-C3): the receipt it adjusts, and for a credit note also a debit note of that
# receipt (which it cancels). Never a credit note (a note on a note that only took an amount back), never a debit
# note from a debit note: DGI rejects those (E12) and their numbers are burnt. docs/DGI-RULES.md, F-C3.
NOTE_REFERENCE_TYPES: dict[int, frozenset[int]] = {
    note: frozenset(
        [original for original, credit in CREDIT_NOTE_FOR.items() if credit == note]
        + [original for original, debit in DEBIT_NOTE_OF.items() if debit == note]
    )
    for note in NOTE_BASE_TYPE
}

E_TICKET = 101
E_FACTURA = 111
E_FACTURA_EXPORTACION = 121
E_REMITO_EXPORTACION = 124
E_BOLETA = 151
E_REMITO = 181
E_RESGUARDO = 182
NOTE_TYPES = frozenset(t.code for t in _TYPES if t.is_note)
# The e-Ticket and e-Factura families: the types with payment terms, prices and IVA (not e-Remito/e-Resguardo).
INVOICE_TYPES = frozenset(t.code for t in _TYPES if t.element in ("eTck", "eFact"))
# Export (A-C13 to A-C15: ClauVenta, ModVenta, ViaTransp): the e-Factura de Exportación family and the e-Remito
# de Exportación. Their lines are export and assimilated (IndFact 10) and carry no IVA.
EXPORT_TYPES = frozenset(t.code for t in _TYPES if t.element in ("eFact_Exp", "eRem_Exp"))
EXPORT_INVOICE_TYPES = frozenset(t.code for t in _TYPES if t.element == "eFact_Exp")
IND_FACT_EXPORT = 10  # export and assimilated (B-C4): no IVA
# The sales: the e-Ticket and e-Factura families (cuenta ajena too), the e-Factura de Exportación's and the paper
# contingency receipts of each keyed in. What the IVA sales book files and a customer's credit balance adds up;
# e-Remitos move goods, e-Resguardos certify retentions and an e-Boleta de entrada is a purchase.
SALE_TYPES = with_cfc(INVOICE_TYPES | EXPORT_INVOICE_TYPES)
# ModVenta (A-C14) 90: the export of services, which travel by no road (ViaTransp 8, "no aplica").
MOD_VENTA_SERVICES = 90
VIA_TRANSP_NOT_APPLICABLE = 8
# Sales on behalf of others (venta por cuenta ajena): e-Ticket 131-133 and e-Factura 141-143, which name their
# principal (mandante) in the Complemento Fiscal (zona K).
CUENTA_AJENA_TYPES = frozenset({131, 132, 133, 141, 142, 143})
# The e-Boleta de entrada family: a purchase document the buyer issues; its "receiver" is the seller.
BOLETA_TYPES = frozenset(t.code for t in _TYPES if t.element == "eBoleta")
IND_FACT_IMEBA = 15  # a purchase from an IMEBA taxpayer: the only lines MntBruto 2 (IMEBA included) is for
# The types whose receiver must be identified by RUT (e-Factura and its notes).
RUT_RECEIVER_TYPES = frozenset(t.code for t in _TYPES if t.requires_rut_receiver)

# IVA indicators of a line (IndFact, B-C4) that the e-Ticket and e-Factura families use, with DGI's rates.
IND_FACT_EXEMPT = 1
IND_FACT_MINIMUM_RATE = 2
IND_FACT_BASIC_RATE = 3
IND_FACT_OTHER_RATE = 4
IND_FACT_FREE = 5
IND_FACT_NOT_BILLABLE = 6
IND_FACT_NOT_BILLABLE_NEGATIVE = 7
IND_FACT_SMALL_TAXPAYER = 16  # a sale by an IVA mínimo or Monotributo taxpayer (no IVA)
# The indicators an IVA mínimo or Monotributo taxpayer may not use (B-C4): its sales carry no IVA and are not exempt.
IND_FACT_NOT_FOR_SMALL_TAXPAYERS = frozenset({1, 2, 3, 4, 11, 12})
IVA_MINIMUM_RATE = Decimal("10")
IVA_BASIC_RATE = Decimal("22")


def type_name_es(code: int) -> str:
    """A CFE's or keyed-in CFC's Spanish name (Tabla A); the code for anything else."""
    if code in CFE_TYPES:
        return CFE_TYPES[code].name_es
    return CFC_NAMES.get(code, str(code))


def cfe_type(code: int) -> CfeType:
    """The CfeType for a supported code; KeyError for anything else."""
    return CFE_TYPES[code]


# The amount a receipt stands for, as DGI's QR link carries it (`monto`, CFE-URUGUAY.md section 5): the amount to
# pay (MntPagar) of most types, the goods' total (MntTotal) of an e-Remito de Exportación, the total withheld
# (MntTotRetenido) of an e-Resguardo, and none for an e-Remito, which moves goods without prices (its QR says 0).
# The QR, and the amount a receipt's page puts first, follow it.
HeadlineAmount = Literal["MntPagar", "MntTotal", "MntTotRetenido"]
_HEADLINE_AMOUNT: dict[str, HeadlineAmount | None] = {"eRem_Exp": "MntTotal", "eRem": None, "eResg": "MntTotRetenido"}


def headline_amount(code: int) -> HeadlineAmount | None:
    """Which of its totals a receipt of type `code` (a paper contingency one too) stands for; None for an e-Remito."""
    return _HEADLINE_AMOUNT.get(cfe_type(electronic_type(code)).element, "MntPagar")
