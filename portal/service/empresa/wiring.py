"""What empresa registers with comprobante (comprobante.hooks): the company's settings that issuing and
printing read. Run by the app factory (each area's `wiring.init_app`)."""

from __future__ import annotations

from flask import Flask

from portal.service.comprobante import hooks
from portal.service.empresa.settings import company_logo, default_paper, issuer_fields


def init_app(app: Flask) -> None:
    hooks.provide_company_settings(
        hooks.CompanySettings(issuer_fields=issuer_fields, logo=company_logo, paper=default_paper)
    )
