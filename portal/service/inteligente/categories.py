"""Item categories and the IVA rate each implies, for smart issuance.

Uruguay's IVA (Título 10, Texto Ordenado 1996): tasa mínima 10% covers, among others, the basic food
basket, medicines, hotel lodging and passenger transport; exempt are, among others, books and newspapers,
fresh milk, fruit and vegetables, education and medical-care services of public or non-profit providers.
This table is a convenience for clerks, not legal advice: an explicit `tasa` on a line always wins, and
the response says which rate was inferred and why.
"""

from __future__ import annotations

# category -> (DGI IndFact, label)
CATEGORY_RATES: dict[str, tuple[int, str]] = {
    "general": (3, "tasa básica 22%"),
    "servicios": (3, "tasa básica 22%"),
    "bebidas": (3, "tasa básica 22%"),
    "alimentos_basicos": (2, "tasa mínima 10% (canasta básica)"),
    "medicamentos": (2, "tasa mínima 10% (medicamentos)"),
    "hoteleria": (2, "tasa mínima 10% (alojamiento)"),
    "transporte_pasajeros": (2, "tasa mínima 10% (transporte de pasajeros)"),
    "libros": (1, "exento (libros y diarios)"),
    "leche": (1, "exento (leche)"),
    "frutas_verduras": (1, "exento (frutas y verduras frescas)"),
    "educacion": (1, "exento (educación)"),
}

RATE_TO_IND_FACT = {"basica": 3, "minima": 2, "exenta": 1, "no_facturable": 6}
