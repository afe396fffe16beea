"""The areas in the navigation, and which roles see each. The server checks roles on every route
too (role_required); hiding a link is a courtesy, not the control."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l
from flask_login import current_user

ALL = ("admin", "usuario", "soporte")
# A role as people read it, in the page's language (the role itself stays the service's word).
ROLE_LABELS = {"admin": _l("administrador"), "usuario": _l("usuario"), "soporte": _l("soporte")}


def role_label(role: str) -> str:
    return str(ROLE_LABELS.get(role, role))


@dataclass(frozen=True)
class NavItem:
    endpoint: str
    label: object
    roles: tuple[str, ...]


NAV = (
    NavItem("comprobantes.index", _l("Comprobantes"), ALL),
    NavItem("recibidos.index", _l("Recibidos"), ALL),
    NavItem("apikeys.index", _l("Claves de API"), ("admin", "soporte")),
    NavItem("dgi.index", _l("DGI"), ALL),
    NavItem("inteligente.index", _l("Emisión inteligente"), ALL),
    NavItem("informes.index", _l("Informes"), ALL),
    NavItem("clientes.index", _l("Clientes"), ALL),
    NavItem("productos.index", _l("Productos"), ALL),
    NavItem("envios.index", _l("Envíos a DGI"), ("admin", "soporte")),
    NavItem("empresa.settings", _l("Empresa"), ("admin",)),
    NavItem("webhooks.index", _l("Webhooks"), ("admin",)),
)


def visible_nav() -> list[NavItem]:
    if not current_user.is_authenticated:
        return []
    return [item for item in NAV if current_user.role in item.roles]
