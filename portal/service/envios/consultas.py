"""DGI's `ws_consultas` operations over SOAP 1.1 with the Body signed like every other DGI call
(portal.service.dgi.wsse): the directory (EFACCONSULTARRUCEMISORES and EFACCONSULTARRUCEMISORESPROV) and one
CFE's state at DGI (EFACCONSULTARESTADOCFE, asked after DGI answers S08 to an envelope).

DGI publishes no WSDL for ws_consultas in the samples this project has, so the messages are written here from
DGI's description of the service (CFE-URUGUAY.md §7 and §12, [WSCONS]), in the GeneXus shape of DGI's other
services (namespace http://dgi.gub.uy, `WS_eFactura_Consultas.<OPERATION>` and `...Response`):

    request   Filtro_eFacDocNro, Filtro_eFacDenominacion (optional), Filtro_eFacRUCEmisorAudFchHora (required:
              the entries changed since that moment)
    answer    one item per issuer: RUC, DENOMINACION, FECHA_INICIO, FECHA_FIN, MAIL; the PROV variant adds
              URL (the receiver's exchange web service) and MAIL_TECNICO

    request   (EFACCONSULTARESTADOCFE) RucEmisor, TipoCFE, Serie, NroCFE
    answer    Estado: AE, BE, CE or FE as in ACKCFE; PE while DGI has not judged it yet; empty when DGI has no
              such CFE; Motivos/Motivo (Codigo, Glosa, Detalle) as ACKCFE_Det's MotivosRechazoCF

Everything about the wire shape lives in `build_request` and `parse_answer` (the stand-in in
`tests/support/consultas_standin.py` answers with `build_answer`), so that when DGI's WSDL is at hand only
this module changes. The parser is lenient on names (any element with a RUC child is an item, names
compared without case) because those are the part the description leaves open.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

import requests
import urllib3
from lxml import etree

from portal.domain.digits import ascii_number
from portal.service.dgi.soap import CONNECT_TIMEOUT_SECONDS, body_signer, shared_session
from portal.service.envios.adapter import CfeState
from portal.service.platform.i18n import _

log = logging.getLogger(__name__)

NAMESPACE = "http://dgi.gub.uy"
SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
DGI_TEST_URL = "https://efactura.dgi.gub.uy:6460/ePrueba/ws_consultasPrueba"
DGI_PRODUCTION_URL = "https://efactura.dgi.gub.uy:6440/efactura/ws_consultas"
Operation = Literal["EFACCONSULTARRUCEMISORES", "EFACCONSULTARRUCEMISORESPROV"]
OPERATIONS: tuple[Operation, ...] = ("EFACCONSULTARRUCEMISORES", "EFACCONSULTARRUCEMISORESPROV")
CFE_STATE: Literal["EFACCONSULTARESTADOCFE"] = "EFACCONSULTARESTADOCFE"
_WIRE_PENDING = "PE"
MAX_ANSWER_BYTES = 64 * 1024 * 1024  # the whole directory: tens of thousands of issuers
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)


# A listed electronic issuer as ws_consultas answers it (the exchange's directory keeps them: intercambio.directory).
@dataclass(frozen=True)
class ElectronicIssuer:
    rut: str
    name: str
    exchange_email: str | None
    ws_url: str | None
    transition_from: date | None
    transition_to: date | None
    tech_email: str | None = None  # the provider's technical contact (ws_consultas PROV variant)

    def receives_on(self, day: date) -> bool:
        """Whether it is an electronic receiver on `day`: listed, and its start (FECHA_INICIO) has come."""
        return self.transition_from is None or self.transition_from <= day


class DirectoryUnavailable(Exception):
    """DGI could not give the directory (or a CFE's state) now (network, HTTP error, fault, unreadable answer).
    `message` is a catalogue message: an envelope's error and DGI's outage record keep it (soap_reception)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def soap_action(operation: str) -> str:
    return f"{NAMESPACE}action/AWS_EFACTURACONSULTAS.{operation}"


def _wrapper(operation: str) -> str:
    return f"{{{NAMESPACE}}}WS_eFactura_Consultas.{operation}"


def build_request(
    operation: Operation, since: datetime, rut: str | None = None, name: str | None = None
) -> etree._Element:
    """The unsigned SOAP envelope asking for the issuers changed since `since` (optionally one RUT or name)."""
    envelope = etree.Element(f"{{{SOAP_ENV}}}Envelope", nsmap={"soapenv": SOAP_ENV, "dgi": NAMESPACE})
    etree.SubElement(envelope, f"{{{SOAP_ENV}}}Header")
    body = etree.SubElement(envelope, f"{{{SOAP_ENV}}}Body")
    call = etree.SubElement(body, _wrapper(operation))
    etree.SubElement(call, f"{{{NAMESPACE}}}Filtro_eFacDocNro").text = rut or ""
    etree.SubElement(call, f"{{{NAMESPACE}}}Filtro_eFacDenominacion").text = name or ""
    etree.SubElement(call, f"{{{NAMESPACE}}}Filtro_eFacRUCEmisorAudFchHora").text = since.replace(
        tzinfo=None, microsecond=0
    ).isoformat()
    return envelope


def read_request(envelope: etree._Element) -> tuple[Operation, datetime, str | None] | None:
    """What a request asks (the stand-in's side): operation, since and RUT filter; None if it is not one."""
    body = envelope.find(f"{{{SOAP_ENV}}}Body")
    for operation in OPERATIONS:
        call = body.find(_wrapper(operation)) if body is not None else None
        if call is not None:
            since_text = (call.findtext(f"{{{NAMESPACE}}}Filtro_eFacRUCEmisorAudFchHora") or "").strip()
            try:
                since = datetime.fromisoformat(since_text)
            except ValueError:
                return None
            rut = (call.findtext(f"{{{NAMESPACE}}}Filtro_eFacDocNro") or "").strip() or None
            return operation, since, rut
    return None


def build_answer(operation: Operation, issuers: Iterable[ElectronicIssuer]) -> bytes:
    """The SOAP answer listing `issuers` (the stand-in's side)."""
    envelope = etree.Element(f"{{{SOAP_ENV}}}Envelope", nsmap={"SOAP-ENV": SOAP_ENV})
    answer = etree.SubElement(
        etree.SubElement(envelope, f"{{{SOAP_ENV}}}Body"),
        f"{_wrapper(operation)}Response",
        nsmap={None: NAMESPACE},  # type: ignore[dict-item]  # None is lxml's default namespace; the stubs say str
    )
    out = etree.SubElement(answer, f"{{{NAMESPACE}}}Salida")
    for issuer in issuers:
        item = etree.SubElement(out, f"{{{NAMESPACE}}}RUCEmisor")
        fields = [
            ("RUC", issuer.rut),
            ("DENOMINACION", issuer.name),
            ("FECHA_INICIO", issuer.transition_from.isoformat() if issuer.transition_from else ""),
            ("FECHA_FIN", issuer.transition_to.isoformat() if issuer.transition_to else ""),
            ("MAIL", issuer.exchange_email or ""),
        ]
        if operation == "EFACCONSULTARRUCEMISORESPROV":
            fields += [("URL", issuer.ws_url or ""), ("MAIL_TECNICO", "")]
        for name, value in fields:
            etree.SubElement(item, f"{{{NAMESPACE}}}{name}").text = value
    return etree.tostring(envelope, xml_declaration=True, encoding="utf-8")


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname.upper() if isinstance(element.tag, str) else ""


def _date(value: str | None) -> date | None:
    value = (value or "").strip()
    if not value or value.startswith("0000"):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def parse_answer(data: bytes) -> list[ElectronicIssuer]:
    """The issuers a SOAP answer lists. Raises DirectoryUnavailable for a fault or an unreadable answer."""
    root = _answer_root(data)
    issuers = []
    for item in root.iter():
        values = {_local(child): (child.text or "").strip() for child in item if len(child) == 0}
        rut = values.get("RUC", "")
        if not (rut.isdigit() and len(rut) == 12):
            continue
        issuers.append(
            ElectronicIssuer(
                rut=rut,
                name=(values.get("DENOMINACION") or rut)[:150],
                exchange_email=(values.get("MAIL") or None),
                ws_url=(values.get("URL") or values.get("URL_WS") or None),
                transition_from=_date(values.get("FECHA_INICIO")),
                transition_to=_date(values.get("FECHA_FIN")),
                tech_email=(values.get("MAIL_TECNICO") or None),
            )
        )
    return issuers


def build_state_request(rut: str, tipo_cfe: int, serie: str, nro: int) -> etree._Element:
    """The unsigned SOAP envelope asking DGI for one CFE's state (EFACCONSULTARESTADOCFE)."""
    envelope = etree.Element(f"{{{SOAP_ENV}}}Envelope", nsmap={"soapenv": SOAP_ENV, "dgi": NAMESPACE})
    etree.SubElement(envelope, f"{{{SOAP_ENV}}}Header")
    call = etree.SubElement(etree.SubElement(envelope, f"{{{SOAP_ENV}}}Body"), _wrapper(CFE_STATE))
    for name, value in (("RucEmisor", rut), ("TipoCFE", str(tipo_cfe)), ("Serie", serie), ("NroCFE", str(nro))):
        etree.SubElement(call, f"{{{NAMESPACE}}}{name}").text = value
    return envelope


def read_state_request(envelope: etree._Element) -> tuple[str, int, str, int] | None:
    """What a CFE state request asks (the stand-in's side): RUT, type, series, number; None if it is not one."""
    body = envelope.find(f"{{{SOAP_ENV}}}Body")
    call = body.find(_wrapper(CFE_STATE)) if body is not None else None
    if call is None:
        return None
    values = {
        name: (call.findtext(f"{{{NAMESPACE}}}{name}") or "").strip()
        for name in ("RucEmisor", "TipoCFE", "Serie", "NroCFE")
    }
    tipo_cfe, nro = ascii_number(values["TipoCFE"]), ascii_number(values["NroCFE"])
    if tipo_cfe is None or nro is None:
        return None
    return values["RucEmisor"], tipo_cfe, values["Serie"], nro


def build_state_answer(state: CfeState) -> bytes:
    """The SOAP answer giving one CFE's state (the simulator's and stand-in's side)."""
    envelope = etree.Element(f"{{{SOAP_ENV}}}Envelope", nsmap={"SOAP-ENV": SOAP_ENV})
    answer = etree.SubElement(
        etree.SubElement(envelope, f"{{{SOAP_ENV}}}Body"),
        f"{_wrapper(CFE_STATE)}Response",
        nsmap={None: NAMESPACE},  # type: ignore[dict-item]  # as in build_answer
    )
    out = etree.SubElement(answer, f"{{{NAMESPACE}}}Salida")
    wire = {"en_proceso": _WIRE_PENDING, "no_recibido": ""}.get(state.estado, state.estado)
    etree.SubElement(out, f"{{{NAMESPACE}}}Estado").text = wire
    motives = etree.SubElement(out, f"{{{NAMESPACE}}}Motivos")
    for entry in state.motives:
        item = etree.SubElement(motives, f"{{{NAMESPACE}}}Motivo")
        for name, key in (("Codigo", "codigo"), ("Glosa", "glosa"), ("Detalle", "detalle")):
            if entry.get(key):
                etree.SubElement(item, f"{{{NAMESPACE}}}{name}").text = str(entry[key])
    return etree.tostring(envelope, xml_declaration=True, encoding="utf-8")


def _answer_root(data: bytes) -> etree._Element:
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise DirectoryUnavailable(_("DGI respondió algo que no se puede leer.")) from exc
    if root.getroottree().docinfo.doctype:  # type: ignore[union-attr]  # lxml-stubs' DocInfo has no doctype
        raise DirectoryUnavailable(_("DGI respondió con un DOCTYPE."))
    fault = root.find(f".//{{{SOAP_ENV}}}Fault")
    if fault is not None:
        raise DirectoryUnavailable(
            _("DGI rechazó la consulta: {motivo}", motivo=(fault.findtext("faultstring") or "").strip())
        )
    return root


def parse_state_answer(data: bytes) -> CfeState:
    """One CFE's state from DGI's answer. Raises DirectoryUnavailable for a fault or an unreadable answer."""
    root = _answer_root(data)
    estado_node = next((node for node in root.iter() if _local(node) == "ESTADO"), None)
    if estado_node is None:
        raise DirectoryUnavailable(_("DGI respondió sin el estado del comprobante."))
    wire = (estado_node.text or "").strip().upper()
    motives = []
    for node in root.iter():
        if _local(node) == "MOTIVO":
            values = {_local(child): (child.text or "").strip() for child in node}
            if values.get("CODIGO"):
                entry = {"codigo": values["CODIGO"], "glosa": values.get("GLOSA", "")}
                if values.get("DETALLE"):
                    entry["detalle"] = values["DETALLE"][:500]
                motives.append(entry)
    if wire in ("AE", "BE", "CE", "FE"):
        return CfeState(wire, motives)  # type: ignore[arg-type]  # narrowed by the test above
    if wire == _WIRE_PENDING:
        return CfeState("en_proceso")
    if wire == "":
        return CfeState("no_recibido")
    raise DirectoryUnavailable(_("DGI respondió un estado desconocido: {estado}", estado=wire[:20]))


class ConsultasClient:
    """The ws_consultas operations (the directory's two, one CFE's state), signed with a company certificate
    (key and certificate PEM)."""

    def __init__(
        self,
        key_pem: bytes,
        cert_pem: bytes,
        *,
        url: str | None = None,
        timeout: float = 60.0,
        digest: str = "sha256",
        session: requests.Session | None = None,
    ):
        self._signature = body_signer(key_pem, cert_pem, digest)
        self.url = url or DGI_TEST_URL
        self.timeout = timeout
        self._session = session

    def issuers(self, operation: Operation, since: datetime, rut: str | None = None) -> list[ElectronicIssuer]:
        return parse_answer(self._post(operation, build_request(operation, since, rut)))

    def cfe_state(self, rut: str, tipo_cfe: int, serie: str, nro: int) -> CfeState:
        """EFACCONSULTARESTADOCFE: what DGI holds of one CFE."""
        return parse_state_answer(self._post(CFE_STATE, build_state_request(rut, tipo_cfe, serie, nro)))

    def _post(self, operation: str, envelope: etree._Element) -> bytes:
        self._signature.apply(envelope, {})
        payload = etree.tostring(envelope, xml_declaration=True, encoding="utf-8")
        headers = {"Content-Type": "text/xml; charset=utf-8", "SOAPAction": f'"{soap_action(operation)}"'}
        try:
            response = (self._session or shared_session()).post(
                self.url,
                data=payload,
                headers=headers,
                timeout=(min(CONNECT_TIMEOUT_SECONDS, self.timeout), self.timeout),
                stream=True,
            )
            with response:  # streamed: read at most the limit, and give the connection back
                body = response.raw.read(MAX_ANSWER_BYTES + 1, decode_content=True)
        except (requests.RequestException, urllib3.exceptions.HTTPError) as exc:  # raw reads raise urllib3's
            # The library's text names hosts, ports and objects: for the log, not for what every company reads
            # (DGI's outage record) and what is stored with an envelope.
            log.warning("ws_consultas unreachable: %s", exc)
            if isinstance(exc, requests.Timeout):
                raise DirectoryUnavailable(_("ws_consultas de DGI no respondió a tiempo.")) from exc
            raise DirectoryUnavailable(_("No se pudo conectar con ws_consultas de DGI.")) from exc
        if len(body) > MAX_ANSWER_BYTES:
            raise DirectoryUnavailable(_("La respuesta de DGI supera el tamaño admitido."))
        media_type = response.headers.get("Content-Type", "").partition(";")[0].strip().lower()
        if response.status_code >= 400 and not media_type.endswith("xml"):
            raise DirectoryUnavailable(_("DGI respondió HTTP {estado}.", estado=response.status_code))
        return body
