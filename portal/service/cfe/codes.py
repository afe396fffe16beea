"""Code tables of DGI's XSD 1.44.2 and of the "Formato de los CFE" that the rules and the XML builder share.

The currency and country lists are the enumerations `TipMonType` and `CodPaisType` of DGITypes.xsd, copied
so that the rules can answer with a field error before the schema would; a unit test checks they still match
the XSD.
"""

from __future__ import annotations

from portal.domain.cfe_types import CFE_TYPES, IVA_BASIC_RATE, IVA_MINIMUM_RATE, with_cfc

CURRENCIES = frozenset(
    (
        "AED AFN ALL AMD ANG AOA ARS AUD AWG AZM BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP "
        "BYR BZD CAD CDF CHF CLF CLP CNY COP COU CRC CSD CUP CUC CVE CYP CZK DJF DKK DOP DZD EEK EGP ERN "
        "ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD "
        "JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LTL LVL LYD MAD MDL MGA MKD MMK "
        "MNT MOP MRO MTL MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN "
        "PYG QAR RON RUB RWF SAR SBD SCR SDG SEK SGD SHP SKK SLL SOS SRD STD SYP SZL THB TJS TMT TND TOP "
        "TRY TTD TWD TZS UAH UGX USD UYU UZS VEF VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XDR XFO XFU "
        "XOF XPD XPF XPT XTS YER ZAR ZMK ZWL UYI UYR AZN BYN CHE CHW MRU RSD SSP STN VES XSU XUA ZMW "
    ).split()
)

COUNTRIES = frozenset(
    (
        "AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR "
        "BS BT BU BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CS CU CV CW CX CY CZ DE DJ DK DM DO "
        "DZ EA EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU "
        "GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KA KE KG KH KI KM KN KP KR KW "
        "KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV "
        "MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA "
        "RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SU SV SX SY SZ TC TD TF TG TH "
        "TJ TK TL TM TN TO TP TR TT TV TW TZ UA UE UG UM US UY UZ VA VC VE VG VI VN VU WF WS YD YE YT YU "
        "ZA ZM ZR ZW 99 "
    ).split()
)


# DGI's IVA rates, the same facts the portal shows (portal.domain.cfe_types).
IVA_MINIMA = IVA_MINIMUM_RATE
IVA_BASICA = IVA_BASIC_RATE

# IndFact (B-C4), by the XSD element's enumeration.
IND_FACT_ETCK_EFACT = frozenset({1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 16})
IND_FACT_EREM = frozenset({8})  # optional: only an item that reduces an earlier e-Remito
IND_FACT_ERESG = frozenset({9})  # optional: only an item that voids an earlier e-Resguardo
IND_FACT_EFACT_EXP = frozenset({5, 6, 7, 10})  # Item_Det_Fact_Exp
IND_FACT_EREM_EXP = frozenset({5, 8})  # Item_Rem_Exp, optional: a free delivery or an item to reduce
IND_FACT_BOLETA = frozenset({5, 6, 7, 12, 13, 14, 15, 17})  # Item_Det_Boleta
IND_FACT_DR_BOLETA = frozenset({6, 7, 12, 13, 14, 15, 17})  # what a global discount of an e-Boleta can adjust
IND_FACT_DR_EXP = frozenset({6, 7, 10})  # the global discounts an export invoice can carry (no IVA, no exempt)
IND_FACT_DR = frozenset({1, 2, 3, 4, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17})  # IndFactDR (D-C7)

# The receipts each XSD element accepts as TipoCFE (CFE and contingency CFC), to check note references.
ELEMENT_TYPES = {
    element: with_cfc(frozenset(t.code for t in CFE_TYPES.values() if t.element == element))
    for element in ("eTck", "eFact", "eFact_Exp", "eRem_Exp", "eRem", "eResg", "eBoleta")
}
ALL_CFE_TYPES = frozenset().union(*ELEMENT_TYPES.values())

# Retention codes of form 2181 are fiscal credits: they add to MntTotCredFisc, not MntTotRetenido (A-C125).
CREDITO_FISCAL_PREFIX = "2181"
