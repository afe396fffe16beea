"""The one role vocabulary of the product: what a member may do within one company. The service's `Role`
enum has these values; the portal's decorators (portal.web.auth.session) are named after these groups."""

from __future__ import annotations

ADMIN = "admin"  # everything, API keys, settings and rate limits included
USUARIO = "usuario"  # issues and looks up receipts
SOPORTE = "soporte"  # reads everything of the company, changes nothing

ALL: tuple[str, ...] = (ADMIN, USUARIO, SOPORTE)  # any member of the company
WRITERS: tuple[str, ...] = (ADMIN, USUARIO)  # who issues receipts
READERS: tuple[str, ...] = (ADMIN, SOPORTE)  # who follows the company's records (DGI envíos, audit, API keys)
ADMINS: tuple[str, ...] = (ADMIN,)
