"""Request and response schemas of the DGI group, for validation and for the OpenAPI document.

The responses mirror the library's `to_json()` shapes (portal.service.dgi.models) field for field; the
routes validate every answer against them before sending it, so the document cannot drift from the data.
"""

# The field names are the API's (lower camel case, as DGI spells them).
# ruff: noqa: N815

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

# Ids are 64-bit database integers: a larger one cannot name a record, and would overflow the query.
_DB_ID_LIMIT = 2**63
_DOC_TYPES = "1 NIE, 2 RUT, 3 CI, 4 otros, 5 pasaporte, 6 DNI, 7 NIFE"


class DgiQuery(BaseModel):
    """What every DGI lookup needs: the company that asks and the certificate it asks with."""

    idEmpresa: int = Field(
        gt=0,
        lt=_DB_ID_LIMIT,
        examples=[1],
        description="Empresa por la que se consulta: debe ser la del llamante (la del token o la de la clave de API).",
    )
    idCertificado: int = Field(
        gt=0,
        lt=_DB_ID_LIMIT,
        examples=[1],
        description="Certificado de la empresa con el que se consulta a DGI; debe estar vigente hoy.",
    )


class NombreEntidadQuery(DgiQuery):
    """consultaNombreEntidad: the document to look up, besides company and certificate."""

    tipoDoc: int = Field(
        description=f"Tipo de documento con los códigos de DGI ({_DOC_TYPES}). DGI registra solo NIE, RUT y CI.",
        json_schema_extra={"enum": [1, 2, 3, 4, 5, 6, 7]},
        examples=[3],
    )
    nroDoc: str = Field(
        max_length=40,
        description="Número de documento, con o sin puntos y guiones; se "
        "valida el dígito verificador antes de consultar.",
        examples=["1.335.321-4"],
    )


class Contacto(BaseModel):
    """Un contacto del domicilio, como lo lista DGI."""

    tipo: str = Field(description='Tipo de contacto de DGI ("CORREO ELECTRONICO", "TELEFONO FIJO", ...).')
    valor: str


class DomicilioFiscal(BaseModel):
    """Domicilio fiscal del local principal (WS_DomFiscalLocPrincipal de DGI)."""

    calle: str
    numero: str | None = Field(description="Número de puerta.")
    apartamento: str | None
    localidad: str
    departamentoId: int | None = Field(description="Código de departamento de DGI (1 a 19).")
    departamentoNombre: str
    codigoPostal: str | None
    contactos: list[Contacto]


class Actividad(BaseModel):
    """Una actividad registrada (giro): código CIIU rev. 4 de 5 dígitos, nombre y fecha de inicio."""

    giroCod: str = Field(examples=["47190"])
    giroNom: str
    fechaInicio: date | None


_ENTITY_EXAMPLE: JsonDict = {
    "rut": "219999830019",
    "denominacion": "DGI RUC PRUEBA NO CEDE",
    "nombreFantasia": "EMPRESA DEMO",
    "tipoEntidad": "27",
    "tipoEntidadDescripcion": "SOCIEDAD CIVIL",
    "estadoActividad": "AA",
    "estadoActividadDescripcion": "ACTIVO",
    "activo": True,
    "fechaInicioActividad": "2010-01-04",
    "emisorElectronico": True,
    "emisorElectronicoDesde": "2012-03-01",
}


class Entidad(BaseModel):
    """Identidad de un contribuyente según el registro de RUT de DGI (consultaRut)."""

    model_config = ConfigDict(json_schema_extra={"examples": [_ENTITY_EXAMPLE]})

    rut: str = Field(description="RUT de 12 dígitos, sin separadores.")
    denominacion: str = Field(description="Denominación (razón social o nombre de la persona).")
    nombreFantasia: str | None = Field(description="Nombre comercial, si tiene.")
    tipoEntidad: str = Field(description="Código de tipo de entidad de DGI.")
    tipoEntidadDescripcion: str
    estadoActividad: str = Field(description='Código de estado de DGI ("AA" activo).')
    estadoActividadDescripcion: str
    activo: bool = Field(description="Si el estado de actividad es activo.")
    fechaInicioActividad: date | None
    emisorElectronico: bool | None = Field(
        description="Si es emisor electrónico; null cuando el servicio de DGI consultado no lo informa."
    )
    emisorElectronicoDesde: date | None


class DatosEntidad(Entidad):
    """Todo lo que DGI registra de un contribuyente: identidad, domicilio fiscal y actividades."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    **_ENTITY_EXAMPLE,
                    "domicilioFiscal": {
                        "calle": "AV. DANIEL FERNANDEZ CRESPO",
                        "numero": "1534",
                        "apartamento": "201",
                        "localidad": "MONTEVIDEO",
                        "departamentoId": 10,
                        "departamentoNombre": "MONTEVIDEO",
                        "codigoPostal": "11200",
                        "contactos": [{"tipo": "CORREO ELECTRONICO", "valor": "CONSULTAS@DGI.GUB.UY"}],
                    },
                    "actividades": [
                        {
                            "giroCod": "47190",
                            "fechaInicio": "2010-01-04",
                            "giroNom": "OTRAS ACTIVIDADES DE VENTA AL POR MENOR EN COMERCIOS NO ESPECIALIZADOS",
                        }
                    ],
                }
            ]
        }
    )

    domicilioFiscal: DomicilioFiscal | None = Field(description="null si DGI no informa domicilio.")
    actividades: list[Actividad]


class NombreEntidad(BaseModel):
    """El nombre registrado para un documento: denominación de una empresa o nombre de una persona."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"tipoDoc": 3, "nroDoc": "13353214", "nombre": "RODRIGUEZ SILVA JUAN CARLOS"}]}
    )

    tipoDoc: int = Field(description=f"Tipo de documento ({_DOC_TYPES}).")
    nroDoc: str = Field(description="Número normalizado, sin separadores.")
    nombre: str


class EstadoCva(BaseModel):
    """El Certificado de Vigencia Anual (Certificado Único) de DGI de un RUT."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "rut": "219999830019",
                    "denominacion": "DGI RUC PRUEBA NO CEDE",
                    "vigente": True,
                    "estado": "VIGENTE",
                    "numero": "2026999983",
                    "fechaEmision": "2026-03-15",
                    "fechaVencimiento": "2027-03-14",
                },
                {
                    "rut": "215550040014",
                    "denominacion": "SISTEMAS ARAZATI S.A.S.",
                    "vigente": False,
                    "estado": "SIN_CERTIFICADO",
                    "numero": None,
                    "fechaEmision": None,
                    "fechaVencimiento": None,
                },
            ]
        }
    )

    rut: str
    denominacion: str
    vigente: bool = Field(description="Si hay un certificado vigente hoy.")
    estado: Literal["VIGENTE", "VENCIDO", "SIN_CERTIFICADO"] = Field(
        description="VIGENTE, VENCIDO (datos del último certificado) o SIN_CERTIFICADO (nunca tuvo)."
    )
    numero: str | None
    fechaEmision: date | None
    fechaVencimiento: date | None
