"""The e-mail that carries a receipt: Spanish subject and body in the product's voice, the PDF and the
signed XML attached, built with the standard library's EmailMessage."""

from __future__ import annotations

from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, make_msgid

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.receipt_numbers import printed
from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.pdf_text import money
from portal.service.comprobante.models import IssuedCfe
from portal.service.models import Company


def receipt_label(record: IssuedCfe) -> str:
    """ "e-Factura A-0000015"."""
    kind = CFE_TYPES[record.tipo_cfe].name_es if record.tipo_cfe in CFE_TYPES else f"CFE {record.tipo_cfe}"
    return f"{kind} {printed(record.serie, record.nro)}"


def file_stem(record: IssuedCfe) -> str:
    """ "e-Factura_A-0000015": the attachments' names, without spaces."""
    return receipt_label(record).replace(" ", "_")


def _amount(record: IssuedCfe) -> str:
    return money(record.mnt_total, record.tpo_moneda)


def body_text(record: IssuedCfe, company: Company) -> str:
    greeting = f"Hola, {record.receptor_nombre}:" if record.receptor_nombre else "Hola:"
    return (
        "\n".join(
            (
                greeting,
                "",
                f"Te enviamos el comprobante {receipt_label(record)} que {company.razon_social} emitió el "
                f"{record.fch_emis:%d/%m/%Y}, por {_amount(record)}.",
                "",
                "Adjuntamos su representación impresa (PDF) y el comprobante fiscal electrónico firmado (XML), que es "
                "el que vale ante DGI. Podés verificarlo en el sitio de DGI:",
                record.qr_url,
                "",
                "Si tenés alguna consulta sobre este comprobante, respondé a este correo.",
                "",
                company.razon_social,
            )
        )
        + "\n"
    )


def build(
    record: IssuedCfe, company: Company, recipients: list[str], pdf: bytes, *, sender: str, now: datetime
) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = f"{receipt_label(record)} de {company.razon_social}"
    message["From"] = formataddr((company.razon_social, sender))
    message["To"] = ", ".join(recipients)
    if company.correo:
        message["Reply-To"] = company.correo
    message["Date"] = format_datetime(now.astimezone(MONTEVIDEO))
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message.set_content(body_text(record, company))
    stem = file_stem(record)
    message.add_attachment(pdf, maintype="application", subtype="pdf", filename=f"{stem}.pdf")
    message.add_attachment(bytes(record.xml), maintype="application", subtype="xml", filename=f"{stem}.xml")
    return message
