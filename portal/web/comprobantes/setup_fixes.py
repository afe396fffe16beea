"""Where a receipt refused for the company's setup is fixed: the service's 409 codes for what an admin sets up
in Empresa (a signing certificate, CAE numbers, the fiscal address) and the page that sets it up, so the
refusal on the issuing form and on smart issuance's confirmation (inteligente) leads there instead of ending
the way."""

from __future__ import annotations

from dataclasses import dataclass

from flask import url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user

from portal.domain import roles

_PAGES = {
    "sin_certificado_vigente": ("empresa.certificates", _l("Cargar un certificado")),
    "sin_cae": ("empresa.cae", _l("Cargar un CAE")),
    "cae_agotado": ("empresa.cae", _l("Cargar un CAE")),
    "cae_vencido": ("empresa.cae", _l("Cargar un CAE")),
    "emisor_sin_domicilio": ("empresa.branches", _l("Agregar la sucursal")),
}


@dataclass(frozen=True)
class SetupFix:
    """The way forward under a refusal: a link for an admin (`url`), a sentence for everyone else."""

    label: str
    url: str | None = None


def fix_for(code: str | None) -> SetupFix | None:
    """The fix of a setup refusal, or None when `code` is not one (the refusal says all there is)."""
    page = _PAGES.get(code or "")
    if page is None:
        return None
    if current_user.role in roles.ADMINS:
        endpoint, label = page
        return SetupFix(str(label), url_for(endpoint))
    return SetupFix(_("Un administrador de la empresa lo resuelve en Empresa: avisale."))
