"""Which DGI reception the service talks to (`DGI_RECEPTION`): the embedded simulator or DGI's ws_efactura.

Apart from adapter.py because both implementations build on its base class and types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from portal.service.envios.adapter import DgiReception
from portal.service.envios.simulator import SimulatedDgi


def make_reception(config: Mapping[str, Any]) -> DgiReception:
    """The adapter `DGI_RECEPTION` names ("simulator" by default, or "soap")."""
    kind = config.get("DGI_RECEPTION", "simulator")
    if kind == "simulator":
        return SimulatedDgi(config)
    if kind == "soap":
        # Lazy on purpose: zeep and DGI's WSDL load only where the real ws_efactura is used.
        from portal.service.envios.soap_reception import SoapReception

        return SoapReception(config)
    raise ValueError(f"CFE_DGI_RECEPTION no reconocida: {kind!r} (simulator o soap)")
