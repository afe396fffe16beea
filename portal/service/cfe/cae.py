"""CAE files: DGI's signed authorisation of a numbering range for one CFE type and serie (CAE.xsd 1.44.2).

    <CAE version="1.0"><TmstFrma/><DA><RucE/><TCFE/><Serie/><DNro/><HNro/><TA/><NA/><FA/><FVD/>
    <CAEEspecial/>?<CausalCAEEsp/>?</DA><ds:Signature/></CAE>

`parse_cae(strict=True)` validates against CAE.xsd when the XSD folder is present (so the file must be
signed, as DGI's are). DGI's 2012 sample files predate <TA> and fail the current XSD; `strict=False`
reads them anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

from lxml import etree

from portal.service.cfe.emission import Numbering
from portal.service.cfe.errors import CaeError, XmlInputError
from portal.service.cfe.schema import CAE_SCHEMA, schema_available, validate_xml
from portal.service.cfe.signing import CfeSigner
from portal.service.cfe.xml import CFE_NS, format_timestamp
from portal.service.cfe.xmlsafe import parse_untrusted
from portal.service.platform.i18n import Text, _

_Q = f"{{{CFE_NS}}}"


@dataclass(frozen=True)
class CaeRange:
    """One CAE: who may issue which type and serie, which numbers, until when."""

    rut: str
    tipo_cfe: int
    serie: str
    dnro: int
    hnro: int
    cae_id: int
    fecha_autorizacion: date
    vencimiento: date
    tipo_autorizacion: str | None = "E"
    cae_especial: int | None = None
    causal_cae_esp: int | None = None
    tmst_firma: datetime | None = None

    def contains(self, nro: int) -> bool:
        """Whether `nro` is inside the authorised range."""
        return self.dnro <= nro <= self.hnro

    def numbering(self, nro: int) -> Numbering:
        """The CAEData of a receipt numbered `nro` under this CAE."""
        if not self.contains(nro):
            raise ValueError(f"El número {nro} no está en el rango {self.dnro}-{self.hnro}.")
        return Numbering.in_range(self, nro)


def _before_2013(root) -> bool:
    """DGI's CAE files before 2013 (CAE_v1.1.xsd, as its 2012 samples): the DA group has the authorization's number
    (NA) but no authorization type (TA), which CAE.xsd requires before it."""
    da = root.find(_Q + "DA")
    return da is not None and da.find(_Q + "NA") is not None and da.find(_Q + "TA") is None


def parse_cae(xml_bytes: bytes, *, strict: bool = True) -> CaeRange:
    """Read a CAE file safely (no DOCTYPE, no entities, no network); CaeError when it is not a CAE."""
    try:
        tree = parse_untrusted(xml_bytes)
    except XmlInputError as exc:
        # XmlInputError's catalogue message, libxml2's English already said in words, with line and column
        raise CaeError(_("El archivo de CAE no se puede leer. {ours}", ours=exc.text)) from None
    root = tree.getroot()
    if root.tag != _Q + "CAE":
        raise CaeError(_("El elemento raíz debe ser CAE de {ns}.", ns=CFE_NS))
    if strict and _before_2013(root):
        raise CaeError(
            _(
                "El archivo es un CAE del formato que DGI usaba antes de 2013 (sin el tipo de autorización, TA), "
                "que ya no vale para emitir: descargá el CAE vigente desde los servicios en línea de DGI."
            ),
            old_format=True,
        )
    if strict and schema_available(CAE_SCHEMA):
        errors = validate_xml(xml_bytes, CAE_SCHEMA)  # the file's own line numbers
        if errors:
            raise CaeError(
                _(
                    "El archivo no sigue el formato de CAE de DGI (CAE.xsd, {problem}).",
                    problem=_schema_problem(errors[0]),
                )
            )
    da = root.find(_Q + "DA")
    if da is None:
        raise CaeError(_("Falta el grupo DA del CAE."))

    def optional(tag: str) -> str | None:
        value = da.findtext(_Q + tag)
        return value.strip() if value else None

    def text(tag: str) -> str:
        value = optional(tag)
        if not value:
            raise CaeError(_("Falta {tag} en el CAE.", tag=tag))
        return value

    try:
        optional_int = {tag: int(v) if (v := optional(tag)) else None for tag in ("CAEEspecial", "CausalCAEEsp")}
        stamp = root.findtext(_Q + "TmstFrma")
        cae = CaeRange(
            rut=text("RucE"),
            tipo_cfe=int(text("TCFE")),
            serie=text("Serie"),
            dnro=int(text("DNro")),
            hnro=int(text("HNro")),
            cae_id=int(text("NA")),
            fecha_autorizacion=date.fromisoformat(text("FA")),
            vencimiento=date.fromisoformat(text("FVD")),
            tipo_autorizacion=optional("TA"),
            cae_especial=optional_int["CAEEspecial"],
            causal_cae_esp=optional_int["CausalCAEEsp"],
            tmst_firma=datetime.fromisoformat(stamp.strip()) if stamp else None,
        )
    except ValueError:
        raise CaeError(_("El CAE tiene un número o una fecha que no se puede leer.")) from None
    if cae.dnro > cae.hnro:
        raise CaeError(_("El CAE tiene DNro mayor que HNro."))
    return cae


def build_cae_xml(cae: CaeRange, signer: CfeSigner | None = None) -> bytes:
    """A CAE file for demo data and tests, signed with `signer` when given (unsigned fails CAE.xsd)."""
    # None is lxml's default namespace; lxml-stubs type nsmap's keys as str
    root = etree.Element(_Q + "CAE", nsmap={None: CFE_NS}, version="1.0")  # type: ignore[dict-item]
    stamp = cae.tmst_firma or datetime.combine(cae.fecha_autorizacion, datetime.min.time())
    etree.SubElement(root, _Q + "TmstFrma").text = format_timestamp(stamp)
    da = etree.SubElement(root, _Q + "DA")
    values = [
        ("RucE", cae.rut),
        ("TCFE", cae.tipo_cfe),
        ("Serie", cae.serie),
        ("DNro", cae.dnro),
        ("HNro", cae.hnro),
        ("TA", cae.tipo_autorizacion or "E"),
        ("NA", cae.cae_id),
        ("FA", cae.fecha_autorizacion.isoformat()),
        ("FVD", cae.vencimiento.isoformat()),
        ("CAEEspecial", cae.cae_especial),
        ("CausalCAEEsp", cae.causal_cae_esp),
    ]
    for tag, value in values:
        if value is not None:
            etree.SubElement(da, _Q + tag).text = str(value)
    if signer is not None:
        return signer.sign(root).xml
    return etree.tostring(root.getroottree(), encoding="UTF-8", xml_declaration=True)


_ELEMENT = re.compile(r"Element '(?:\{[^}]*\})?([\w.-]+)'")
_ATTRIBUTE = re.compile(r"attribute '([\w.-]+)'")
_EXPECTED = re.compile(r"Expected is (?:one of )?\( ?(?:\{[^}]*\})?([\w.-]+)")


def _schema_problem(error: str) -> str:
    """libxml2's English ("línea 2: Element '{ns}NA': This element is not expected. Expected is ( {ns}TA ).")
    said in words with the line and the elements it names, as a catalogue message (each reader's language)."""
    line_text, _sep, detail = error.partition(": ")
    # validate_xml's errors are catalogue messages that keep their line; a plain one says it in Spanish
    line: object = (
        error.params["line"] if isinstance(error, Text) and "line" in error.params else line_text.removeprefix("línea ")
    )
    element, expected = _ELEMENT.search(detail), _EXPECTED.search(detail)
    attribute = _ATTRIBUTE.search(detail)
    if element and attribute and "required but missing" in detail:
        return _(
            "línea {line}: al elemento {element} le falta el atributo {attribute}",
            line=line,
            element=element.group(1),
            attribute=attribute.group(1),
        )
    if element and expected and "Missing child" in detail:
        return _(
            "línea {line}: al elemento {element} le falta {expected}",
            line=line,
            element=element.group(1),
            expected=expected.group(1),
        )
    if element and "is not a valid value" in detail:
        return _("línea {line}: el valor de {element} no es válido", line=line, element=element.group(1))
    if element and expected:
        return _(
            "línea {line}: en lugar de {element} se esperaba {expected}",
            line=line,
            element=element.group(1),
            expected=expected.group(1),
        )
    if element:
        return _("línea {line}: el elemento {element} no es válido", line=line, element=element.group(1))
    return _("línea {line}", line=line)
