"""Cotizaciones: the day's exchange rates (USD, EUR, ARS, BRL and the UI) from Banco Central del Uruguay's public
web service, kept by day, for issuing forms and smart issuance (TpoCambio) and for the UI of the 5,000 UI rule."""
