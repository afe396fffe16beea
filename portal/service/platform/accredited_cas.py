"""Whether a certificate that signs what another company sends (an envelope and its CFEs, an answer to one of
ours, a notice that DGI rejected a CFE) was issued by a certification authority accredited in Uruguay, as DGI
requires of every CFE signer (CFE-URUGUAY.md section 4: Correo Uruguayo CA, Abitab "ID digital").

Without this, anyone could make a self-signed certificate whose subject says SERIALNUMBER=RUC<any supplier's
RUT> and put invented purchases in a company's books, or mark its real ones rejected by DGI.

The accredited CAs are a PEM bundle named by `CFE_ACCREDITED_CAS`: the CAs that issue the signers' certificates
(an envelope carries the signer's certificate alone, so the issuing CAs, intermediates included, belong in the
bundle). Each certificate in it is a trust anchor: a signer's certificate is accepted when one of them issued it
and was valid then. Left empty there is nothing to check against, and certificates are taken on their RUT alone,
as the development demo companies' self-signed ones must be; the service says so in its log at start when it
talks to the real DGI (`CFE_DGI_RECEPTION=soap`), where the setting belongs.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from flask import Flask, current_app

log = logging.getLogger(__name__)

_EXTENSION = "accredited_cas"


def init_app(app: Flask) -> None:
    """Read the bundle once at start: a path that names no readable PEM certificates stops the service there,
    not every received envelope later, one by one, inside the worker."""
    path = app.config.get("ACCREDITED_CAS_PATH")
    if not path:
        app.extensions[_EXTENSION] = None
        if app.config.get("DGI_RECEPTION") == "soap":
            log.warning(
                "CFE_ACCREDITED_CAS is not set: suppliers' and customers' certificates are taken on their RUT alone, "
                "not checked against Uruguay's accredited certification authorities"
            )
        return
    try:
        authorities = x509.load_pem_x509_certificates(Path(path).read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"CFE_ACCREDITED_CAS: {path} no es un archivo PEM de certificados legible ({exc}).") from exc
    app.extensions[_EXTENSION] = tuple(ca for ca in authorities if _is_ca(ca))
    if not app.extensions[_EXTENSION]:
        raise ValueError(f"CFE_ACCREDITED_CAS: {path} no tiene ningún certificado de autoridad (CA).")


def checking() -> bool:
    """Whether a bundle of accredited CAs is configured (otherwise issued_by_accredited_ca has nothing to say)."""
    return current_app.extensions.get(_EXTENSION) is not None


def issued_by_accredited_ca(certificate: x509.Certificate, at: datetime) -> bool:
    """True when one of the accredited CAs issued `certificate` (its signature checks with the CA's key) and was
    valid at `at`; also True when no bundle is configured (see the module's note)."""
    authorities: tuple[x509.Certificate, ...] | None = current_app.extensions.get(_EXTENSION)
    if authorities is None:
        return True
    for authority in authorities:
        if authority.subject != certificate.issuer:
            continue
        if not authority.not_valid_before_utc <= at <= authority.not_valid_after_utc:
            continue
        try:
            certificate.verify_directly_issued_by(authority)
        except (ValueError, TypeError, InvalidSignature):
            continue
        return True
    return False


def _is_ca(certificate: x509.Certificate) -> bool:
    try:
        return bool(certificate.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False
