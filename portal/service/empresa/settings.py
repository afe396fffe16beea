"""The company's fiscal settings and logo: reading, changing (audited), and what issuing and printing read.

`issuer_fields`, `company_logo` and `default_paper` are what the rest of the service calls: the issuer's
printed and regime data for a receipt, the logo's bytes for the PDF, and the company's paper format.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any, Literal

from PIL import Image, UnidentifiedImageError
from sqlalchemy.orm import Session

from portal.domain.empresa import LOGO_MAX_BYTES, LOGO_MAX_SIDE, LOGO_MIN_SIDE
from portal.service.empresa import audit, branches
from portal.service.empresa.models import Branch, CompanySettings
from portal.service.empresa.schemas import LogoOut, SettingsIn, SettingsOut
from portal.service.platform import db, readcache
from portal.service.platform.auth import Principal
from portal.service.platform.errors import ApiError, FieldError, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.models import Company

_LOGO_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg"}
# The media types _LOGO_TYPES stores, as LogoOut types them.
_STORED_TYPES: dict[str | None, Literal["image/png", "image/jpeg"]] = {
    "image/png": "image/png",
    "image/jpeg": "image/jpeg",
}

# Issuing keeps the issuer and the print settings per process for a moment (comprobante.issuer): a commit of
# the settings or the branches in this process empties those caches at once.
readcache.watch(CompanySettings, Branch)


def _settings(session: Session, company_id: int) -> CompanySettings:
    """The company's row, or an unsaved one with the defaults (general regime, IVA al día, A4)."""
    row = session.get(CompanySettings, company_id)
    return row or CompanySettings(company_id=company_id, regimen="general", iva_al_dia=True, formato_papel="a4")


def _values(row: CompanySettings, company: Company) -> dict[str, Any]:
    return {
        "regimen": row.regimen,
        "normaExoneracion": row.norma_exoneracion,
        "resolucion": row.resolucion,
        "fechaEmisor": row.fecha_emisor,
        "ivaAlDia": row.iva_al_dia,
        "urlVerificacion": company.verification_url,
        "formatoPapel": row.formato_papel,
    }


def _logo_out(row: CompanySettings) -> LogoOut | None:
    """The logo's summary; put_logo stores its type and pixels with it, and delete_logo empties all four."""
    if not row.logo:
        return None
    tipo, width, height = row.logo_tipo, row.logo_ancho, row.logo_alto
    assert width is not None and height is not None
    return LogoOut(tipo=_STORED_TYPES[tipo], bytes=len(row.logo), ancho=width, alto=height)


def _present(row: CompanySettings, company: Company) -> SettingsOut:
    return SettingsOut(
        rut=company.rut,
        razonSocial=company.razon_social,
        logo=_logo_out(row),
        actualizadoEn=row.updated_at,
        actualizadoPor=row.updated_by,
        **_values(row, company),
    )


def read(principal: Principal) -> SettingsOut:
    session = db.session()
    return _present(_settings(session, principal.company_id), session.get_one(Company, principal.company_id))


def update(principal: Principal, body: SettingsIn) -> SettingsOut:
    """Replace the settings; only an actual change is recorded."""
    problems = body.problems()
    if problems:
        raise ValidationFailed(
            [FieldError(field, "inconsistente", message) for field, message in problems], message=problems[0][1]
        )
    with db.write_transaction() as session:
        company = session.get_one(Company, principal.company_id)
        row = _settings(session, company.id)
        before = _values(row, company)
        row.regimen, row.norma_exoneracion = body.regimen, body.normaExoneracion
        row.resolucion, row.fecha_emisor, row.iva_al_dia = body.resolucion, body.fechaEmisor, body.ivaAlDia
        row.formato_papel = body.formatoPapel
        company.verification_url = body.urlVerificacion
        changes = audit.diff(before, _values(row, company))
        if changes:
            _touch(session, row, principal)
            audit.record(session, principal, "configuracion", changes)
        result = _present(row, company)
    return result


def _touch(session: Session, row: CompanySettings, principal: Principal) -> None:
    row.updated_at, row.updated_by = datetime.now(UTC), principal.actor
    session.add(row)


def _decode_logo(data: bytes) -> tuple[str, int, int]:
    """(mimetype, width, height) of a PNG or JPEG that really decodes; 413/422 otherwise."""
    if len(data) > LOGO_MAX_BYTES:
        raise ApiError(
            _("El logo supera los {kb} KB.", kb=LOGO_MAX_BYTES // 1024), code="archivo_muy_grande", status=413
        )

    def invalid(message: str) -> ValidationFailed:
        return ValidationFailed([FieldError("logo", "imagen_invalida", message)], message=message)

    try:
        with Image.open(io.BytesIO(data)) as image:
            kind, (width, height) = _LOGO_TYPES.get(image.format or ""), image.size
            if kind is None:
                raise invalid(_("El logo tiene que ser una imagen PNG o JPEG."))
            if max(width, height) > LOGO_MAX_SIDE or min(width, height) < LOGO_MIN_SIDE:
                raise invalid(
                    _(
                        "El logo tiene que medir entre {least} y {most} píxeles por lado (este mide {width}×{height}).",
                        least=LOGO_MIN_SIDE,
                        most=LOGO_MAX_SIDE,
                        width=width,
                        height=height,
                    )
                )
            image.load()  # the whole image, so a truncated or corrupt file is refused now, not when printing
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        raise invalid(_("El archivo no es una imagen PNG o JPEG válida.")) from None
    return kind, width, height


def put_logo(principal: Principal, data: bytes) -> SettingsOut:
    kind, width, height = _decode_logo(data)
    with db.write_transaction() as session:
        company = session.get_one(Company, principal.company_id)
        row = _settings(session, company.id)
        before = _logo_summary(row)
        row.logo, row.logo_tipo, row.logo_ancho, row.logo_alto = data, kind, width, height
        _touch(session, row, principal)
        audit.record(session, principal, "logo_cargado", audit.diff(before, _logo_summary(row)))
        result = _present(row, company)
    return result


def delete_logo(principal: Principal) -> SettingsOut:
    """Remove the logo; removing none changes nothing."""
    with db.write_transaction() as session:
        company = session.get_one(Company, principal.company_id)
        row = _settings(session, company.id)
        if row.logo:
            before = _logo_summary(row)
            row.logo = row.logo_tipo = row.logo_ancho = row.logo_alto = None
            _touch(session, row, principal)
            audit.record(session, principal, "logo_quitado", audit.diff(before, _logo_summary(row)))
        result = _present(row, company)
    return result


def _logo_summary(row: CompanySettings) -> dict[str, Any]:
    """The audit's view of a logo: type, size and pixels, never the image itself."""
    if not row.logo:
        return {"logo": None}
    return {"logo": f"{row.logo_tipo}, {len(row.logo)} bytes, {row.logo_ancho}×{row.logo_alto} px"}


def logo_image(principal: Principal) -> tuple[bytes, str] | None:
    row = db.session().get(CompanySettings, principal.company_id)
    return (row.logo, row.logo_tipo) if row and row.logo and row.logo_tipo else None


# What the rest of the service reads -------------------------------------------------------------------------


def company_logo(session: Session, company_id: int) -> bytes | None:
    """The logo's bytes (PNG or JPEG, already decoded once on upload), or None."""
    row = session.get(CompanySettings, company_id)
    return row.logo if row and row.logo else None


def default_paper(session: Session, company_id: int) -> str:
    """The company's default paper format: "a4", "80mm" or "57mm"."""
    row = session.get(CompanySettings, company_id)
    return row.formato_papel if row else "a4"


def issuer_fields(session: Session, company: Company, branch_code: int | None = None) -> dict[str, Any]:
    """The Issuer's branch, regime and printed-legend fields for a receipt issued from `branch_code` (the
    default branch when None). An unknown code is a 422 on `cdgDGISucur`."""
    row = _settings(session, company.id)
    branch = branches.for_receipt(session, company, branch_code)
    return {
        **branch,
        "regimen": row.regimen,
        "norma_exoneracion": row.norma_exoneracion,
        "resolucion": f"Res. {row.resolucion}" if row.resolucion else None,
        "fecha_emisor": row.fecha_emisor.isoformat() if row.fecha_emisor else None,
        "iva_al_dia": row.iva_al_dia,
        "url_verificacion": company.verification_url,
    }
