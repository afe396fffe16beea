"""Item categories and the IVA rate each implies, for smart issuance.

Uruguay's IVA (Título 10, Texto Ordenado 1996): tasa mínima 10% covers, among others, the basic food
basket, medicines, hotel lodging and passenger transport; exempt are, among others, books and newspapers,
fresh milk, fruit and vegetables, education and medical-care services of public or non-profit providers.
This table is a convenience for clerks, not legal advice: an explicit `tasa` on a line always wins, and
the response says which rate was inferred and why.

Both rooms read it: the service infers each line's rate from it, the portal offers its categories and rates.
"""

from __future__ import annotations

from portal.domain.cfe_types import (
    IND_FACT_BASIC_RATE,
    IND_FACT_EXEMPT,
    IND_FACT_MINIMUM_RATE,
    IND_FACT_NOT_BILLABLE,
)

_BASIC, _MINIMUM, _EXEMPT = IND_FACT_BASIC_RATE, IND_FACT_MINIMUM_RATE, IND_FACT_EXEMPT

# category -> (DGI IndFact, label)
CATEGORY_RATES: dict[str, tuple[int, str]] = {
    "general": (_BASIC, "tasa básica 22%"),
    "servicios": (_BASIC, "tasa básica 22%"),
    "bebidas": (_BASIC, "tasa básica 22%"),
    "alimentos_basicos": (_MINIMUM, "tasa mínima 10% (canasta básica)"),
    "medicamentos": (_MINIMUM, "tasa mínima 10% (medicamentos)"),
    "hoteleria": (_MINIMUM, "tasa mínima 10% (alojamiento)"),
    "transporte_pasajeros": (_MINIMUM, "tasa mínima 10% (transporte de pasajeros)"),
    "libros": (_EXEMPT, "exento (libros y diarios)"),
    "leche": (_EXEMPT, "exento (leche)"),
    "frutas_verduras": (_EXEMPT, "exento (frutas y verduras frescas)"),
    "educacion": (_EXEMPT, "exento (educación)"),
}

# The rates a smart-issuance line may name instead of a category.
RATE_TO_IND_FACT = {"basica": _BASIC, "minima": _MINIMUM, "exenta": _EXEMPT, "no_facturable": IND_FACT_NOT_BILLABLE}
