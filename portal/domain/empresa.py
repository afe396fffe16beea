"""Facts about a company's fiscal settings that the portal's forms and the service's checks share."""

from __future__ import annotations

from datetime import date

# The issuer's tax regime (the service's Issuer.regimen), with its Spanish name.
REGIMES = {
    "general": "IVA general",
    "iva_minimo": "IVA mínimo",
    "monotributo": "Monotributo",
    "monotributo_mides": "Monotributo social MIDES",
    "exonerado": "Exonerado de IVA",
}
# Regimes whose sales carry no IVA: documented with MntBruto 3, lines with IndFact 16 and a CAE especial 2-4
# (DGI A-C10, B-C4, G-C5).
SMALL_TAXPAYER_REGIMES = frozenset({"iva_minimo", "monotributo", "monotributo_mides"})
# Regimes that print no IVA-al-día statement (DGI: "no corresponde a Monotributo").
NO_IVA_AL_DIA = ("monotributo", "monotributo_mides")

# Paper formats of the printed receipt; the thermal rolls only for e-Tickets and their notes.
PAPER_FORMATS = ("a4", "80mm", "57mm")

# Uruguay's 19 departments, as DGI writes them.
DEPARTMENTS = (
    "Artigas",
    "Canelones",
    "Cerro Largo",
    "Colonia",
    "Durazno",
    "Flores",
    "Florida",
    "Lavalleja",
    "Maldonado",
    "Montevideo",
    "Paysandú",
    "Río Negro",
    "Rivera",
    "Rocha",
    "Salto",
    "San José",
    "Soriano",
    "Tacuarembó",
    "Treinta y Tres",
)

MAX_BRANCH_CODE = 9999
# Certificates and CAE ranges are flagged this many days before they expire.
EXPIRY_WARNING_DAYS = 30
# Logo limits: bytes of the upload and pixels per side (the PDF prints it at most 1/5 of the page).
LOGO_MAX_BYTES = 512 * 1024
LOGO_MAX_SIDE = 4000
LOGO_MIN_SIDE = 16
CERTIFICATE_MAX_BYTES = 64 * 1024
CAE_MAX_BYTES = 64 * 1024
# DGI authorises at most 999,999 contingency documents per book (a request of type F).
MAX_BOOK_NUMBERS = 999_999
# DGI authorises a CAE, and so a contingency book (a CAE of type F), for 24 calendar months from its date at most
# (CFE-URUGUAY.md section 6, [CAE05] A-C10): a later expiry is a typo.
CAE_VALIDITY_MONTHS = 24


def latest_expiry(authorised: date) -> date:
    """The last day an authorisation of `authorised` may run to: 24 months later (29 February: the 28th)."""
    years = CAE_VALIDITY_MONTHS // 12
    try:
        return authorised.replace(year=authorised.year + years)
    except ValueError:  # 29 February, two years before a common year
        return authorised.replace(year=authorised.year + years, day=28)
