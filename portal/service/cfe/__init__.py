"""The CFE engine: pure functions that turn a validated request into a signed DGI receipt and its PDF.

No Flask and no database here. The REST layer parses the body (`parse_cfe_input`), allocates the number
and CAE (`Numbering`), checks that referenced receipts exist, then calls `sign_validated_cfe` (after
`validate`, which returns the totals it computed) or `build_signed_cfe` (which validates), and
`render_signed_pdf`. Keys and XSDs are loaded once per process (`CfeSigner`, `schema.load_schema`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe import fonts
from portal.service.cfe.amounts import Totals, compute_totals
from portal.service.cfe.emission import Issuer, Numbering
from portal.service.cfe.errors import (
    CaeError,
    CfeError,
    CfeSchemaError,
    CfeValidationError,
    FieldError,
    XmlInputError,
)
from portal.service.cfe.fonts import DEFAULT_FONT_DIR
from portal.service.cfe.model import CfeInput, parse_cfe_input
from portal.service.cfe.pdf import render_pdf, render_preview, render_receipt
from portal.service.cfe.qr import DGI_QR_BASE_URL, qr_url_for
from portal.service.cfe.rules import cae_errors, numbering_errors, validate
from portal.service.cfe.rules_dgi import Emission
from portal.service.cfe.schema import load_schema, schema_available, validate_cfe
from portal.service.cfe.signing import CfeSigner, verify_signature
from portal.service.cfe.xml import build_cfe_xml

__all__ = [
    "CaeError",
    "CfeError",
    "CfeInput",
    "CfeSchemaError",
    "CfeSigner",
    "CfeValidationError",
    "Emission",
    "FieldError",
    "Issuer",
    "Numbering",
    "SignedCfe",
    "Totals",
    "XmlInputError",
    "build_signed_cfe",
    "compute_totals",
    "parse_cfe_input",
    "render_pdf",
    "render_preview_pdf",
    "render_signed_pdf",
    "sign_validated_cfe",
    "validate",
    "verify_signature",
    "warm_up",
]


def warm_up(pdf_font: str = "core", font_dir: Path = DEFAULT_FONT_DIR) -> None:
    """Choose the PDF font and do the once-per-process work now (compile CFEDGI.xsd, cut the font) instead
    of on the first request; call it at application start. Signing keys are loaded by creating the
    CfeSigner."""
    if schema_available():
        load_schema()
    fonts.configure(pdf_font, font_dir)
    fonts.font_set()


@dataclass(frozen=True)
class SignedCfe:
    """A signed receipt: the XML to store and send, and what its printed form needs."""

    xml: bytes
    totals: Totals
    digest: str
    security_code: str
    qr_url: str
    tmst_firma: datetime


def build_signed_cfe(
    cfe: CfeInput,
    issuer: Issuer,
    numbering: Numbering,
    signer: CfeSigner,
    ui_value: Decimal,
    now: datetime | None = None,
    *,
    qr_base_url: str = DGI_QR_BASE_URL,
    qr_date_format: str = "%Y%m%d",
) -> SignedCfe:
    """Validate (every rule), total, build, sign and schema-check one receipt.

    `ui_value` is the Unidad Indexada in pesos for the e-Ticket identification threshold (the value at
    the close of the year before the issue date); `now` is the signature time (TmstFirma), by default the
    current time in Montevideo. Raises CfeValidationError for the caller's mistakes (input rules, DGI's
    blocking rules for this issuer and CAE, or "caeData.*" for an unusable number or expired CAE),
    CfeSchemaError if the result breaks CFEDGI.xsd (a defect of ours), and ValueError for an issuer
    configuration DGI would reject. The XSD check runs whenever the XSD folder is present.
    """
    moment, emission = _signing(issuer, numbering, now)
    checked = validate(cfe, ui_value=ui_value, emission=emission)
    return _signed(cfe, checked.errors, checked.totals, issuer, numbering, signer, moment, qr_base_url, qr_date_format)


def sign_validated_cfe(
    cfe: CfeInput,
    totals: Totals,
    issuer: Issuer,
    numbering: Numbering,
    signer: CfeSigner,
    now: datetime | None = None,
    *,
    qr_base_url: str = DGI_QR_BASE_URL,
    qr_date_format: str = "%Y%m%d",
    paper: bool = False,
) -> SignedCfe:
    """`build_signed_cfe` for a receipt `validate` found clean before its number was taken, with the same
    ui_value and the issuer's regime on the signing day (issuing does this): `totals` are the ones it computed,
    and only the rules the allocated CAE decides run here (`cae_errors`), with the same outcome as validating
    everything again. `paper`: the receipt records a paper contingency receipt keyed in after the fact, whose
    printed book (`numbering`) authorised it on its issue date however long ago (CFE-URUGUAY.md section 13).
    Raises as `build_signed_cfe` does."""
    moment, emission = _signing(issuer, numbering, now)
    errors = cae_errors(cfe, emission)
    return _signed(cfe, errors, totals, issuer, numbering, signer, moment, qr_base_url, qr_date_format, paper)


def _signing(issuer: Issuer, numbering: Numbering, now: datetime | None) -> tuple[datetime, Emission]:
    problems = issuer.problems()
    if problems:
        raise ValueError("Emisor mal configurado: " + "; ".join(problems))
    # TmstFirma carries whole seconds: the time kept with the receipt (and answered by the API) is the signed one.
    moment = (now or datetime.now(MONTEVIDEO)).replace(microsecond=0)
    emission = Emission(
        signing_date=moment.date(), regimen=issuer.regimen, cae_allocated=True, cae_especial=numbering.cae_especial
    )
    return moment, emission


def _signed(
    cfe: CfeInput,
    errors: list[FieldError],
    totals: Totals | None,
    issuer: Issuer,
    numbering: Numbering,
    signer: CfeSigner,
    moment: datetime,
    qr_base_url: str,
    qr_date_format: str,
    paper: bool = False,
) -> SignedCfe:
    # DGI rejects a CFE signed after its CAE expired (E07), whatever its issue date. A paper CFC was issued on
    # paper on its date, within its book's dates; keyed in later, it is signed after the book may have expired.
    errors = errors + numbering_errors(numbering, cfe.fch_emis if paper else max(cfe.fch_emis, moment.date()))
    if errors or totals is None:
        raise CfeValidationError(errors)
    signed = signer.sign(build_cfe_xml(cfe, issuer, numbering, totals, moment))
    if schema_available():
        schema_errors = validate_cfe(signed.xml)
        if schema_errors:
            raise CfeSchemaError(schema_errors)
    # The QR date: DGI's text names the signature date, receipts in circulation show the issue date.
    url = qr_url_for(
        issuer.rut,
        cfe.tipo_cfe,
        numbering.serie,
        numbering.nro,
        totals,
        cfe.fch_emis,
        signed.digest,
        base_url=qr_base_url,
        date_format=qr_date_format,
    )
    return SignedCfe(
        xml=signed.xml,
        totals=totals,
        digest=signed.digest,
        security_code=signed.security_code,
        qr_url=url,
        tmst_firma=moment,
    )


def render_signed_pdf(
    cfe: CfeInput,
    issuer: Issuer,
    numbering: Numbering,
    signed: SignedCfe,
    *,
    logo: bytes | None = None,
    paper: str = "a4",
) -> bytes:
    """The printed representation of a receipt signed by `build_signed_cfe`, read from its signed XML (the
    number and CAE are in it; `cfe` supplies only the unsigned adenda)."""
    del numbering  # kept for callers; the signed XML carries serie, number and CAE
    return render_receipt(
        signed.xml,
        issuer,
        adenda=cfe.adenda,
        security_code=signed.security_code,
        qr_url=signed.qr_url,
        logo=logo,
        paper=paper,
    )


def render_preview_pdf(cfe: CfeInput, issuer: Issuer, *, logo: bytes | None = None, paper: str = "a4") -> bytes:
    """A draft PDF with a "SIN VALOR FISCAL" watermark: no number, no CAE, no QR."""
    return render_preview(cfe, issuer, logo=logo, paper=paper)
