"""The DGI registry a company's own work asks (smart issuance, the receipts form's receiver lookup).

It signs with the certificate that signs the company's receipts (the valid one expiring last; 409
sin_certificado_vigente if there is none) and shares the DGI endpoints' cache. The company is always the
caller's own: these lookups never take a company or certificate from the request.
"""

from __future__ import annotations

import contextlib
from collections import ChainMap
from collections.abc import Iterator

from flask import current_app

from portal.service.dgi.factory import make_registry
from portal.service.dgi.registry import TaxpayerRegistry
from portal.service.platform import db
from portal.service.platform.keystore import private_key_pem, signing_certificate


@contextlib.contextmanager
def registry_for(company_id: int) -> Iterator[TaxpayerRegistry]:
    """A DGI registry that signs with the company's certificate and shares the DGI endpoints' cache."""
    cert = signing_certificate(db.session(), company_id)
    config = ChainMap({"DGI_CACHE": current_app.extensions["dgi_cache"]}, current_app.config)
    registry = make_registry(config, certificate=lambda: (private_key_pem(cert), cert.cert_pem.encode()))
    try:
        yield registry
    finally:
        registry.close()
