"""The areas in the navigation, and which roles see each. The server checks roles on every route
too (role_required); hiding a link is a courtesy, not the control."""

from __future__ import annotations

from dataclasses import dataclass

from flask_babel import lazy_gettext as _l
from flask_login import current_user

from portal.domain import roles

# A role as people read it, in the page's language (the role itself stays the service's word).
ROLE_LABELS = {roles.ADMIN: _l("administrador"), roles.USUARIO: _l("usuario"), roles.SOPORTE: _l("soporte")}


def role_label(role: str) -> str:
    return str(ROLE_LABELS.get(role, role))


@dataclass(frozen=True)
class NavItem:
    endpoint: str
    label: object
    roles: tuple[str, ...]
    more: bool = False  # under "Más": the company's settings and support pages, visited less than the daily work


NAV = (
    NavItem("comprobantes.index", _l("Comprobantes"), roles.ALL),
    NavItem("recibidos.index", _l("Recibidos"), roles.ALL),
    NavItem("apikeys.index", _l("Claves de API"), roles.READERS, more=True),
    NavItem("dgi.index", _l("DGI"), roles.ALL, more=True),
    NavItem("cotizaciones.index", _l("Cotizaciones"), roles.ALL, more=True),
    NavItem("inteligente.index", _l("Emisión inteligente"), roles.ALL),
    NavItem("informes.index", _l("Informes"), roles.ALL),
    NavItem("clientes.index", _l("Clientes"), roles.ALL),
    NavItem("productos.index", _l("Productos"), roles.ALL),
    NavItem("envios.index", _l("Envíos a DGI"), roles.READERS, more=True),
    NavItem("empresa.settings", _l("Empresa"), roles.ADMINS, more=True),
    NavItem("empresa.audit", _l("Auditoría"), roles.READERS, more=True),  # support's way in; admins' is a tab
    NavItem("webhooks.index", _l("Webhooks"), roles.ADMINS, more=True),
)


def visible_nav() -> list[NavItem]:
    """The items the user's role may open, one per area (the first): an admin reaches the audit through Empresa's
    tabs, and an area's link is marked as the current page on all of its pages."""
    if not current_user.is_authenticated:
        return []
    items: dict[str, NavItem] = {}
    for item in NAV:
        if current_user.role in item.roles:
            items.setdefault(item.endpoint.split(".")[0], item)
    return list(items.values())
