"""The e-mail that carries a receipt: Spanish subject and body, in usted by default or as the company wrote
them (with the receipt's fields as placeholders), the PDF and the signed XML attached, built with the standard
library's EmailMessage."""

from __future__ import annotations

import re
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, make_msgid

from portal.domain.cfe_types import CFE_TYPES
from portal.domain.receipt_numbers import printed
from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.pdf_text import money
from portal.service.comprobante.models import IssuedCfe
from portal.service.platform.i18n import _
from portal.service.platform.models import Company


def receipt_label(record: IssuedCfe) -> str:
    """ "e-Factura A-0000015"."""
    kind = CFE_TYPES[record.tipo_cfe].name_es if record.tipo_cfe in CFE_TYPES else f"CFE {record.tipo_cfe}"
    return f"{kind} {printed(record.serie, record.nro)}"


def file_stem(record: IssuedCfe) -> str:
    """ "e-Factura_A-0000015": the attachments' names, without spaces."""
    return receipt_label(record).replace(" ", "_")


def _amount(record: IssuedCfe) -> str:
    return money(record.mnt_total, record.tpo_moneda)


# The e-mail in usted: it goes to business customers. A company may write its own (GET/PUT
# /api/v1/correo/plantilla); these are what it starts from. Placeholders: see PLACEHOLDERS.
DEFAULT_SUBJECT = "{comprobante} de {empresa}"
DEFAULT_BODY = """{saludo}

Le enviamos el comprobante {comprobante} que {empresa} emitió el {fecha}, por {total}.

Adjuntamos su representación impresa (PDF) y el comprobante fiscal electrónico firmado (XML), que es el que vale \
ante DGI. Puede verificarlo en el sitio de DGI:
{enlace}

Si tiene alguna consulta, responda a este correo.

{empresa}
"""
PLACEHOLDERS = {
    "comprobante": _("El tipo y número del comprobante (e-Factura A-0000015)."),
    "empresa": _("La razón social de la empresa que lo emitió."),
    "receptor": _("El nombre del receptor (vacío en un e-Ticket a consumo final)."),
    "saludo": _("«Estimado/a <receptor>:», o «Estimado/a cliente:» sin nombre."),
    "fecha": _("La fecha de emisión (dd/mm/aaaa)."),
    "total": _("El total con su moneda ($ 1.220,00)."),
    "enlace": _("La dirección para verificar el comprobante en DGI."),
}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# Whatever a company writes between braces on one line it means as a placeholder: one that is not in PLACEHOLDERS
# ("{ total }", "{numero}", "{fecha de emisión}") would reach the customer as typed, so a template is refused
# with it (unknown_placeholders). A lone brace is just a character.
_BRACED = re.compile(r"\{[^{}\r\n]*\}")

# A company without an e-mail of its own has no Reply-To, so a reply would reach the shared sending address:
# its default text does not invite one. (A company's own text is sent as it wrote it.)
_REPLY_INVITATION = "Si tiene alguna consulta, responda a este correo.\n\n"
DEFAULT_BODY_WITHOUT_REPLIES = DEFAULT_BODY.replace(_REPLY_INVITATION, "")


def fill(template: str, values: dict[str, str]) -> str:
    """`template` with each {name} of PLACEHOLDERS replaced; anything else, braces included, left as written
    (never str.format: a company's text must not reach attributes or format specs)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def unknown_placeholders(text: str) -> list[str]:
    """Each braced text of `text` that is no placeholder, as typed ("{ total }"), once each, in order."""
    return list(dict.fromkeys(braced for braced in _BRACED.findall(text) if braced[1:-1] not in PLACEHOLDERS))


def values(record: IssuedCfe, company: Company) -> dict[str, str]:
    receiver = record.receptor_nombre or ""
    return {
        "comprobante": receipt_label(record),
        "empresa": company.razon_social,
        "receptor": receiver,
        "saludo": f"Estimado/a {receiver}:" if receiver else "Estimado/a cliente:",
        "fecha": f"{record.fch_emis:%d/%m/%Y}",
        "total": _amount(record),
        "enlace": record.qr_url,
    }


def body_text(record: IssuedCfe, company: Company, template: str = DEFAULT_BODY) -> str:
    if template == DEFAULT_BODY and not company.correo:
        template = DEFAULT_BODY_WITHOUT_REPLIES
    return fill(template, values(record, company)).rstrip("\n") + "\n"


def build(
    record: IssuedCfe,
    company: Company,
    recipients: list[str],
    pdf: bytes,
    *,
    sender: str,
    now: datetime,
    subject: str = DEFAULT_SUBJECT,
    body: str = DEFAULT_BODY,
) -> EmailMessage:
    """The message, with the company's own subject and text when it wrote them (MailTemplate)."""
    message = EmailMessage()
    message["Subject"] = " ".join(fill(subject, values(record, company)).split())  # one line, whatever was typed
    message["From"] = formataddr((company.razon_social, sender))
    message["To"] = ", ".join(recipients)
    if company.correo:
        message["Reply-To"] = company.correo
    message["Date"] = format_datetime(now.astimezone(MONTEVIDEO))
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message.set_content(body_text(record, company, body))
    stem = file_stem(record)
    message.add_attachment(pdf, maintype="application", subtype="pdf", filename=f"{stem}.pdf")
    message.add_attachment(bytes(record.xml), maintype="application", subtype="xml", filename=f"{stem}.xml")
    return message
