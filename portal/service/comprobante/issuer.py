"""Who signs a receipt: the issuer (the company, its settings, the branch) and the signing certificate, each
kept per process until the company changes (portal/service/platform/readcache.py) since issuing reads them for
every receipt."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.orm import Session, object_session

from portal.service.cfe import CfeInput, CfeSigner, Issuer
from portal.service.comprobante import hooks
from portal.service.platform import db, readcache
from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _
from portal.service.platform.keystore import signer_for, signing_certificate
from portal.service.platform.models import Certificate, Company

# The tables behind what this module keeps: a commit of one of them in this process empties the caches at once
# (empresa watches its settings and branches the same way).
readcache.watch(Company, Certificate)


def issuer_for(company: Company, cfe: CfeInput | None = None) -> Issuer:
    """The issuer of `cfe`: the company, the branch it names (`cdgDGISucur`, else the default branch; an
    unknown code is a 422) and the regime and legends of the company's settings (empresa area)."""
    branch_code = cfe.cdg_dgi_sucur if cfe is not None else None
    session = object_session(company)
    assert session is not None  # a company read from the database, never a new object
    return Issuer(
        rut=company.rut,
        razon_social=company.razon_social,
        nombre_comercial=company.nombre_comercial,
        giro=company.giro,
        telefono=company.telefono,
        correo=company.correo,
        **hooks.company_settings().issuer_fields(session, company, branch_code),
    )


def cached_issuer(company_id: int, cfe: CfeInput | None = None) -> Issuer:
    """`issuer_for` the company and the branch `cfe` names (the default branch without `cfe`, as the home's
    checklist asks), kept per process until the company changes (readcache: a change of the company, its
    settings or branches is used by the next receipt everywhere)."""
    return readcache.get_for_company(
        company_id,
        ("issuer", company_id, cfe.cdg_dgi_sucur if cfe is not None else None),
        lambda: issuer_for(db.session().get_one(Company, company_id), cfe),
    )


# What every CFE prints of where it was issued from (DGI's Emisor zone); a company's first day may have none yet.
_ADDRESS = ("domicilio_fiscal", "ciudad", "departamento")


def has_address(issuer: Issuer) -> bool:
    """Whether the issuer has the fiscal address every receipt prints (a new company may have no branch and
    none in its record)."""
    return all(getattr(issuer, name) for name in _ADDRESS)


def require_address(issuer: Issuer) -> None:
    """A 409 before any number is taken when the issuer has no fiscal address (a new company with no branch
    and none in its record): the signing step would refuse it as a misconfiguration, a 500."""
    if has_address(issuer):
        return
    raise ApiError(
        _(
            "La empresa no tiene domicilio fiscal y cada comprobante lo lleva impreso. Agregá la sucursal "
            "registrada en DGI (domicilio, ciudad y departamento) en Empresa › Sucursales."
        ),
        code="emisor_sin_domicilio",
        status=409,
    )


@dataclass(frozen=True)
class SigningKey:
    """The company's signing certificate as issuing needs it, plain values (kept across requests)."""

    certificate_id: int
    not_before: datetime
    not_after: datetime
    signer: CfeSigner


def signing_key(session: Session, company_id: int) -> SigningKey:
    """The certificate that signs for the company and its signer, kept per process until the company changes
    (readcache: an upload or a retirement is used by the next receipt everywhere); read again at once when it is
    no longer valid."""

    def load() -> SigningKey:
        cert = signing_certificate(session, company_id)  # 409 when none is valid (not kept)
        return SigningKey(cert.id, cert.not_before, cert.not_after, signer_for(cert))

    key = readcache.get_for_company(company_id, ("signing_key", company_id), load)
    if not key.not_before <= datetime.now(UTC) <= key.not_after:
        key = load()
    return key


@dataclass(frozen=True)
class PrintSettings:
    """What the company's settings print on a receipt besides the issuer: the default paper and the logo."""

    paper: str
    logo: bytes | None
    logo_sha256: str | None


def print_settings(company_id: int) -> PrintSettings:
    """The company's printed settings now, kept per process until the company changes like the issuer
    (readcache), for the snapshot each receipt takes when it is signed."""

    def load() -> PrintSettings:
        session, company = db.session(), hooks.company_settings()
        logo = company.logo(session, company_id)
        sha = hashlib.sha256(logo).hexdigest() if logo else None
        return PrintSettings(company.paper(session, company_id), logo, sha)

    return readcache.get_for_company(company_id, ("print_settings", company_id), load)
