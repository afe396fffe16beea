"""DGI's acknowledgement documents: ACKSobre, ACKCFE and ACKRepDiario (ACKSobre.xsd, ACKCFE_DGI.xsd,
ACKRepDiario.xsd). The simulator builds them (`*_document`); the service reads whatever adapter answered
(`read_*`), so the real DGI's answers and the simulator's go through the same code."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from lxml import etree
from lxml.builder import ElementMaker

from portal.service.cfe.errors import XmlInputError
from portal.service.cfe.xmlsafe import parse_untrusted
from portal.service.envios.states import motive
from portal.service.platform.i18n import _

NS = "http://cfe.dgi.gub.uy"
_E = ElementMaker(namespace=NS, nsmap={None: NS})


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _motives(tag: str, motives: list[dict]) -> list[etree._Element]:
    return [
        _E(tag, _E.Motivo(m["codigo"]), _E.Glosa(m["glosa"]), *([_E.Detalle(m["detalle"])] if m.get("detalle") else []))
        for m in motives
    ]


def ack_sobre_document(
    *,
    rut_dgi: str,
    rut_emisor: str,
    id_respuesta: int,
    file_name: str,
    received: datetime,
    idemisor: int,
    id_receptor: int,
    count: int,
    estado: str,
    motives: list[dict],
    token: str | None,
    query_after: datetime | None,
) -> etree._Element:
    """An unsigned ACKSobre (the caller signs it)."""
    detalle = _E.Detalle(_E.Estado(estado), *_motives("MotivosRechazo", motives))
    if token:
        assert query_after is not None, "DGI's Token goes with the Fechahora to ask after"
        detalle.append(_E.ParamConsulta(_E.Token(token), _E.Fechahora(_stamp(query_after))))
    return _E.ACKSobre(
        _E.Caratula(
            _E.RUCReceptor(rut_dgi),
            _E.RUCEmisor(rut_emisor),
            _E.IDRespuesta(str(id_respuesta)),
            _E.NomArch(file_name[:40]),
            _E.FecHRecibido(_stamp(received)),
            _E.IDEmisor(str(idemisor)),
            _E.IDReceptor(str(id_receptor)),
            _E.CantidadCFE(str(count)),
            _E.Tmst(_stamp(received)),
        ),
        detalle,
        version="1.0",
    )


@dataclass(frozen=True)
class CfeVerdict:
    """DGI's answer on one CFE of an envelope."""

    ordinal: int
    tipo_cfe: int | None
    serie: str | None
    nro: int | None
    estado: str  # AE | BE | CE | FE
    motives: list[dict] = field(default_factory=list)
    fecha: str | None = None
    tmst: str | None = None


def ack_cfe_document(
    *,
    rut_dgi: str,
    rut_emisor: str,
    id_respuesta: int,
    file_name: str,
    received: datetime,
    idemisor: int,
    id_receptor: int,
    verdicts: list[CfeVerdict],
    answered: datetime,
):
    """An unsigned ACKCFE with one ACKCFE_Det per CFE."""
    accepted = sum(v.estado == "AE" for v in verdicts)
    rejected = sum(v.estado == "BE" for v in verdicts)
    details = []
    for v in verdicts:
        det = _E.ACKCFE_Det(_E.Nro_ordinal(str(v.ordinal)))
        if v.tipo_cfe is not None:
            det.extend([_E.TipoCFE(str(v.tipo_cfe)), _E.Serie(v.serie), _E.NroCFE(str(v.nro))])
            if v.fecha:
                det.append(_E.FechaCFE(v.fecha))
            if v.tmst:
                det.append(_E.TmstCFE(v.tmst))
        det.append(_E.Estado(v.estado))
        det.extend(_motives("MotivosRechazoCF", v.motives))
        details.append(det)
    return _E.ACKCFE(
        _E.Caratula(
            _E.RUCReceptor(rut_dgi),
            _E.RUCEmisor(rut_emisor),
            _E.IDRespuesta(str(id_respuesta)),
            _E.NomArch(file_name[:40]),
            _E.FecHRecibido(_stamp(received)),
            _E.IDEmisor(str(idemisor)),
            _E.IDReceptor(str(id_receptor)),
            _E.CantenSobre(str(len(verdicts))),
            _E.CantResponden(str(len(verdicts))),
            _E.CantCFEAceptados(str(accepted)),
            _E.CantCFERechazados(str(rejected)),
            _E.CantCFCAceptados("0"),
            _E.CantCFCObservados("0"),
            _E.CantOtrosRechazados("0"),
            _E.Tmst(_stamp(answered)),
        ),
        *details,
        version="1.0",
    )


def ack_report_document(
    *,
    rut_dgi: str,
    rut_emisor: str,
    file_name: str,
    received: datetime,
    id_emisor: int,
    id_receptor: int,
    estado: str,
    motives: list[dict],
) -> etree._Element:
    """An unsigned ACKRepDiario."""
    return _E.ACKRepDiario(
        _E.Caratula(
            _E.RUCReceptor(rut_dgi),
            _E.RUCEmisor(rut_emisor),
            _E.NomArch(file_name[:40]),
            _E.FecHRecibido(_stamp(received)),
            _E.IDEmisor(str(id_emisor)),
            _E.IDReceptor(str(id_receptor)),
            _E.Tmst(_stamp(received)),
        ),
        _E.Detalle(_E.Estado(estado), *_motives("MotivosRechazo", motives)),
        version="1.0",
    )


# --- reading DGI's answers ------------------------------------------------------------------------------


class AckUnreadable(ValueError):
    """The answer is not the acknowledgement document we expected. `message` says why (a catalogue message)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _root(data: bytes, tag: str) -> etree._Element:
    try:
        root = parse_untrusted(data).getroot()
    except Exception as exc:  # any parse failure: the answer is unusable, the caller retries
        reason = str(exc) if isinstance(exc, XmlInputError) else "no es un XML que se pueda leer."
        why = reason[0].lower() + reason[1:]
        raise AckUnreadable(_("La respuesta de DGI no se puede leer: {motivo}", motivo=why)) from exc
    if root.tag != f"{{{NS}}}{tag}":
        raise AckUnreadable(_("DGI respondió {raiz} en lugar de {esperado}.", raiz=root.tag, esperado=tag))
    return root


def _text(el: etree._Element, path: str) -> str | None:
    value = el.findtext(path, namespaces={"d": NS})
    return value.strip() if value is not None else None


def _detalle(root: etree._Element, tag: str) -> etree._Element:
    detalle = root.find("d:Detalle", namespaces={"d": NS})
    if detalle is None:
        raise AckUnreadable(_("DGI respondió un {documento} sin Detalle.", documento=tag))
    return detalle


def _read_motives(parent: etree._Element, tag: str) -> list[dict]:
    return [
        motive(_text(m, "d:Motivo") or "", _text(m, "d:Detalle"))
        for m in parent.findall(f"d:{tag}", namespaces={"d": NS})
    ]


@dataclass(frozen=True)
class EnvelopeAck:
    estado: str  # AS | BS | BA
    motives: list[dict]
    id_receptor: str | None
    token: str | None
    query_after: str | None


def read_ack_sobre(data: bytes) -> EnvelopeAck:
    root = _root(data, "ACKSobre")
    detalle = _detalle(root, "ACKSobre")
    return EnvelopeAck(
        estado=_text(root, "d:Detalle/d:Estado") or "",
        motives=_read_motives(detalle, "MotivosRechazo"),
        id_receptor=_text(root, "d:Caratula/d:IDReceptor"),
        token=_text(root, "d:Detalle/d:ParamConsulta/d:Token"),
        query_after=_text(root, "d:Detalle/d:ParamConsulta/d:Fechahora"),
    )


def read_ack_cfe(data: bytes) -> list[CfeVerdict]:
    root = _root(data, "ACKCFE")
    verdicts = []
    for det in root.findall("d:ACKCFE_Det", namespaces={"d": NS}):
        tipo, nro, ordinal = _text(det, "d:TipoCFE"), _text(det, "d:NroCFE"), _text(det, "d:Nro_ordinal")
        if not ordinal:
            raise AckUnreadable(_("DGI respondió un ACKCFE_Det sin Nro_ordinal."))
        verdicts.append(
            CfeVerdict(
                ordinal=int(ordinal),
                tipo_cfe=int(tipo) if tipo else None,
                serie=_text(det, "d:Serie"),
                nro=int(nro) if nro else None,
                estado=_text(det, "d:Estado") or "",
                motives=_read_motives(det, "MotivosRechazoCF"),
            )
        )
    return verdicts


def read_ack_report(data: bytes) -> tuple[str, list[dict]]:
    root = _root(data, "ACKRepDiario")
    detalle = _detalle(root, "ACKRepDiario")
    return _text(root, "d:Detalle/d:Estado") or "", _read_motives(detalle, "MotivosRechazo")
