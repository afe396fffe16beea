"""The `<Data>` string of DGI's WS_PersonaGetActEmpresarial answer: XML `WS_PersonaActEmpresarial`, or the
error form `<Respuesta><Codigo>..</Codigo><Descripcion>..</Descripcion><Detalle>..</Detalle></Respuesta>`.

Shape (../shared/domain/CFE-URUGUAY.md section 9; the element order and the fields we do not model, such as
Local_Fec_Canc "0000-00-00", follow DGI's sample answer for RUT 219000090011):

    WS_PersonaActEmpresarial
      RUT, Denominacion, NombreFantasia, TipoEntidad, DescripcionTipoEntidad, EstadoActividad,
      FechaInicioActivdad (sic; FechaInicioActividad is read too)
      WS_DomFiscalLocPrincipal/WS_PersonaActEmpresarial.WS_DomFiscalLocPrincipalItem
        Calle_Nom, Dom_Pta_Nro, Dom_Ap_Nro, Loc_Nom, Dpto_Id, Dpto_Nom, Dom_Pst_Cod ("0" = none),
        Contactos/WS_Domicilio.WS_DomicilioItem.Contacto {TipoCtt_Id, TipoCtt_Des, DomCtt_Val}
      WS_PersonaActividades/WS_PersonaActEmpresarial.WS_PersonaActividadesItem {GiroCod, GiroNom, GiroFec_Ini}

Whether DGI's inner XML carries a namespace is not known, so the reader ignores namespaces and the writer uses
none. Empty values are empty elements; "0000-00-00" is GeneXus' empty date.
"""

from __future__ import annotations

import re
from datetime import date

from lxml import etree

from portal.service.platform.i18n import _

from .errors import DgiUnavailable, TaxpayerNotFound
from .models import ACTIVITY_STATES, Activity, Address, Contact, Entity

# DGI's test service answers 14 "RUT no disponible para pruebas" for a RUT it does not know. Other codes are
# not documented publicly; they are reported as DgiUnavailable with their code.
NOT_FOUND_CODES = frozenset({"14"})
_CONTACT_IDS = {"CORREO ELECTRONICO": "1", "TELEFONO FIJO": "5", "TELEFONO CELULAR": "6"}
_ADDRESS_PATH = "{*}WS_DomFiscalLocPrincipal/{*}WS_PersonaActEmpresarial.WS_DomFiscalLocPrincipalItem"
_ACTIVITY_PATH = "{*}WS_PersonaActividades/{*}WS_PersonaActEmpresarial.WS_PersonaActividadesItem"
_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)


# ---------------------------------------------------------------------------------------------- writing
def _add(parent: etree._Element, name: str, value: object = "") -> etree._Element:
    child = etree.SubElement(parent, name)
    child.text = "" if value is None else str(value)
    return child


def build_persona_xml(entity: Entity) -> str:
    """The `<Data>` text DGI answers for `entity` (which must carry its address and activities)."""
    root = etree.Element("WS_PersonaActEmpresarial")
    fields: tuple[tuple[str, object], ...] = (
        ("RUT", entity.rut),
        ("Denominacion", entity.denominacion),
        ("NombreFantasia", entity.nombre_fantasia),
        ("TipoEntidad", entity.tipo_entidad),
        ("DescripcionTipoEntidad", entity.tipo_entidad_descripcion),
        ("EstadoActividad", entity.estado_actividad),
        ("FechaInicioActivdad", entity.fecha_inicio_actividad or "0000-00-00"),
    )
    for name, value in fields:
        _add(root, name, value)
    places = _add(root, "WS_DomFiscalLocPrincipal")
    address = entity.domicilio_fiscal
    if address is not None:
        item = _add(places, "WS_PersonaActEmpresarial.WS_DomFiscalLocPrincipalItem")
        for name, value in (
            ("Local_Sec_Nro", 1),
            ("Local_Nom_Fnt", entity.nombre_fantasia),
            ("TipoLocal_Id", 1),
            ("TipoLocal_Dsc", "PRINCIPAL"),
            ("Local_Fec_Ini", entity.fecha_inicio_actividad or "0000-00-00"),
            ("Local_Fec_Canc", "0000-00-00"),
            ("TipoDom_Id", 2),
            ("TipoDom_Des", "FISCAL"),
            ("CalOcup_id", 2),
            ("Calocup_Des", "ARRENDATARIO"),
            ("TerCod_Id", 0),
            ("Tercod_Des", ""),
            ("Calle_id", 0),
            ("Calle_Nom", address.calle),
            ("Dom_Pta_Nro", address.numero),
            ("Dom_Bis_Flg", ""),
            ("Dom_Ap_Nro", address.apartamento),
            ("Loc_Id", 0),
            ("Loc_Nom", address.localidad),
            ("Dpto_Id", address.departamento_id),
            ("Dpto_Nom", address.departamento_nombre),
            ("Dom_Pst_Cod", address.codigo_postal or 0),
            ("Dom_Coment", ""),
            ("Dom_Err_Cod", "N"),
        ):
            _add(item, name, value)
        contacts = _add(item, "Contactos")
        for contact in address.contactos:
            node = _add(contacts, "WS_Domicilio.WS_DomicilioItem.Contacto")
            _add(node, "TipoCtt_Id", _CONTACT_IDS.get(contact.tipo, "0"))
            _add(node, "TipoCtt_Des", contact.tipo)
            _add(node, "DomCtt_Val", contact.valor)
        _add(item, "Complementos")
    activities = _add(root, "WS_PersonaActividades")
    for activity in entity.actividades or ():
        node = _add(activities, "WS_PersonaActEmpresarial.WS_PersonaActividadesItem")
        _add(node, "GiroCod", activity.giro_cod)
        _add(node, "GiroNom", activity.giro_nom)
        _add(node, "GiroFec_Ini", activity.fecha_inicio or "0000-00-00")
    return etree.tostring(root, encoding="unicode")


def build_error_xml(codigo: str, descripcion: str, detalle: str) -> str:
    """DGI's error form of `<Data>`."""
    root = etree.Element("Respuesta")
    _add(root, "Codigo", codigo)
    _add(root, "Descripcion", descripcion)
    _add(root, "Detalle", detalle)
    return etree.tostring(root, encoding="unicode")


# ---------------------------------------------------------------------------------------------- reading
def _text(parent: etree._Element, name: str) -> str | None:
    node = parent.find(f"{{*}}{name}")
    text = (node.text or "").strip() if node is not None else ""
    return text or None


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if value else None
    except ValueError:  # "0000-00-00", GeneXus' empty date, and anything unreadable
        return None


def _address(item: etree._Element) -> Address:
    postal = _text(item, "Dom_Pst_Cod")
    dpto = _text(item, "Dpto_Id")
    contacts = tuple(
        Contact(_text(node, "TipoCtt_Des") or "", _text(node, "DomCtt_Val") or "")
        for node in item.iterfind("{*}Contactos/{*}WS_Domicilio.WS_DomicilioItem.Contacto")
        if _text(node, "DomCtt_Val")
    )
    return Address(
        _text(item, "Calle_Nom") or "",
        _text(item, "Dom_Pta_Nro"),
        _text(item, "Dom_Ap_Nro"),
        _text(item, "Loc_Nom") or "",
        int(dpto) if dpto and dpto.isdigit() else None,
        _text(item, "Dpto_Nom") or "",
        None if postal in (None, "0") else postal,
        contacts,
    )


def parse_data(data: str) -> Entity:
    """The Entity in a `<Data>` string, or the error it reports (TaxpayerNotFound / DgiUnavailable)."""
    # `data` is already text: drop a declaration, whose encoding would no longer be true, and parse the text.
    text = _DECLARATION.sub("", data, count=1)
    try:
        root = etree.fromstring(text, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise DgiUnavailable(_("DGI respondió un XML ilegible."), code="dgi_bad_answer") from exc
    if root.getroottree().docinfo.doctype:  # type: ignore[union-attr]  # lxml-stubs lack DocInfo.doctype
        raise DgiUnavailable(_("DGI respondió un XML con DOCTYPE."), code="dgi_bad_answer")
    error = root if etree.QName(root).localname == "Respuesta" else root.find(".//{*}Respuesta")
    if error is not None:
        codigo = _text(error, "Codigo") or "?"
        detalle = _text(error, "Detalle") or _text(error, "Descripcion") or "sin detalle"
        if codigo in NOT_FOUND_CODES:
            raise TaxpayerNotFound(_("DGI: {detalle}", detalle=detalle))
        raise DgiUnavailable(
            _("DGI respondió el error {codigo}: {detalle}", codigo=codigo, detalle=detalle), code=f"dgi_error_{codigo}"
        )
    rut, denominacion = _text(root, "RUT"), _text(root, "Denominacion")
    if etree.QName(root).localname != "WS_PersonaActEmpresarial" or not rut or not denominacion:
        raise DgiUnavailable(_("La respuesta de DGI no tiene los datos esperados."), code="dgi_bad_answer")
    state = _text(root, "EstadoActividad") or ""
    item = root.find(_ADDRESS_PATH)
    started = _text(root, "FechaInicioActivdad") or _text(root, "FechaInicioActividad")
    activities = tuple(
        Activity(_text(node, "GiroCod") or "", _text(node, "GiroNom") or "", _date(_text(node, "GiroFec_Ini")))
        for node in root.iterfind(_ACTIVITY_PATH)
    )
    return Entity(
        rut=rut,
        denominacion=denominacion,
        nombre_fantasia=_text(root, "NombreFantasia"),
        tipo_entidad=_text(root, "TipoEntidad") or "",
        tipo_entidad_descripcion=_text(root, "DescripcionTipoEntidad") or "",
        estado_actividad=state,
        estado_actividad_descripcion=ACTIVITY_STATES.get(state, "DESCONOCIDO"),
        fecha_inicio_actividad=_date(started),
        emisor_electronico=None,
        domicilio_fiscal=_address(item) if item is not None else None,
        actividades=activities,
    )
