"""Clientes: the company's customers, kept from every receipt's receiver and editable (address, e-mail for
receipts, default currency and payment terms), for the issuing form and smart issuance."""
