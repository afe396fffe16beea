"""The ReporteDiarioCFE document (ReporteDiarioCFE.xsd), laid out like DGI's sample
Rep_219000090011_20120511_01_Ej_Mod_27032014.xml: a Caratula, then one Rsmn_<kind> per CFE type used that
day, in the schema's order, each with its amounts per date and branch, its counts and its number ranges."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache

from lxml import etree
from lxml.builder import ElementMaker

from portal import paths
from portal.domain.cfe_types import electronic_type
from portal.service.cfe.xml import format_decimal

NS = "http://cfe.dgi.gub.uy"
_E = ElementMaker(namespace=NS, nsmap={"ns1": NS})

# CFE type -> (element, kind of amounts), in ReporteDiarioCFE.xsd's order (types this service issues).
SECTIONS = {
    101: ("Rsmn_Tck", "FyT"),
    102: ("Rsmn_Tck_Nota_Credito", "FyT"),
    103: ("Rsmn_Tck_Nota_Debito", "FyT"),
    131: ("Rsmn_Tck_CtaAj", "FyT"),
    132: ("Rsmn_Tck_Nota_Credito_CtaAj", "FyT"),
    133: ("Rsmn_Tck_Nota_Debito_CtaAj", "FyT"),
    111: ("Rsmn_Fac", "FyT"),
    112: ("Rsmn_Fac_Nota_Credito", "FyT"),
    113: ("Rsmn_Fac_Nota_Debito", "FyT"),
    141: ("Rsmn_Fac_CtaAj", "FyT"),
    142: ("Rsmn_Fac_Nota_Credito_CtaAj", "FyT"),
    143: ("Rsmn_Fac_Nota_Debito_CtaAj", "FyT"),
    121: ("Rsmn_Fac_Exp", "FExp"),
    122: ("Rsmn_Fac_Exp_Nota_Credito", "FExp"),
    123: ("Rsmn_Fac_Exp_Nota_Debito", "FExp"),
    181: ("Rsmn_Rem", "Rem"),
    124: ("Rsmn_Rem_Exp", "Rem_Exp"),
    182: ("Rsmn_Resg", "Res"),
    151: ("Rsmn_Bol", "Bol"),
    152: ("Rsmn_Bol_Nota_Credito", "Bol"),
    153: ("Rsmn_Bol_Nota_Debito", "Bol"),
}
# Contingency receipts keyed in (CFC, 2xx): sections of their own, with their amounts and CantCFCEmi (how many
# CFC were issued). ReporteDiarioCFE.xsd 1.44.2 has no count or range of CFC voided: "No corresponde informar los
# CFC anulados" in the CFE sections, and the Cont sections carry none.
CFC_SECTIONS = {
    201: "Rsmn_Tck_Cont",
    202: "Rsmn_Tck_Cont_Nota_Credito",
    203: "Rsmn_Tck_Cont_Nota_Debito",
    231: "Rsmn_Tck_CtaAj_Cont",
    232: "Rsmn_Tck_CtaAj_Cont_Nota_Credito",
    233: "Rsmn_Tck_CtaAj_Cont_Nota_Debito",
    211: "Rsmn_Fac_Cont",
    212: "Rsmn_Fac_Cont_Nota_Credito",
    213: "Rsmn_Fac_Cont_Nota_Debito",
    241: "Rsmn_Fac_CtaAj_Cont",
    242: "Rsmn_Fac_CtaAj_Cont_Nota_Credito",
    243: "Rsmn_Fac_CtaAj_Cont_Nota_Debito",
    221: "Rsmn_Fac_Exp_Cont",
    222: "Rsmn_Fac_Exp_Cont_Nota_Credito",
    223: "Rsmn_Fac_Exp_Cont_Nota_Debito",
    281: "Rsmn_Rem_Cont",
    224: "Rsmn_Rem_Exp_Cont",
    282: "Rsmn_Resg_Cont",
    251: "Rsmn_Bol_Cont",
    252: "Rsmn_Bol_Cont_Nota_Credito",
    253: "Rsmn_Bol_Cont_Nota_Debito",
}
# ... each with its 1xx type's kind of amounts (RsmnData_Fac_Exp_Cont's are Montos_FExp, RsmnData_Bol_Cont's
# Montos_Bol, ...): a CFC reports the amounts of the document it is.
CFC_KINDS = {tipo: SECTIONS[electronic_type(tipo)][1] for tipo in CFC_SECTIONS}


def reported(tipo: int) -> bool:
    """Whether the daily report has a section for this type (a CFE's or a CFC's)."""
    return tipo in SECTIONS or tipo in CFC_SECTIONS


@lru_cache(maxsize=1)
def _schema_order() -> tuple[str, ...]:
    """The Rsmn_* sections in the order ReporteDiarioCFE.xsd's Reporte lists them."""
    text = (paths.xsd_dir() / "ReporteDiarioCFE.xsd").read_text(encoding="utf-8")
    return tuple(dict.fromkeys(re.findall(r'element name="(Rsmn_[A-Za-z_]+)"', text)))


def _in_schema_order(tipos) -> list[int]:
    order = _schema_order()

    def position(tipo: int) -> int:
        element = SECTIONS[tipo][0] if tipo in SECTIONS else CFC_SECTIONS[tipo]
        return order.index(element) if element in order else len(order)

    return sorted(tipos, key=position)


# Mnts_FyT_Item element -> the receipt's total (totals_json names), in the schema's order.
_FYT = FYT = (
    ("TotMntNoGrv", "mntNoGrv"),
    ("TotMntExpyAsim", "mntExpoyAsim"),
    ("TotMntImpPerc", "mntImpuestoPerc"),
    ("TotMntIVAenSusp", "mntIVaenSusp"),
    ("TotMntIVATasaMin", "mntNetoIvaTasaMin"),
    ("TotMntIVATasaBas", "mntNetoIVATasaBasica"),
    ("TotMntIVAOtra", "mntNetoIVAOtra"),
    ("MntIVATasaMin", "mntIVATasaMin"),
    ("MntIVATasaBas", "mntIVATasaBasica"),
    ("MntIVAOtra", "mntIVAOtra"),
)


@dataclass
class TypeSummary:
    """What the report says about one CFE type."""

    amounts: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(Decimal)))  # (fecha, suc) -> sums
    rates: dict = field(default_factory=dict)  # (fecha, suc) -> (ivaTasaMin, ivaTasaBasica)
    issued: dict = field(default_factory=lambda: defaultdict(list))  # serie -> numbers
    voided: dict = field(default_factory=lambda: defaultdict(list))  # serie -> [(desde, hasta)]
    above_threshold: int = 0

    def add_receipt(
        self, fecha: date, sucursal: int, serie: str, nro: int, totals: dict, rate: Decimal, above_threshold: bool
    ) -> None:
        """`above_threshold`: its total excluding IVA passes Tabla E's threshold (CantDocsMay_topeUI counts
        these, by the amount as the XSD defines it; not every e-Ticket that went by envelope, which a perception
        or retention sends too)."""
        key = (fecha, sucursal)
        sums = self.amounts[key]
        for _element, name in _FYT:
            sums[name] += Decimal(str(totals.get(name) or 0)) * rate
        sums["mntTotal"] += Decimal(str(totals.get("mntTotal") or 0)) * rate
        sums["mntTotRetenido"] += Decimal(str(totals.get("mntTotRetenido") or 0)) * rate
        self.rates[key] = (totals.get("ivaTasaMin") or "10", totals.get("ivaTasaBasica") or "22")
        self.issued[serie].append(nro)
        self.above_threshold += above_threshold

    @property
    def issued_count(self) -> int:
        return sum(len(v) for v in self.issued.values())

    @property
    def voided_count(self) -> int:
        return sum(h - d + 1 for ranges in self.voided.values() for d, h in ranges)


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Consecutive numbers as (from, to) ranges."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return [(a, b) for a, b in runs]


def _montos(kind: str, summary: TypeSummary) -> etree._Element | None:
    items = []
    for (fecha, suc), sums in sorted(summary.amounts.items()):
        head = [_E.Fecha(fecha.isoformat()), _E.CodSuc(str(suc))]
        if kind == "Rem":
            items.append(_E.Mnts_Rem_Item(*head))
        elif kind in ("FExp", "Rem_Exp"):  # Montos_FExp, Montos_Rem_Exp: export and total, no IVA
            item = _E.Mnts_FExp_Item if kind == "FExp" else _E.Mnts_Rem_Exp_Item
            expo, total = format_decimal(sums["mntExpoyAsim"], 2), format_decimal(sums["mntTotal"], 2)
            items.append(item(*head, _E.TotMntExpyAsim(expo), _E.TotMntTotal(total)))
        elif kind == "Bol":  # Montos_Bol: no IVA; not taxed, IVA in suspense, total and retentions
            items.append(
                _E.Mnts_Bol_Item(
                    *head,
                    _E.TotMntNoGrv(format_decimal(sums["mntNoGrv"], 2)),
                    _E.TotMntIVAenSusp(format_decimal(sums["mntIVaenSusp"], 2)),
                    _E.TotMntTotal(format_decimal(sums["mntTotal"], 2)),
                    _E.TotMntRetenido(format_decimal(sums["mntTotRetenido"], 2)),
                )
            )
        elif kind == "Res":
            items.append(_E.Mnts_Res_Item(*head, _E.TotMntRetenido(format_decimal(sums["mntTotRetenido"], 2))))
        else:
            tasa_min, tasa_bas = summary.rates[(fecha, suc)]
            amounts = [getattr(_E, element)(format_decimal(sums[name], 2)) for element, name in _FYT]
            items.append(
                _E.Mnts_FyT_Item(
                    *head,
                    *amounts,
                    _E.IVATasaMin(str(tasa_min)),
                    _E.IVATasaBas(str(tasa_bas)),
                    _E.TotMntTotal(format_decimal(sums["mntTotal"], 2)),
                    _E.TotMntRetenido(format_decimal(sums["mntTotRetenido"], 2)),
                )
            )
    if not items:
        return None
    return _E.Montos(*items)


def _cfc_section(tipo: int, summary: TypeSummary) -> etree._Element:
    element, kind = CFC_SECTIONS[tipo], CFC_KINDS[tipo]
    data = _E.RsmnData()
    montos = _montos(kind, summary)
    if montos is not None:
        data.append(montos)
    if element.startswith("Rsmn_Tck"):
        data.append(_E.CantDocsMay_topeUI(str(summary.above_threshold)))
    data.append(_E.CantCFCEmi(str(summary.issued_count)))
    return getattr(_E, element)(_E.TipoComp(str(tipo)), data)


def _section(tipo: int, summary: TypeSummary) -> etree._Element:
    if tipo in CFC_SECTIONS:
        return _cfc_section(tipo, summary)
    element, kind = SECTIONS[tipo]
    data = _E.RsmnData()
    montos = _montos(kind, summary)
    if montos is not None:
        data.append(montos)
    data.append(_E.CantDocsUtil(str(summary.issued_count + summary.voided_count)))
    if element.startswith("Rsmn_Tck"):
        data.append(_E.CantDocsMay_topeUI(str(summary.above_threshold)))
    data.append(_E.CantDocsAnulados(str(summary.voided_count)))
    data.append(_E.CantDocsEmi(str(summary.issued_count)))
    used = [(serie, a, b) for serie, numbers in sorted(summary.issued.items()) for a, b in _runs(numbers)]
    if used:
        data.append(
            _E.RngDocsUtil(*[_E.RDU_Item(_E.Serie(s), _E.NroDesde(str(a)), _E.NroHasta(str(b))) for s, a, b in used])
        )
    voided = [(serie, a, b) for serie, ranges in sorted(summary.voided.items()) for a, b in sorted(ranges)]
    if voided:
        data.append(
            _E.RngDocsAnulados(
                *[_E.RDA_Item(_E.Serie(s), _E.NroDesde(str(a)), _E.NroHasta(str(b))) for s, a, b in voided]
            )
        )
    return getattr(_E, element)(_E.TipoComp(str(tipo)), data)


def report_document(
    *, rut: str, fecha: date, sec_envio: int, signed_at: datetime, summaries: dict[int, TypeSummary]
) -> etree._Element:
    """The unsigned Reporte (the caller signs it with the company's certificate)."""
    sections = [_section(tipo, summaries[tipo]) for tipo in _in_schema_order(t for t in summaries if reported(t))]
    count = sum(s.issued_count + s.voided_count for s in summaries.values())
    caratula = _E.Caratula(
        _E.RUCEmisor(rut),
        _E.FechaResumen(fecha.isoformat()),
        _E.SecEnvio(str(sec_envio)),
        _E.TmstFirmaEnv(signed_at.isoformat(timespec="seconds")),
        _E.CantComprobantes(str(count)),
        version="1.0",
    )
    return _E.Reporte(caratula, *sections)


def file_name(rut: str, fecha: date, sec_envio: int) -> str:
    """DGI's name for a daily report: Rep_<RUC>_<AAAAMMDD>_<seq>.xml."""
    return f"Rep_{rut}_{fecha:%Y%m%d}_{sec_envio:02d}.xml"
