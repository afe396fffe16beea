"""Reading DGI's `<Data>` answer (and writing it, for the stand-in)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from portal.service.dgi import DgiUnavailable, TaxpayerNotFound
from portal.service.dgi import sandbox_data as data
from portal.service.dgi.models import Address, Contact
from portal.service.dgi.persona_xml import build_error_xml, build_persona_xml, parse_data

# DGI's answer for its test RUT as published (planetadeleste/ucfe README, via Uruware), written back as XML.
DGI_SAMPLE = """<WS_PersonaActEmpresarial xmlns="DGI_Modernizacion_Consolidado">
  <RUT>219000090011</RUT>
  <Denominacion>DGI RUC PRUEBA CEDE Y DIRECCION GENERAL IMPOSITIVA</Denominacion>
  <NombreFantasia>PRUEBA NUEVOS SERVICIOS  -</NombreFantasia>
  <TipoEntidad>27</TipoEntidad>
  <DescripcionTipoEntidad>SOCIEDAD CIVIL</DescripcionTipoEntidad>
  <EstadoActividad>AA</EstadoActividad>
  <FechaInicioActivdad>2006-09-27</FechaInicioActivdad>
  <WS_DomFiscalLocPrincipal>
    <WS_PersonaActEmpresarial.WS_DomFiscalLocPrincipalItem>
      <Local_Sec_Nro>8</Local_Sec_Nro><Local_Nom_Fnt></Local_Nom_Fnt><TipoLocal_Id>1</TipoLocal_Id>
      <TipoLocal_Dsc>PRINCIPAL</TipoLocal_Dsc><Local_Fec_Ini>2020-12-10</Local_Fec_Ini>
      <Local_Fec_Canc>0000-00-00</Local_Fec_Canc><TipoDom_Id>2</TipoDom_Id><TipoDom_Des>FISCAL</TipoDom_Des>
      <CalOcup_id>2</CalOcup_id><Calocup_Des>ARRENDATARIO</Calocup_Des><TerCod_Id>0</TerCod_Id><Tercod_Des/>
      <Calle_id>14</Calle_id><Calle_Nom>12 METROS</Calle_Nom><Dom_Pta_Nro>6855</Dom_Pta_Nro><Dom_Bis_Flg/>
      <Dom_Ap_Nro/><Loc_Id>903020</Loc_Id><Loc_Nom>CASUPA</Loc_Nom><Dpto_Id>8</Dpto_Id>
      <Dpto_Nom>LAVALLEJA</Dpto_Nom><Dom_Pst_Cod>0</Dom_Pst_Cod><Dom_Coment/><Dom_Err_Cod>N</Dom_Err_Cod>
      <Contactos>
        <WS_Domicilio.WS_DomicilioItem.Contacto>
          <TipoCtt_Id>1</TipoCtt_Id><TipoCtt_Des>CORREO ELECTRONICO</TipoCtt_Des>
          <DomCtt_Val>PLANPROD@DGI.GUB.UY</DomCtt_Val>
        </WS_Domicilio.WS_DomicilioItem.Contacto>
        <WS_Domicilio.WS_DomicilioItem.Contacto>
          <TipoCtt_Id>5</TipoCtt_Id><TipoCtt_Des>TELEFONO FIJO</TipoCtt_Des><DomCtt_Val>25062222</DomCtt_Val>
        </WS_Domicilio.WS_DomicilioItem.Contacto>
      </Contactos>
      <Complementos>
        <WS_Domicilio.WS_DomicilioItem.Complemento>
          <Cmpl_Id>21</Cmpl_Id><Cmpl_Dsc>SHOPPING</Cmpl_Dsc><DomCmpl_Vlr>ROJITO</DomCmpl_Vlr>
        </WS_Domicilio.WS_DomicilioItem.Complemento>
      </Complementos>
    </WS_PersonaActEmpresarial.WS_DomFiscalLocPrincipalItem>
  </WS_DomFiscalLocPrincipal>
  <WS_PersonaActividades>
    <WS_PersonaActEmpresarial.WS_PersonaActividadesItem>
      <GiroCod>47115</GiroCod><GiroNom>COMERCIO AL POR MENOR REALIZADO POR LOS FREE SHOPS</GiroNom>
      <GiroFec_Ini>2020-12-10</GiroFec_Ini>
    </WS_PersonaActEmpresarial.WS_PersonaActividadesItem>
    <WS_PersonaActEmpresarial.WS_PersonaActividadesItem>
      <GiroCod>84110</GiroCod><GiroNom>ACTIVIDADES DE LA ADMINISTRACION PUBLICA EN GENERAL</GiroNom>
      <GiroFec_Ini>2020-12-10</GiroFec_Ini>
    </WS_PersonaActEmpresarial.WS_PersonaActividadesItem>
  </WS_PersonaActividades>
</WS_PersonaActEmpresarial>"""


def test_reads_dgi_published_answer():
    entity = parse_data(DGI_SAMPLE)
    assert (entity.rut, entity.tipo_entidad, entity.tipo_entidad_descripcion) == (
        "219000090011",
        "27",
        "SOCIEDAD CIVIL",
    )
    assert entity.nombre_fantasia == "PRUEBA NUEVOS SERVICIOS  -"
    assert (entity.estado_actividad, entity.activo) == ("AA", True)
    assert entity.fecha_inicio_actividad == date(2006, 9, 27)
    assert entity.emisor_electronico is None  # this service does not say it
    assert entity.domicilio_fiscal == Address(
        "12 METROS",
        "6855",
        None,
        "CASUPA",
        8,
        "LAVALLEJA",
        None,
        (Contact("CORREO ELECTRONICO", "PLANPROD@DGI.GUB.UY"), Contact("TELEFONO FIJO", "25062222")),
    )
    assert [(a.giro_cod, a.fecha_inicio) for a in entity.actividades] == [
        ("47115", date(2020, 12, 10)),
        ("84110", date(2020, 12, 10)),
    ]


def test_reads_the_corrected_spelling_of_the_start_date_and_unknown_states():
    source = DGI_SAMPLE.replace("FechaInicioActivdad", "FechaInicioActividad").replace(">AA<", ">ZZ<")
    entity = parse_data(source)
    assert entity.fecha_inicio_actividad == date(2006, 9, 27)
    assert (entity.estado_actividad_descripcion, entity.activo) == ("DESCONOCIDO", False)


def test_what_the_stand_in_writes_reads_back_as_the_same_entity():
    for taxpayer in data.taxpayers().values():
        entity = taxpayer.entity
        expected = replace(entity, emisor_electronico=None, emisor_electronico_desde=None)
        assert parse_data(build_persona_xml(entity)) == expected, entity.rut


def test_an_xml_declaration_inside_the_text_is_ignored():
    source = '<?xml version="1.0" encoding="ISO-8859-1"?>\n' + DGI_SAMPLE.replace(
        "<Denominacion>DGI RUC PRUEBA CEDE Y DIRECCION GENERAL IMPOSITIVA", "<Denominacion>PEÑAROL S.A."
    )
    assert parse_data(source).denominacion == "PEÑAROL S.A."


def test_error_14_means_not_found():
    with pytest.raises(TaxpayerNotFound, match="RUT no disponible para pruebas"):
        parse_data(build_error_xml("14", "Error al consumir el Servicio Web", "RUT no disponible para pruebas"))


def test_other_dgi_errors_are_reported_with_their_code():
    with pytest.raises(DgiUnavailable) as caught:
        parse_data(build_error_xml("7", "Error interno", "Intente más tarde"))
    assert caught.value.code == "dgi_error_7" and "Intente más tarde" in caught.value.message


@pytest.mark.parametrize(
    "answer",
    [
        "not xml",
        "<WS_PersonaActEmpresarial><Denominacion>X</Denominacion></WS_PersonaActEmpresarial>",  # no RUT
        "<Otra><RUT>219000090011</RUT><Denominacion>X</Denominacion></Otra>",
        '<!DOCTYPE r [<!ENTITY e "x">]><WS_PersonaActEmpresarial><RUT>1</RUT></WS_PersonaActEmpresarial>',
    ],
)
def test_unreadable_answers_are_bad_answers(answer):
    with pytest.raises(DgiUnavailable) as caught:
        parse_data(answer)
    assert caught.value.code == "dgi_bad_answer"
