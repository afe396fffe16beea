"""Signing certificates uploaded by admins: the same checks and storage as `import-cert`, with clear 422s.

The private key is stored encrypted (keystore); the password is used once to open the file and kept
nowhere. The audit records the certificate's subject, serial and expiry, never key material.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from cryptography.exceptions import UnsupportedAlgorithm
from pydantic_core import PydanticCustomError
from sqlalchemy import select

from portal.domain.empresa import CERTIFICATE_MAX_BYTES, EXPIRY_WARNING_DAYS
from portal.domain.uruguay_time import day_in_uruguay
from portal.service.cfe.xmlchars import xml_one_line
from portal.service.empresa import audit
from portal.service.empresa.schemas import CertificateList, CertificateOut
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.certificates import UnusableSigningKey, certificate_info, load_untrusted_pkcs12
from portal.service.platform.errors import ApiError, Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import Text, _
from portal.service.platform.keystore import store_certificate
from portal.service.platform.models import Certificate, Company

NAME_LENGTH = 120  # Certificate.name
SUBJECT_LENGTH = 400  # Certificate.subject and .issuer
PASSWORD_LENGTH = 200


def present(cert: Certificate, now: datetime | None = None) -> CertificateOut:
    now = now or datetime.now(UTC)
    # Days by Uruguay's calendar, as the compliance watch counts them and as its date is shown: a certificate that
    # expires on the 10th at noon is 12 days away on the 28th, not 11 because it is 17:00 now.
    days_left = (day_in_uruguay(cert.not_after) - day_in_uruguay(now)).days
    state: Literal["vigente", "por_vencer", "vencido", "no_vigente", "dado_de_baja"]
    if cert.retired_at is not None:
        state = "dado_de_baja"
    elif now > cert.not_after:
        state = "vencido"
    elif now < cert.not_before:
        state = "no_vigente"
    else:
        state = "por_vencer" if days_left < EXPIRY_WARNING_DAYS else "vigente"
    return CertificateOut(
        id=cert.id,
        nombre=cert.name,
        sujeto=cert.subject,
        emisor=cert.issuer,
        serie=cert.serial,
        rut=certificate_info(cert.cert_pem.encode()).rut,
        desde=cert.not_before,
        hasta=cert.not_after,
        diasRestantes=days_left,
        estado=state,
    )


def company_certificates(company_id: int) -> list[Certificate]:
    """The company's certificates, the one that expires last first."""
    return list(
        db.session().scalars(
            select(Certificate)
            .where(Certificate.company_id == company_id)
            .order_by(Certificate.not_after.desc(), Certificate.id.desc())
        )
    )


def list_certificates(principal: Principal) -> CertificateList:
    return CertificateList(items=[present(c) for c in company_certificates(principal.company_id)])


def _invalid(field: str, code: str, message: str) -> ValidationFailed:
    return ValidationFailed([FieldError(field, code, message)], message=message)


def _one_line_name(name: str) -> str:
    """The name as it is shown in the list and the audit: one line, with none of the characters the
    receipts' texts refuse (a NUL PostgreSQL would not store, a right-to-left override that reverses it)."""
    try:
        return str(xml_one_line(name))
    except PydanticCustomError as exc:
        said = (exc.context or {}).get("message")  # the catalogue's Text (pydantic_errors.refuse)
        raise _invalid("nombre", exc.type, said if isinstance(said, Text) else exc.message()) from None


def upload(principal: Principal, data: bytes | None, password: str, name: str | None) -> CertificateOut:
    """Open the .p12 with its password, check it is this company's and in force, and store it."""
    if not data:
        raise _invalid("archivo", "requerido", _("Adjuntá el archivo .p12 del certificado."))
    if len(data) > CERTIFICATE_MAX_BYTES:
        raise ApiError(
            _("El certificado supera los {kb} KB.", kb=CERTIFICATE_MAX_BYTES // 1024),
            code="archivo_muy_grande",
            status=413,
        )
    if len(password) > PASSWORD_LENGTH:
        raise _invalid("password", "longitud", _("La contraseña es demasiado larga."))
    if name is not None:
        name = _one_line_name(name)
        if not 1 <= len(name.strip()) <= NAME_LENGTH:
            raise _invalid("nombre", "longitud", _("El nombre va de 1 a {most} caracteres.", most=NAME_LENGTH))
    try:
        key_pem, cert_pem, info = load_untrusted_pkcs12(data, password.encode() or None)
    except UnusableSigningKey as exc:
        raise _invalid("archivo", exc.code, exc.message) from None
    except (ValueError, TypeError, UnsupportedAlgorithm):
        # cryptography says the same for a wrong password and for a file that is not PKCS#12.
        raise _invalid(
            "password",
            "no_abre",
            _("No se pudo abrir el certificado: revisá la contraseña y que el archivo sea un .p12 o .pfx."),
        ) from None
    with db.write_transaction() as session:
        company = session.get_one(Company, principal.company_id)
        if info.rut != company.rut:
            message = (
                _("El certificado es del RUT {rut}, no del de la empresa ({own}).", rut=info.rut, own=company.rut)
                if info.rut
                else _("El certificado no indica un RUT, no del de la empresa ({own}).", own=company.rut)
            )
            raise _invalid("archivo", "otro_rut", message)
        now = datetime.now(UTC)
        if info.not_after < now:
            raise _invalid(
                "archivo",
                "vencido",
                _("El certificado venció el {day}.", day=f"{day_in_uruguay(info.not_after):%d/%m/%Y}"),
            )
        if len(info.subject) > SUBJECT_LENGTH or len(info.issuer) > SUBJECT_LENGTH:
            raise _invalid("archivo", "demasiado_largo", _("El sujeto o el emisor del certificado es demasiado largo."))
        if session.scalar(
            select(Certificate.id).where(Certificate.company_id == company.id, Certificate.serial == str(info.serial))
        ):
            raise Conflict(_("Ese certificado ya está cargado."), code="certificado_duplicado")
        cert = store_certificate(
            session, company, (name or "").strip() or info.subject[:NAME_LENGTH], key_pem, cert_pem
        )
        session.flush()
        result = present(cert, now)
        audit.record(
            session,
            principal,
            "certificado_cargado",
            {"sujeto": info.subject, "serie": str(info.serial), "hasta": info.not_after.isoformat()},
            target=cert.name,
        )
    return result


def retire(principal: Principal, certificate_id: int) -> CertificateOut:
    """Retire a certificate: it never signs again (audited). Not the last one that can sign: the company would
    stop issuing (upload its successor first). Retiring one already retired changes nothing."""
    now = datetime.now(UTC)
    with db.write_transaction() as session:
        # Locked, all of them: two admins retiring the two certificates in force at once would otherwise each see
        # the other's still signing, and leave the company with none (PostgreSQL; SQLite writes one at a time).
        mine = list(
            session.scalars(select(Certificate).where(Certificate.company_id == principal.company_id).with_for_update())
        )
        cert = next((c for c in mine if c.id == certificate_id), None)
        if cert is None:
            raise NotFound(_("No existe ese certificado en la empresa."), code="certificado_inexistente")
        if cert.retired_at is None:
            signing = [c for c in mine if c.retired_at is None and c.not_before <= now <= c.not_after]
            if signing == [cert]:
                only = _(
                    "Es el único certificado vigente de la empresa: cargá el que lo reemplaza antes de darlo de baja."
                )
                raise Conflict(only, code="unico_certificado_vigente")
            cert.retired_at = now
            audit.record(
                session,
                principal,
                "certificado_dado_de_baja",
                {"activo": [True, False]},
                target=f"{cert.name} ({cert.serial})",
            )
        result = present(cert, now)
    return result
