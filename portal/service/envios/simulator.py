"""The embedded DGI simulator: the default reception (CFE_DGI_RECEPTION=simulator).

It checks what DGI checks and answers with DGI's own documents, signed with a key of its own:
- an envelope: size (S07), well-formed (S01), EnvioCFE.xsd (S04), DGI's RUT and the issuer's RUT against the
  certificate (S02), the certificate's validity (S03), CantCFE (S05), each CFE signed with the envelope's
  certificate (S06), the same envelope number with other bytes (S08); then ACKSobre AS with a token;
- each CFE (portal/service/envios/simchecks.py): E01-E12 as DGI words them; ACKCFE is ready to be fetched
  `DGI_SIMULATOR_ANSWER_SECONDS` after reception;
- a daily report: ReporteDiarioCFE.xsd, signature and RUT, DGI's sequence (R01-R06); ACKRepDiario.

On a bad day (portal/service/envios/outage.py, CFE_DGI_SIMULATOR_MODE or `envios-simulador-modo`) it is
unreachable, slow, answers SOAP faults, or acknowledges envelopes but never has their per-CFE results.

What it received lives in its own tables (dgisim_*), so a restart forgets nothing, and the same envelope
sent again (same number, same bytes: a resend after a crash) gets the answer it got the first time.

Language: the motives' Glosa and Detalle it writes (here and in simchecks.py) are DGI's words inside DGI's signed
documents, in Spanish as DGI writes them, never catalogue messages: the real DGI answers only in Spanish, and the
service shows a stand-in's motives exactly as it would show DGI's (`envios.states` keeps DGI's own Glosas).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree
from sqlalchemy import func, select

from portal.domain.uruguay_time import MONTEVIDEO
from portal.service.cfe.contingency import is_cfc
from portal.service.cfe.errors import XmlInputError
from portal.service.cfe.schema import validate_xml
from portal.service.cfe.signing import shared_signer, verify_signature
from portal.service.cfe.xmlsafe import parse_untrusted
from portal.service.envios import acks, cfc, outage, simchecks
from portal.service.envios.adapter import CfeState, Credentials, DgiPermanentError, DgiReception
from portal.service.envios.envelope import MAX_BYTES
from portal.service.envios.models import SimCfe, SimEnvelope, SimKey, SimReport
from portal.service.envios.states import motive
from portal.service.platform import db
from portal.service.platform.certificates import generate_self_signed
from portal.service.platform.i18n import _
from portal.service.platform.keystore import field_cipher

NS = {"d": "http://cfe.dgi.gub.uy", "ds": "http://www.w3.org/2000/09/xmldsig#"}


class SimulatedDgi(DgiReception):
    def __init__(self, config: Mapping[str, Any], *, outages: bool = True):
        """`outages`: behave as the current outage mode says (off behind a SOAP stand-in that plays the mode
        on the wire itself)."""
        self.config = config
        self.outages = outages
        self.rut = config.get("DGI_RUT", "214844360018")
        self.answer_delay = timedelta(seconds=float(config.get("DGI_SIMULATOR_ANSWER_SECONDS", 2)))
        self.reject_marker = config.get("DGI_SIMULATOR_REJECT_MARKER", "")

    # --- envelopes -----------------------------------------------------------------------------------

    def _mode(self, operation: str) -> str:
        return outage.simulate(self.config, operation) if self.outages else "normal"

    def send_envelope(self, envelope_xml: bytes, *, file_name: str, credentials: Credentials) -> bytes:
        self._mode("EFACRECEPCIONSOBRE")
        digest = hashlib.sha256(envelope_xml).hexdigest()
        now = datetime.now(UTC).replace(microsecond=0)  # stored in UTC; documents show Montevideo's time
        with db.write_transaction() as session:
            root, problem = self._read_envelope(envelope_xml)
            idemisor = int(_text(root, "d:Caratula/d:Idemisor") or 0) if root is not None else 0
            rut = _text(root, "d:Caratula/d:RUCEmisor") if root is not None else credentials.rut
            known = session.scalar(
                select(SimEnvelope).where(SimEnvelope.rut_emisor == rut, SimEnvelope.idemisor == idemisor)
            )
            if known is not None and problem is None:
                if known.sha256 == digest:  # the same envelope again: DGI's first answer, nothing counted twice
                    known.deliveries += 1
                    return known.ack_xml
                problem = motive("S08", f"El sobre {idemisor} ya fue recibido con otro contenido.")
            token = base64.b64encode(secrets.token_bytes(24)).decode()
            record = SimEnvelope(
                rut_emisor=rut or "",
                idemisor=idemisor,
                sha256=digest,
                token=token,
                ack_xml=b"",
                ready_at=now + self.answer_delay,
                received_at=now,
            )
            if problem is None:
                session.add(record)
                session.flush()
                assert root is not None  # no problem: the envelope was read
                verdicts = self._judge(session, root, record)
            count = len(root.findall("d:CFE", namespaces=NS)) if root is not None else 0
            ack = acks.ack_sobre_document(
                rut_dgi=self.rut,
                rut_emisor=rut or credentials.rut,
                id_respuesta=record.id or 0,
                file_name=file_name,
                received=now.astimezone(MONTEVIDEO),
                idemisor=idemisor,
                id_receptor=record.id or 0,
                count=count,
                estado="AS" if problem is None else ("BA" if problem["codigo"] in ("S01", "S07") else "BS"),
                motives=[] if problem is None else [problem],
                token=record.token if problem is None else None,
                query_after=record.ready_at.astimezone(MONTEVIDEO),
            )
            record.ack_xml = self._sign(session, ack)
            if problem is None:
                record.answer_xml = self._sign(
                    session,
                    acks.ack_cfe_document(
                        rut_dgi=self.rut,
                        rut_emisor=record.rut_emisor,
                        id_respuesta=record.id,
                        file_name=file_name,
                        received=now.astimezone(MONTEVIDEO),
                        idemisor=idemisor,
                        id_receptor=record.id,
                        verdicts=verdicts,
                        answered=record.ready_at.astimezone(MONTEVIDEO),
                    ),
                )
            return record.ack_xml

    def _read_envelope(self, data: bytes) -> tuple[etree._Element | None, dict | None]:
        """The parsed envelope and the first envelope-level problem (None when DGI would receive it)."""
        if len(data) > MAX_BYTES:
            return None, motive("S07")
        try:
            root = parse_untrusted(data, max_bytes=MAX_BYTES).getroot()
        except XmlInputError as exc:
            return None, motive("S01", exc.message if hasattr(exc, "message") else str(exc))
        errors = validate_xml(data, "EnvioCFE.xsd")
        if errors:
            return root, motive("S04", "; ".join(errors)[:500])
        cert_b64 = _text(root, "d:Caratula/d:X509Certificate")
        rut = _text(root, "d:Caratula/d:RUCEmisor")
        try:
            cert = x509.load_der_x509_certificate(_b64(cert_b64))
        except ValueError:
            return root, motive("S03", "El certificado del sobre no se puede leer.")
        now = datetime.now(UTC)
        if not cert.not_valid_before_utc <= now <= cert.not_valid_after_utc:
            return root, motive("S03", "El certificado del sobre no está vigente.")
        if _text(root, "d:Caratula/d:RutReceptor") != self.rut or f"RUC{rut}" not in _serials(cert):
            return root, motive("S02")
        cfes = root.findall("d:CFE", namespaces=NS)
        if int(_text(root, "d:Caratula/d:CantCFE") or 0) != len(cfes):
            return root, motive("S05")
        for cfe in cfes:
            embedded = cfe.findtext("ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate", namespaces=NS)
            if embedded and _b64(embedded) != _b64(cert_b64):
                return root, motive("S06")
        return root, None

    def _judge(self, session, root: etree._Element, record: SimEnvelope) -> list[acks.CfeVerdict]:
        cert_pem = _pem(_text(root, "d:Caratula/d:X509Certificate"))
        verdicts = []
        for ordinal, cfe in enumerate(root.findall("d:CFE", namespaces=NS), start=1):
            found, motives = simchecks.check_cfe(session, cfe, root, cert_pem, record.rut_emisor, self.reject_marker)
            estado = "BE" if motives else "AE"
            if is_cfc(found.tipo_cfe):  # DGI never rejects a CFC: it observes it (CE, C03-C15)
                motives = cfc.observations(motives)
                estado = "CE" if motives else "AE"
            verdicts.append(
                acks.CfeVerdict(
                    ordinal=ordinal,
                    tipo_cfe=found.tipo_cfe,
                    serie=found.serie,
                    nro=found.nro,
                    estado=estado,
                    motives=motives,
                    fecha=found.fecha,
                    tmst=found.tmst,
                )
            )
            seen = session.scalar(
                select(SimCfe).where(
                    SimCfe.rut_emisor == record.rut_emisor,
                    SimCfe.tipo_cfe == found.tipo_cfe,
                    SimCfe.serie == found.serie,
                    SimCfe.nro == found.nro,
                )
            )
            if seen is not None and is_cfc(found.tipo_cfe) and seen.estado == "CE":
                seen.estado, seen.envelope_id = estado, record.id  # an observed CFC, corrected and sent again
            elif not any(m["codigo"] == "E02" for m in motives) and seen is None:
                session.add(
                    SimCfe(
                        rut_emisor=record.rut_emisor,
                        tipo_cfe=found.tipo_cfe,
                        serie=found.serie,
                        nro=found.nro,
                        envelope_id=record.id,
                        estado=estado,
                    )
                )
                session.flush()
        return verdicts

    def query_envelope(self, id_receptor: str, token: str, *, credentials: Credentials) -> bytes | None:
        if self._mode("EFACCONSULTARESTADOENVIO") == "sin_respuestas":
            return None  # DGI's "not processed yet", for as long as the mode lasts
        with db.new_session() as session:
            record = session.get(SimEnvelope, int(id_receptor))
            if record is None or not secrets.compare_digest(record.token, token) or record.answer_xml is None:
                raise DgiPermanentError(_("DGI no reconoce el token del sobre."), code="dgi_token_desconocido")
            if datetime.now(UTC) < record.ready_at:
                return None
            return record.answer_xml

    def query_cfe_state(self, rut: str, tipo_cfe: int, serie: str, nro: int, *, credentials: Credentials) -> CfeState:
        """ws_consultas EFACCONSULTARESTADOCFE from what the simulator received: the verdict its ACKCFE gave the
        CFE (motives included), `en_proceso` until that answer is ready, `no_recibido` for a CFE it never got."""
        judging = self._mode("EFACCONSULTARESTADOCFE") == "sin_respuestas"  # as EFACCONSULTARESTADOENVIO
        with db.new_session() as session:
            seen = session.scalar(
                select(SimCfe).where(
                    SimCfe.rut_emisor == rut, SimCfe.tipo_cfe == tipo_cfe, SimCfe.serie == serie, SimCfe.nro == nro
                )
            )
            if seen is None:
                return CfeState("no_recibido")
            record = session.get_one(SimEnvelope, seen.envelope_id)
            if judging or datetime.now(UTC) < record.ready_at or record.answer_xml is None:
                return CfeState("en_proceso")
            for verdict in acks.read_ack_cfe(record.answer_xml):
                if (verdict.tipo_cfe, verdict.serie, verdict.nro) == (tipo_cfe, serie, nro):
                    return CfeState(verdict.estado, verdict.motives)  # type: ignore[arg-type]  # DGI's AE/BE/CE
            return CfeState(seen.estado, [])  # type: ignore[arg-type]  # as above

    # --- daily reports -------------------------------------------------------------------------------

    def send_report(self, report_xml: bytes, *, file_name: str, credentials: Credentials) -> bytes:
        self._mode("EFACRECEPCIONREPORTE")
        digest = hashlib.sha256(report_xml).hexdigest()
        now = datetime.now(MONTEVIDEO).replace(microsecond=0)
        with db.write_transaction() as session:
            root: etree._Element | None
            problem: dict | None
            try:
                root = parse_untrusted(report_xml).getroot()
            except XmlInputError as exc:
                root, problem = None, motive("R01", str(exc))
            else:
                problem = self._report_problem(session, report_xml, root, now.date())
            rut = _text(root, "d:Caratula/d:RUCEmisor") if root is not None else credentials.rut
            fecha = (
                date.fromisoformat(_required(root, "d:Caratula/d:FechaResumen"))
                if root is not None and problem is None
                else None
            )
            sec = int(_text(root, "d:Caratula/d:SecEnvio") or 0) if root is not None else 0
            if fecha is not None:
                same = session.scalar(
                    select(SimReport).where(
                        SimReport.rut_emisor == rut, SimReport.fecha == fecha, SimReport.sec_envio == sec
                    )
                )
                if same is not None and same.sha256 == digest:
                    return same.ack_xml
                if same is not None:
                    problem = motive("R05", f"La secuencia {sec} del {fecha:%d/%m/%Y} ya fue recibida.")
            estado = "AR" if problem is None else ("BA" if problem["codigo"] == "R01" else "BR")
            received_id = (session.scalar(select(func.max(SimReport.id))) or 0) + 1
            ack = self._sign(
                session,
                acks.ack_report_document(
                    rut_dgi=self.rut,
                    rut_emisor=rut or credentials.rut,
                    file_name=file_name,
                    received=now,
                    id_emisor=sec,
                    id_receptor=received_id,
                    estado=estado,
                    motives=[] if problem is None else [problem],
                ),
            )
            if problem is None:
                session.add(
                    SimReport(
                        id=received_id,
                        rut_emisor=rut,
                        fecha=fecha,
                        sec_envio=sec,
                        sha256=digest,
                        estado=estado,
                        ack_xml=ack,
                    )
                )
            return ack

    def _report_problem(self, session, data: bytes, root: etree._Element, today: date) -> dict | None:
        errors = validate_xml(data, "ReporteDiarioCFE.xsd")
        if errors:
            return motive("R04", "; ".join(errors)[:500])
        rut = _text(root, "d:Caratula/d:RUCEmisor")
        embedded = root.findtext("ds:Signature/ds:KeyInfo/ds:X509Data/ds:X509Certificate", namespaces=NS)
        if not embedded or not verify_signature(data):
            return motive("R03")
        if f"RUC{rut}" not in _serials(x509.load_der_x509_certificate(_b64(embedded))):
            return motive("R02")
        fecha = date.fromisoformat(_required(root, "d:Caratula/d:FechaResumen"))
        if fecha > today:
            return motive("R06")
        sec = int(_required(root, "d:Caratula/d:SecEnvio"))
        received = (
            session.scalar(
                select(func.max(SimReport.sec_envio)).where(SimReport.rut_emisor == rut, SimReport.fecha == fecha)
            )
            or 0
        )
        if sec not in (received, received + 1) or sec < 1:
            return motive("R05", f"Se esperaba la secuencia {received + 1}.")
        return None

    # --- the simulator's own signature ---------------------------------------------------------------

    def signing_key(self, session) -> SimKey:
        """The simulator's key and certificate, made on first use (the demo data makes them up front)."""
        key = session.get(SimKey, 1)
        if key is None:
            key_pem, cert_pem = generate_self_signed(self.rut, "DGI (simulador de desarrollo)", days=3650)
            key = SimKey(id=1, key_pem=field_cipher().encrypt(key_pem), cert_pem=cert_pem)
            session.add(key)
            session.flush()
        return key

    def _sign(self, session, document: etree._Element) -> bytes:
        key = self.signing_key(session)
        return shared_signer(field_cipher().decrypt(key.key_pem), key.cert_pem).sign(document).xml


def _text(root: etree._Element | None, path: str) -> str | None:
    if root is None:
        return None
    value = root.findtext(path, namespaces=NS)
    return value.strip() if value is not None else None


def _required(root: etree._Element, path: str) -> str:
    """The text of an element the XSD requires (the document was validated before this is read)."""
    value = _text(root, path)
    assert value is not None, path
    return value


def _b64(value: str | None) -> bytes:
    try:
        return base64.b64decode("".join((value or "").split()), validate=True)
    except ValueError:
        return b""


def _pem(cert_b64: str | None) -> bytes:
    return x509.load_der_x509_certificate(_b64(cert_b64)).public_bytes(Encoding.PEM)


def _serials(cert: x509.Certificate) -> set[str]:
    # serialNumber is a PrintableString: its value is text (bytes are for the few bit-string attributes)
    return {str(attr.value) for attr in cert.subject.get_attributes_for_oid(x509.NameOID.SERIAL_NUMBER)}
