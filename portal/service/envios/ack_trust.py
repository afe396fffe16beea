"""Whether DGI's acknowledgements (ACKSobre, ACKCFE, ACKRepDiario) were signed by DGI: each one's enveloped
signature is verified against the trusted DGI certificate, and the outcome is recorded with the envelope or
report, where support sees it. An acknowledgement that does not verify is still read (a certificate DGI renewed
must not stop every envío), but it is flagged and logged, never silently trusted.

The trusted certificate is `CFE_DGI_TRUSTED_CERT` (a PEM file, DGI's published certificate in production).
Left empty with the embedded simulator (`CFE_DGI_RECEPTION=simulator`, development and tests), the simulator's
own certificate is trusted: it signs its acknowledgements with it. Left empty with `soap`, nothing can be
verified and every acknowledgement is flagged `sin_certificado`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Final

from cryptography import x509
from flask import Flask, current_app
from sqlalchemy.orm import Session

from portal.service.cfe.signing import verify_signature
from portal.service.envios.models import AckSignature
from portal.service.envios.simulator import SimulatedDgi

log = logging.getLogger(__name__)

VERIFIED: Final = "verificada"  # signed by the trusted DGI certificate
INVALID: Final = "invalida"  # no signature, a broken one, or another certificate's
NO_CERTIFICATE: Final = "sin_certificado"  # no trusted certificate configured: nothing to verify against
SIGNATURE_STATES = (VERIFIED, INVALID, NO_CERTIFICATE)


def check_setting(app: Flask) -> None:
    """Stop the service at start when CFE_DGI_TRUSTED_CERT names no readable PEM certificate: otherwise every
    acknowledgement would fail later, one by one, inside the worker."""
    path = app.config.get("DGI_TRUSTED_CERT_PATH")
    if not path:
        return
    try:
        x509.load_pem_x509_certificate(Path(path).read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"CFE_DGI_TRUSTED_CERT: {path} no es un certificado PEM legible ({exc}).") from exc


def trusted_certificate(session: Session) -> bytes | None:
    """The PEM of DGI's certificate the acknowledgements must verify against, or None."""
    path = current_app.config.get("DGI_TRUSTED_CERT_PATH")
    if path:
        cached = current_app.extensions.get("dgi_trusted_cert")
        if cached is None or cached[0] != path:
            cached = (path, Path(path).read_bytes())
            current_app.extensions["dgi_trusted_cert"] = cached
        return cached[1]
    if current_app.config["DGI_RECEPTION"] == "simulator":
        return SimulatedDgi(current_app.config).signing_key(session).cert_pem
    return None


def signature_state(session: Session, document: bytes | None, what: str) -> AckSignature | None:
    """VERIFIED, INVALID or NO_CERTIFICATE for one acknowledgement (None when there is none); `what` names it in
    the log line an unverified one leaves."""
    if not document:
        return None
    cert = trusted_certificate(session)
    state: AckSignature
    if cert is None:
        state = NO_CERTIFICATE
    else:
        try:
            state = VERIFIED if verify_signature(document, cert) else INVALID
        except Exception:  # an unreadable signature or document is one that does not verify
            state = INVALID
    if state != VERIFIED:
        log.warning("DGI acknowledgement %s not verified: %s", what, state)
    return state
