"""Productos: the company's products and services (code, name, unit, price with or without IVA, IVA indicator,
currency), picked by typing in the issuing form, and a price list imported from CSV all at once or not at all."""
