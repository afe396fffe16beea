"""Totals of a CFE by DGI's formulas ("Formato de los CFE" v25, A-C112 to A-C130 and B-C24).

Every amount is a Decimal in the receipt's currency, rounded half-up to 2 decimals: each line (B-C24), and
each rate's net and IVA. With net prices (MntBruto absent) IVA is DGI's A-C121/A-C122: the rounded net x
rate. With prices including IVA (MntBruto 1) each rate's net is its gross total / (1 + rate), rounded
(A-C116, A-C117), and its IVA is the gross minus that net, so MntTotal equals the sum of the lines exactly,
as on the shelf; that IVA is within one cent of net x rate, the tolerance DGI accepts
(`iva_within_dgi_tolerance`). Uruguay's most used ERP integration (Odoo's l10n_uy_edi) totals the same way.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from portal.domain.cfe_types import IND_FACT_BASIC_RATE, IND_FACT_MINIMUM_RATE, cfe_type, headline_amount
from portal.service.cfe.codes import CREDITO_FISCAL_PREFIX, IVA_BASICA, IVA_MINIMA
from portal.service.cfe.model import CfeInput, Item

ZERO = Decimal("0.00")
_CENT = Decimal("0.01")
_HUNDRED = Decimal(100)
# The places of a price turned the other way round (other_way_price): finer than a cent, since a price with
# IVA divided by 1.22 rarely falls on one, and within what PrecioUnitario (B-C11) carries.
PRICE_PLACES = Decimal("0.0001")
_RATES = {IND_FACT_BASIC_RATE: IVA_BASICA, IND_FACT_MINIMUM_RATE: IVA_MINIMA}


def round2(value: Decimal) -> Decimal:
    """Half-up to 2 decimals, the rounding DGI uses for every amount."""
    return value.quantize(_CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Totals:
    """Zona A "Totales encabezado" plus the amount of each line, in the receipt's currency."""

    line_amounts: tuple[Decimal, ...]
    mnt_no_grv: Decimal = ZERO
    mnt_expo_y_asim: Decimal = ZERO
    mnt_impuesto_perc: Decimal = ZERO
    mnt_iva_en_susp: Decimal = ZERO
    mnt_neto_iva_tasa_min: Decimal = ZERO
    mnt_neto_iva_tasa_basica: Decimal = ZERO
    mnt_neto_iva_otra: Decimal = ZERO
    iva_tasa_min: Decimal = IVA_MINIMA
    iva_tasa_basica: Decimal = IVA_BASICA
    mnt_iva_tasa_min: Decimal = ZERO
    mnt_iva_tasa_basica: Decimal = ZERO
    mnt_iva_otra: Decimal = ZERO
    mnt_total: Decimal = ZERO
    mnt_tot_retenido: Decimal = ZERO
    mnt_tot_cred_fisc: Decimal = ZERO
    cant_lin_det: int = 0
    retenc_percep: tuple[tuple[str, Decimal], ...] = ()
    monto_nf: Decimal = ZERO
    mnt_pagar: Decimal = ZERO

    @property
    def mnt_neto(self) -> Decimal:
        """Σ A-C112..A-C118, the net amount DGI compares with the e-Ticket identification threshold."""
        return (
            self.mnt_no_grv
            + self.mnt_expo_y_asim
            + self.mnt_impuesto_perc
            + self.mnt_iva_en_susp
            + self.mnt_neto_iva_tasa_min
            + self.mnt_neto_iva_tasa_basica
            + self.mnt_neto_iva_otra
        )


def line_amount(item: Item) -> Decimal:
    """MontoItem (B-C24) = Cantidad x PrecioUnitario - DescuentoMonto + RecargoMnt, rounded to cents."""
    if item.cantidad is None or item.precio_unitario is None:
        return ZERO
    raw = item.cantidad * item.precio_unitario - (item.descuento_monto or 0) + (item.recargo_mnt or 0)
    return round2(raw)


def _bases(cfe: CfeInput, amounts: tuple[Decimal, ...]) -> dict[int, Decimal]:
    """Σ lines per IndFact, minus global discounts and plus global surcharges of that IndFact."""
    bases: dict[int, Decimal] = defaultdict(lambda: ZERO)
    for item, amount in zip(cfe.items, amounts, strict=True):
        if item.ind_fact is not None:
            bases[item.ind_fact] += amount
    for dr in cfe.dsc_rcg_global:
        bases[dr.ind_fact_dr] += dr.valor_dr if dr.tpo_mov_dr == "R" else -dr.valor_dr
    return bases


def _retentions(cfe: CfeInput) -> tuple[tuple[tuple[str, Decimal], ...], Decimal, Decimal]:
    """Totales/RetencPercep per code (A-C127, A-C128), MntTotRetenido (A-C125) and MntTotCredFisc (A-C125.1).

    Lines with IndFact 9 void an earlier e-Resguardo line, so their values subtract (A-C128).
    """
    per_code: dict[str, Decimal] = {}
    for item in cfe.items:
        sign = -1 if item.ind_fact == 9 else 1
        for ret in item.retenc_percep:
            per_code[ret.cod_ret] = per_code.get(ret.cod_ret, ZERO) + sign * ret.val_ret_perc
    retenido = sum((v for c, v in per_code.items() if not c.startswith(CREDITO_FISCAL_PREFIX)), ZERO)
    credito = sum((v for c, v in per_code.items() if c.startswith(CREDITO_FISCAL_PREFIX)), ZERO)
    return tuple(sorted(per_code.items())), retenido, credito


def _net_and_iva(base: Decimal, rate: Decimal, *, gross: bool) -> tuple[Decimal, Decimal]:
    """A rate's (net, IVA): from net prices by DGI's A-C121/A-C122, or split from an IVA-included total."""
    if gross:
        net = round2(base / (1 + rate / _HUNDRED))
        return net, base - net
    return base, round2(base * rate / _HUNDRED)


def other_way_price(price: Decimal, ind_fact: int, *, includes_iva: bool) -> Decimal:
    """A unit price the other way round: without IVA when `price` includes it, with IVA when it does not, at the
    rate of its indicator (B-C4: 2 minimum, 3 basic), rounded half up to PRICE_PLACES; the same price for an
    indicator without a known rate (exempt, other rate, export...), where IVA does not change it."""
    rate = _RATES.get(ind_fact)
    if rate is None:
        return price
    factor = 1 + rate / _HUNDRED
    other = price / factor if includes_iva else price * factor
    return other.quantize(PRICE_PLACES, rounding=ROUND_HALF_UP)


def iva_within_dgi_tolerance(net: Decimal, rate: Decimal, iva: Decimal) -> bool:
    """Whether a rate's IVA is one DGI accepts for that net: within 0.01 of net x rate (rate in %)."""
    return abs(iva - net * rate / _HUNDRED) <= _CENT


def iva_tolerance_problems(totals: Totals) -> list[str]:
    """The IVA totals (A-C121, A-C122) that stray more than DGI's cent from net x rate; empty when fine."""
    checks = (
        ("MntIVATasaMin", totals.mnt_neto_iva_tasa_min, totals.iva_tasa_min, totals.mnt_iva_tasa_min),
        ("MntIVATasaBasica", totals.mnt_neto_iva_tasa_basica, totals.iva_tasa_basica, totals.mnt_iva_tasa_basica),
    )
    return [name for name, net, rate, iva in checks if not iva_within_dgi_tolerance(net, rate, iva)]


def compute_totals(cfe: CfeInput) -> Totals:
    """The Totals of a receipt; pure, and independent of the order of its lines."""
    element = cfe_type(cfe.tipo_cfe).element
    count = len(cfe.items)
    if element == "eRem":
        return Totals(line_amounts=(ZERO,) * count, cant_lin_det=count)
    retenc, retenido, credito = _retentions(cfe)
    if element == "eResg":
        return Totals(
            line_amounts=(ZERO,) * count,
            cant_lin_det=count,
            retenc_percep=retenc,
            mnt_tot_retenido=retenido,
            mnt_tot_cred_fisc=credito,
        )

    amounts = tuple(line_amount(item) for item in cfe.items)
    if element == "eRem_Exp":
        return _export_remito(cfe, amounts)
    bases = _bases(cfe, amounts)
    neto_min, iva_min = _net_and_iva(bases[2], IVA_MINIMA, gross=cfe.mnt_bruto == 1)
    neto_basica, iva_basica = _net_and_iva(bases[3], IVA_BASICA, gross=cfe.mnt_bruto == 1)
    iva_otra = cfe.mnt_iva_otra or ZERO
    parts = dict(
        # 13, 14, 15, 17: the e-Boleta de entrada's purchases, none of them taxed with IVA
        mnt_no_grv=bases[1] + bases[16] + bases[13] + bases[14] + bases[15] + bases[17],
        mnt_expo_y_asim=bases[10],
        mnt_impuesto_perc=bases[11],
        mnt_iva_en_susp=bases[12],
        mnt_neto_iva_tasa_min=neto_min,
        mnt_neto_iva_tasa_basica=neto_basica,
        mnt_neto_iva_otra=bases[4],
    )
    total = sum(parts.values(), ZERO) + iva_min + iva_basica + iva_otra
    monto_nf = bases[6] - bases[7]
    return Totals(
        line_amounts=amounts,
        **parts,
        mnt_iva_tasa_min=iva_min,
        mnt_iva_tasa_basica=iva_basica,
        mnt_iva_otra=iva_otra,
        mnt_total=total,
        mnt_tot_retenido=retenido,
        mnt_tot_cred_fisc=credito,
        cant_lin_det=count,
        retenc_percep=retenc,
        monto_nf=monto_nf,
        mnt_pagar=total + retenido + monto_nf,
    )


def _export_remito(cfe: CfeInput, amounts: tuple[Decimal, ...]) -> Totals:
    """The e-Remito de Exportación declares the value of the goods it moves (Totales_Rem_Exp): MntExpoyAsim
    is the sum of its lines, less those that reduce an earlier remito (IndFact 8); a free delivery (5) is 0.
    MntTotal is the same amount (no IVA, nothing else)."""
    value = sum(
        (-amount if item.ind_fact == 8 else amount for item, amount in zip(cfe.items, amounts, strict=True)), ZERO
    )
    return Totals(
        line_amounts=amounts, mnt_expo_y_asim=value, mnt_total=value, cant_lin_det=len(amounts), mnt_pagar=value
    )


def qr_amount(tipo_cfe: int, totals: Totals) -> Decimal:
    """The `monto` of the QR link: the total the type stands for (portal.domain.cfe_types.headline_amount), 0 for
    an e-Remito."""
    shown = headline_amount(tipo_cfe)
    if shown == "MntTotal":
        return totals.mnt_total
    if shown == "MntTotRetenido":
        return totals.mnt_tot_retenido
    if shown is None:
        return ZERO
    return totals.mnt_pagar
