"""DGI rejected CFEs we had received: the issuer's `CFEs_Anulados_x_RechazoDGI` notice (motive RD), checked
against its XSD and signed by the issuer, marks each listed CFE "rechazado por DGI", which cannot be booked."""

from __future__ import annotations

from datetime import UTC, datetime

from cryptography import x509
from sqlalchemy import select

from portal.service.cfe.errors import XmlInputError
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import verify_signature
from portal.service.cfe.xmlsafe import parse_untrusted
from portal.service.platform import accredited_cas, db
from portal.service.platform.i18n import _
from portal.service.recibidos.checks import NS, b64, ruc_serials
from portal.service.recibidos.models import ReceivedCfe

ROOT = "{http://cfe.dgi.gub.uy}CFEs_Anulados_x_RechazoDGI"
XSD = "CFEs_Anulados_x_RechazoDGI.xsd"


class NoticeRefused(ValueError):
    """The notice is not a readable, valid and signed CFEs_Anulados_x_RechazoDGI of the issuer it names. `message`
    is a catalogue message, as AnswerRejected's (intercambio/answers.py)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def record_notice(company_id: int, document: bytes) -> int:
    """Marks the listed CFEs of `company_id` as rejected by DGI; returns how many it marked."""
    try:
        root = parse_untrusted(document).getroot()
    except XmlInputError as exc:
        raise NoticeRefused(exc.text) from None
    if root.tag != ROOT:
        raise NoticeRefused(_("Se esperaba CFEs_Anulados_x_RechazoDGI."))
    errors = validate_xml(document, XSD)
    if errors:
        raise NoticeRefused(
            _("La notificación no cumple {esquema}: {problemas}", esquema=XSD, problemas="; ".join(errors)[:400])
        )
    rut = (root.findtext("d:Caratula/d:RUCEmisor", namespaces=NS) or "").strip()
    embedded = root.findtext("ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate", namespaces=NS)
    try:
        certificate = x509.load_der_x509_certificate(b64(embedded))
    except ValueError:
        raise NoticeRefused(_("La notificación no trae el certificado de quien la firma.")) from None
    if f"RUC{rut}" not in ruc_serials(certificate) or not verify_signature(document):
        raise NoticeRefused(_("La firma no es válida o no es del emisor {rut}.", rut=rut))
    now, marked = datetime.now(UTC), 0
    if not accredited_cas.issued_by_accredited_ca(certificate, now):
        raise NoticeRefused(_("El certificado de la firma no lo emitió una autoridad certificadora acreditada."))
    with db.write_transaction() as session:
        for voided in root.findall("d:CFEAnulado", namespaces=NS):
            tipo = int(voided.findtext("d:TipoCFE", default="0", namespaces=NS) or 0)
            serie = (voided.findtext("d:Serie", default="", namespaces=NS) or "").strip()
            nro = int(voided.findtext("d:NroCFE", default="0", namespaces=NS) or 0)
            row = session.scalar(
                select(ReceivedCfe).where(
                    ReceivedCfe.company_id == company_id,
                    ReceivedCfe.rut_emisor == rut,
                    ReceivedCfe.tipo_cfe == tipo,
                    ReceivedCfe.serie == serie,
                    ReceivedCfe.nro == nro,
                )
            )
            if row is not None and not row.anulado_dgi:
                row.anulado_dgi, row.anulado_at = True, now
                marked += 1
    return marked
