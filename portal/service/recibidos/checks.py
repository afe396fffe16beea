"""What a receiver checks on an EnvioCFE_entreEmpresas, as DGI describes (CFE-URUGUAY.md section 12).

The envelope (`check_envelope`): size S07 before parsing, a hardened parse S01 (no DOCTYPE, no entities, no
network: `xmlsafe.parse_untrusted`), EnvioCFE_entreEmpresas.xsd S04, RutReceptor is the company's S02,
the certificate readable, in force and the issuer's S03, CantCFE S05, the CFEs signed with the envelope's
certificate S06. A schema error inside one CFE does not reject the envelope: that CFE is answered E05 and
the others are judged on their own.

Each CFE (`check_cfe`): its signature with the envelope's certificate E04, the issuer's RUT E09, its number
within the CAE range it declares E03, its signature date within that CAE's dates E07, a duplicate E02 (the
caller knows what is stored), its format E05 (schema, totals by DGI's formulas, addressed to this company).
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree

from portal.service.cfe.errors import XmlInputError
from portal.service.cfe.schema import located_errors
from portal.service.cfe.signing import verify_signature
from portal.service.cfe.xmlsafe import MAX_XML_BYTES, parse_untrusted
from portal.service.envios import simchecks
from portal.service.platform import accredited_cas
from portal.service.platform.i18n import _
from portal.service.recibidos.motives import motive

CFE_NS = "http://cfe.dgi.gub.uy"
DS_NS = "http://www.w3.org/2000/09/xmldsig#"
NS = {"d": CFE_NS, "ds": DS_NS}
ENVELOPE_TAG = f"{{{CFE_NS}}}EnvioCFE_entreEmpresas"
SCHEMA = "EnvioCFE_entreEmpresas.xsd"
MAX_BYTES = MAX_XML_BYTES  # DGI's 2 MB
_RUC_IN_BYTES = re.compile(rb"<(?:[\w.-]+:)?RUCEmisor>\s*(\d{12})\s*<")
_IDEMISOR_IN_BYTES = re.compile(rb"<(?:[\w.-]+:)?Idemisor>\s*(\d{1,10})\s*<")
_CFE_START = re.compile(rb"<(?:[\w.-]+:)?CFE[\s>/]")
_CFE_END = re.compile(rb"</(?:[\w.-]+:)?CFE\s*>")
_DECLARATION = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["'][^>]*\?>""")


@dataclass
class CfeItem:
    """One CFE_Adenda of the envelope: the CFE's signed bytes, its adenda, and what the checks found."""

    ordinal: int
    element: etree._Element
    signed: bytes
    adenda: str | None
    schema_errors: list[str] = field(default_factory=list)
    facts: simchecks.CfeFacts | None = None
    motives: list[dict] = field(default_factory=list)

    @property
    def dedupe_key(self) -> str | None:
        f = self.facts
        return None if f is None else f"{f.rut}:{f.tipo_cfe}:{f.serie}:{f.nro}"


@dataclass
class Envelope:
    """A received envelope as far as it could be read, and the first envelope-level problem (None: AS)."""

    data: bytes
    sha256: str
    root: etree._Element | None = None
    problem: dict | None = None
    rut_emisor: str | None = None
    idemisor: int | None = None
    cert_pem: bytes | None = None
    items: list[CfeItem] = field(default_factory=list)

    @property
    def dedupe_key(self) -> str | None:
        return None if self.rut_emisor is None or self.idemisor is None else f"{self.rut_emisor}:{self.idemisor}"


def _text(root: etree._Element, path: str) -> str | None:
    value = root.findtext(path, namespaces=NS)
    return value.strip() if value is not None else None


def b64(value: str | None) -> bytes:
    """base64 text as XML carries it (folded over lines); empty bytes when it is not base64."""
    try:
        return base64.b64decode("".join((value or "").split()), validate=True)
    except ValueError:
        return b""


def ruc_serials(cert: x509.Certificate) -> set[str]:
    """The subject's SERIALNUMBER values: a Uruguayan company certificate carries "RUC<12 digits>"."""
    return {str(a.value) for a in cert.subject.get_attributes_for_oid(x509.NameOID.SERIAL_NUMBER)}


def refused(data: bytes, problem: dict | None) -> Envelope:
    """An envelope known only by its bytes: who sent it, read from them so that even a broken one can be
    answered, and `problem` (its BS motive)."""
    ruc = _RUC_IN_BYTES.search(data[:8192])
    idemisor = _IDEMISOR_IN_BYTES.search(data[:8192])
    return Envelope(
        data=data,
        sha256=hashlib.sha256(data).hexdigest(),
        problem=problem,
        rut_emisor=ruc.group(1).decode() if ruc else None,
        idemisor=int(idemisor.group(1)) if idemisor else None,
    )


def read_envelope(data: bytes, company_rut: str, *, now: datetime | None = None) -> Envelope:
    """The envelope read and checked at the envelope level (see the module docstring)."""
    envelope = refused(data, None)
    if len(data) > MAX_BYTES:
        envelope.problem = motive(
            "S07",
            # rounded up: an envelope a few bytes past the cap is not "2048 KB; the maximum is 2048 KB"
            _(
                "El sobre tiene {size} KB; el máximo es {limit} KB.",
                size=-(-len(data) // 1024),
                limit=MAX_BYTES // 1024,
            ),
        )
        return envelope
    try:
        root = parse_untrusted(data, max_bytes=MAX_BYTES).getroot()
    except XmlInputError as exc:
        envelope.problem = motive("S01", exc.text)
        return envelope
    envelope.root = root
    if root.tag != ENVELOPE_TAG:
        envelope.problem = motive(
            "S01", _("Se esperaba EnvioCFE_entreEmpresas y se recibió {tag}.", tag=etree.QName(root).localname)
        )
        return envelope
    adendas = root.findall("d:CFE_Adenda", namespaces=NS)
    spans: list[tuple[int, int]] | None = _cfe_spans(data)
    if spans is not None and len(spans) != len(adendas):
        spans = None
    item_errors, envelope_errors = _split_errors(located_errors(root.getroottree(), SCHEMA), root, adendas)
    if envelope_errors:
        envelope.problem = motive("S04", _listed(envelope_errors))
        return envelope
    envelope.rut_emisor = _text(root, "d:Caratula/d:RUCEmisor")
    envelope.idemisor = int(_text(root, "d:Caratula/d:Idemisor") or 0)
    for ordinal, adenda in enumerate(adendas, start=1):
        cfe = adenda.find("d:CFE", namespaces=NS)
        if cfe is None:  # the schema requires it; a document that passed has one
            continue
        envelope.items.append(
            CfeItem(
                ordinal=ordinal,
                element=cfe,
                signed=_signed_bytes(data, spans[ordinal - 1] if spans else None, cfe, root),
                adenda=_adenda(adenda.find("d:Adenda", namespaces=NS)),
                schema_errors=item_errors.get(ordinal - 1, []),
            )
        )
    envelope.problem = _caratula_problem(envelope, root, company_rut, now or datetime.now(UTC))
    return envelope


def _caratula_problem(envelope: Envelope, root: etree._Element, company_rut: str, now: datetime) -> dict | None:
    if _text(root, "d:Caratula/d:RutReceptor") != company_rut:
        return motive(
            "S02",
            _(
                "El sobre es para el RUT {rut}, no para {ours}.",
                rut=_text(root, "d:Caratula/d:RutReceptor"),
                ours=company_rut,
            ),
        )
    cert_der = b64(_text(root, "d:Caratula/d:X509Certificate"))
    try:
        cert = x509.load_der_x509_certificate(cert_der)
    except ValueError:
        return motive("S03", _("El certificado del sobre no se puede leer."))
    if not cert.not_valid_before_utc <= now <= cert.not_valid_after_utc:
        return motive("S03", _("El certificado del sobre no está vigente."))
    if f"RUC{envelope.rut_emisor}" not in ruc_serials(cert):
        return motive("S02", _("El certificado del sobre no es del RUT emisor {rut}.", rut=envelope.rut_emisor))
    if not accredited_cas.issued_by_accredited_ca(cert, now):
        return motive(
            "S03", _("El certificado del sobre no lo emitió una autoridad certificadora acreditada en Uruguay.")
        )
    envelope.cert_pem = cert.public_bytes(Encoding.PEM)
    declared = int(_text(root, "d:Caratula/d:CantCFE") or 0)
    if declared != len(envelope.items):
        return motive(
            "S05",
            _("La carátula dice {declared} CFE y el sobre trae {found}.", declared=declared, found=len(envelope.items)),
        )
    for item in envelope.items:
        signature = item.element.find("ds:Signature", namespaces=NS)
        embedded = (
            signature.findtext("ds:KeyInfo/ds:X509Data/ds:X509Certificate", namespaces=NS)
            if signature is not None
            else None
        )
        serial = signature.findtext(".//ds:X509SerialNumber", namespaces=NS) if signature is not None else None
        if (embedded and b64(embedded) != cert_der) or (
            not embedded and serial and serial.strip() != str(cert.serial_number)
        ):
            return motive(
                "S06", _("El CFE {ordinal} está firmado con otro certificado que el del sobre.", ordinal=item.ordinal)
            )
    return None


# A motive's detail is cut at 500 characters: more schema errors than these would not be read anyway.
_LISTED = 10


def _listed(problems: list[str]) -> str:
    """Several problems as one detail ("a; b; c"), kept as a catalogue message whose parts are said in each
    reader's language (the first `_LISTED`)."""
    listed = problems[:_LISTED]
    if not listed:
        return ""
    text = listed[0]
    for problem in listed[1:]:
        text = _("{first}; {then}", first=text, then=problem)
    return text


def _split_errors(
    errors: list[tuple[str, str | None]], root: etree._Element, adendas: list[etree._Element]
) -> tuple[dict[int, list[str]], list[str]]:
    """Schema errors inside a CFE_Adenda go to that CFE; the rest are the envelope's. Told apart by the element
    each error is about (its path's first step below the root), never by its line: an envelope on one line, as
    this product and many others write it, has its Caratula and its CFEs on the same line. An error whose element
    cannot be found is the envelope's: refusing the envelope is safe, accepting a broken CFE is not."""
    prefixes = {prefix: uri for prefix, uri in root.nsmap.items() if prefix}
    by_item: dict[int, list[str]] = {}
    outside: list[str] = []
    for message, path in errors:
        steps = (path or "").split("/")
        try:
            found = root.getroottree().xpath("/".join(steps[:3]), namespaces=prefixes) if len(steps) > 2 else []
        except etree.XPathError:
            found = []
        child = found[0] if isinstance(found, list) and len(found) == 1 else None
        index = next((i for i, adenda in enumerate(adendas) if adenda is child), None)
        if index is None:
            outside.append(message)
        else:
            by_item.setdefault(index, []).append(message)
    return by_item, outside


def _cfe_spans(data: bytes) -> list[tuple[int, int]]:
    """Where each CFE element starts and ends in the bytes (the sender spliced the signed CFE in unchanged)."""
    spans: list[tuple[int, int]] = []
    position = 0
    while True:
        start = _CFE_START.search(data, position)
        if start is None:
            return spans
        end = _CFE_END.search(data, start.end())
        if end is None:
            return spans
        spans.append((start.start(), end.end()))
        position = end.end()


def _signed_bytes(data: bytes, span: tuple[int, int] | None, cfe: etree._Element, root: etree._Element) -> bytes:
    """The CFE as its issuer signed it: its own bytes when they stand alone (with the envelope's encoding),
    otherwise the element without what it only inherits from the envelope."""
    if span is not None:
        declared = _DECLARATION.match(data)
        encoding = declared.group(1).decode().lower() if declared else "utf-8"
        prefix = b"" if encoding in ("utf-8", "utf8") else f'<?xml version="1.0" encoding="{encoding}"?>\n'.encode()
        candidate = prefix + data[span[0] : span[1]]
        try:
            alone = parse_untrusted(candidate).getroot()
        except XmlInputError:
            alone = None
        # The bytes stand for the CFE only if they are the very element the checks read: a span found by the
        # pattern may be something else (a signed CFE inside a comment, with the parsed CFE under a prefix the
        # pattern misses), and the signature would then vouch for facts it never covered.
        if alone is not None and _exclusive_c14n(alone) == _exclusive_c14n(cfe):
            return candidate
    return simchecks.standalone(cfe, root)


def _exclusive_c14n(element: etree._Element) -> bytes:
    return etree.tostring(element, method="c14n", exclusive=True)


def _adenda(element: etree._Element | None) -> str | None:
    if element is None:
        return None
    inner = (element.text or "") + "".join(etree.tostring(child, encoding="unicode") for child in element)
    return inner.strip() or None


def check_cfe(item: CfeItem, envelope: Envelope, company_rut: str) -> list[dict]:
    """The motives this CFE is rejected for (empty: accepted); E02 is the caller's (it knows what is stored)."""
    try:
        found = simchecks.facts(item.element)
    except (StopIteration, ValueError):
        found = None
    item.facts = found
    if item.schema_errors or found is None:
        return [motive("E05", _listed(item.schema_errors) or _("El CFE no tiene la forma de un CFE."))]
    motives = []
    if envelope.cert_pem is None or not verify_signature(item.signed, envelope.cert_pem):
        motives.append(motive("E04", _("La firma del CFE no verifica con el certificado del sobre.")))
    if found.rut != envelope.rut_emisor:
        motives.append(
            motive(
                "E09", _("El CFE es del RUT {rut} y el sobre de {sender}.", rut=found.rut, sender=envelope.rut_emisor)
            )
        )
    motives += _cae_checks(found)
    problem = simchecks.totals_problem(found.element) or _receiver_problem(found.element, company_rut)
    if problem:
        motives.append(motive("E05", problem))
    return motives


def _cae_checks(found: simchecks.CfeFacts) -> list[dict]:
    """Against the CAE the CFE declares (a receiver does not hold the issuer's CAE files)."""
    cae = found.element.find("d:CAEData", namespaces=NS)
    if cae is None:  # the schema requires it
        return [motive("E03", _("El CFE no declara su CAE."))]
    dnro = int(cae.findtext("d:DNro", default="0", namespaces=NS) or 0)
    hnro = int(cae.findtext("d:HNro", default="0", namespaces=NS) or 0)
    # xs:date and xs:dateTime may carry a time zone ("2027-09-24-03:00") or "24:00:00", which Python's ISO
    # reader refuses: the day is the first ten characters, as the issuer wrote it.
    fec_venc = date.fromisoformat((cae.findtext("d:FecVenc", default="1900-01-01", namespaces=NS) or "").strip()[:10])
    problems = []
    if not dnro <= found.nro <= hnro:
        problems.append(
            motive(
                "E03",
                _(
                    "{serie}-{nro} fuera del rango del CAE {dnro}-{hnro}.",
                    serie=found.serie,
                    nro=found.nro,
                    dnro=dnro,
                    hnro=hnro,
                ),
            )
        )
    signed_on = date.fromisoformat(found.tmst[:10]) if found.tmst else date.min
    cae_id = str(found.cae_id)
    # The CAE number is "90" + its two-digit year + sequence + check digit (CFE-URUGUAY.md section 6).
    cae_year = 2000 + int(cae_id[2:4]) if len(cae_id) == 11 and cae_id.startswith("90") else None
    if signed_on > fec_venc or (cae_year is not None and signed_on.year < cae_year):
        problems.append(
            motive(
                "E07",
                _(
                    "Firmado el {signed}; el CAE {cae} vence el {expires}.",
                    signed=f"{signed_on:%d/%m/%Y}",
                    cae=cae_id,
                    expires=f"{fec_venc:%d/%m/%Y}",
                ),
            )
        )
    return problems


def _receiver_problem(doc: etree._Element, company_rut: str) -> str | None:
    receptor = doc.find("d:Encabezado/d:Receptor", namespaces=NS)
    if receptor is None:
        return None
    kind = (receptor.findtext("d:TipoDocRecep", default="", namespaces=NS)).strip()
    number = (receptor.findtext("d:DocRecep", default="", namespaces=NS)).strip()
    if kind == "2" and number and number != company_rut:
        return _("El CFE está emitido al RUT {rut}, no a esta empresa ({ours}).", rut=number, ours=company_rut)
    return None
