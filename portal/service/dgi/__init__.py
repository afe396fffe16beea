"""DGI lookups for the CFE service: the taxpayer registry (RUT, entity name, CVA, entity data).

Pure library, no Flask: the HTTP endpoints live in `routes.py`. Typical use from an endpoint:

    registry = make_registry(app.config, certificate=lambda: (key_pem, cert_pem))
    entity = registry.consulta_rut("219999830019")      # raises a DgiError subclass on failure
    return entity.to_json()

Backends: `sandbox` (default; seeded data, see sandbox_data) and `soap` (DGI's WS_PersonaGetActEmpresarial
with a WS-Security signed Body, see soap and wsse). tests/support/dgi_standin.py is a local DGI look-alike for
the tests.
"""

from .errors import DgiError, DgiInvalidInput, DgiNotOffered, DgiTimeout, DgiUnavailable, TaxpayerNotFound
from .factory import make_registry
from .models import Activity, Address, Contact, CvaStatus, Entity, EntityName
from .registry import CachedRegistry, TaxpayerRegistry

__all__ = [
    "Activity",
    "Address",
    "CachedRegistry",
    "Contact",
    "CvaStatus",
    "DgiError",
    "DgiInvalidInput",
    "DgiNotOffered",
    "DgiTimeout",
    "DgiUnavailable",
    "Entity",
    "EntityName",
    "TaxpayerNotFound",
    "TaxpayerRegistry",
    "make_registry",
]
