"""Bodies of the smart-issuance endpoints: a minimal input in, a complete draft and a timeline out."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from portal.domain.iva_categories import CATEGORY_RATES
from portal.service.cfe.model_parts import Day
from portal.service.cfe.xmlchars import PrintedText
from portal.service.comprobante.schemas import TypedNumber
from portal.service.platform.paging import CURSOR_DESCRIPTION, CURSOR_PATTERN, Page


class _In(PrintedText):  # what is written here goes into the CFE
    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)


class LineaInteligente(_In):
    descripcion: str = Field(min_length=1, max_length=80, description="Descripción del producto o servicio.")
    cantidad: Decimal = Field(gt=0, max_digits=17, decimal_places=3)
    precio: Decimal = Field(ge=0, max_digits=17, decimal_places=6, description="Precio unitario.")
    unidad: str | None = Field(None, max_length=4, description="Unidad de medida (hasta 4 caracteres).")
    tasa: Literal["basica", "minima", "exenta", "no_facturable"] | None = Field(
        None, description="Tasa de IVA; si falta se deduce de la categoría, o es la básica."
    )
    categoria: Literal[tuple(sorted(CATEGORY_RATES))] | None = Field(  # type: ignore[valid-type]
        None, description="Categoría del artículo, de la que se deduce la tasa de IVA."
    )
    descuento_pct: Decimal | None = Field(None, alias="descuentoPct", ge=0, lt=100, decimal_places=3)


class ReceptorInteligente(_In):
    documento: str = Field(min_length=1, max_length=20, description="RUT, CI u otro documento del receptor.")
    tipo_doc: int | None = Field(
        None,
        alias="tipoDoc",
        ge=1,
        le=7,
        description="Código DGI del documento; si falta se deduce (RUT o CI válidos).",
    )
    pais: str | None = Field(
        None, pattern=r"^([A-Z]{2}|99)$", description="País (ISO 3166-1) de documentos extranjeros."
    )
    nombre: str | None = Field(None, max_length=150, description="Si falta, se toma de DGI (RUT).")
    direccion: str | None = Field(None, max_length=70)
    ciudad: str | None = Field(None, max_length=30)
    departamento: str | None = Field(None, max_length=30)


class ReferenciaInteligente(_In):
    id_cfe_emitido: str = Field(alias="idCfeEmitido", max_length=40, description="El comprobante que se ajusta.")
    tipo: Literal["credito", "debito"] = Field("credito", description="Nota de crédito o de débito.")
    razon: str = Field(min_length=1, max_length=90)


class Pistas(_In):
    tipo_cfe: Literal[101, 102, 103, 111, 112, 113, 121, 122, 123] | None = Field(
        None, alias="tipoCFE", description="Fuerza el tipo de CFE."
    )
    clau_venta: str | None = Field(
        None,
        alias="clauVenta",
        pattern=r"^([A-Za-z]{1,3}|N/A)$",
        description="Exportación: cláusula de venta (Incoterm); obligatoria si se exportan bienes.",
    )
    mod_venta: Literal[1, 2, 3, 4, 80, 90, 91, 99] | None = Field(
        None, alias="modVenta", description="Exportación: modalidad de venta; 90 si todo son servicios, si no 1."
    )
    via_transp: Literal[1, 2, 3, 8, 9] | None = Field(
        None, alias="viaTransp", description="Exportación: vía de transporte; obligatoria si se exportan bienes."
    )


class SolicitudInteligente(_In):
    """What a clerk knows: who buys (optional) and what; the service works out the rest."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "receptor": {"documento": "214844360018"},
                    "preciosIncluyenIva": False,
                    "lineas": [
                        {"descripcion": "Consultoría", "cantidad": "10", "precio": "1500"},
                        {"descripcion": "Libro técnico", "cantidad": "1", "precio": "900", "categoria": "libros"},
                    ],
                },
                {
                    "receptor": {
                        "documento": "98-7654321",
                        "tipoDoc": 4,
                        "pais": "US",
                        "nombre": "Acme Software Inc.",
                        "direccion": "500 Market Street",
                    },
                    "moneda": "USD",
                    "tipoCambio": "39.250",
                    "lineas": [
                        {
                            "descripcion": "Desarrollo de software",
                            "cantidad": "120",
                            "precio": "45",
                            "categoria": "servicios",
                        }
                    ],
                },
                {
                    "lineas": [
                        {"descripcion": "Café", "cantidad": "2", "precio": "122"},
                        {"descripcion": "Medialuna", "cantidad": "3", "precio": "44", "categoria": "alimentos_basicos"},
                    ]
                },
            ]
        }
    )

    receptor: ReceptorInteligente | None = None
    lineas: list[LineaInteligente] = Field(min_length=1, max_length=200)
    precios_incluyen_iva: bool = Field(True, alias="preciosIncluyenIva")
    moneda: str = Field("UYU", pattern=r"^[A-Z]{3}$")
    tipo_cambio: Decimal | None = Field(None, alias="tipoCambio", gt=0, max_digits=7, decimal_places=3)
    forma_pago: Literal[1, 2] = Field(1, alias="formaPago", description="1 contado, 2 crédito.")
    referencia: ReferenciaInteligente | None = Field(None, description="Para emitir una nota de crédito o débito.")
    adenda: str | None = Field(None, max_length=10000)
    pistas: Pistas | None = None


# A warning's code as the preview gives it (what is accepted is kept in the request's timeline, read by support).
WarningCode = Annotated[str, Field(pattern=r"^[a-z0-9_]{1,60}$")]


class Confirmacion(_In):
    """Confirms a previewed request; it issues exactly the previewed draft."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "requestId": "ei_3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8",
                    "hashBorrador": "9b1c...",
                    "advertenciasAceptadas": ["receptor_no_emisor_electronico"],
                }
            ]
        }
    )

    request_id: str = Field(alias="requestId", max_length=40)
    hash_borrador: str | None = Field(
        None,
        alias="hashBorrador",
        max_length=64,
        description="El hashBorrador de la previsualización; si difiere, se rechaza.",
    )
    advertencias_aceptadas: list[WarningCode] = Field(
        default_factory=list,
        alias="advertenciasAceptadas",
        max_length=20,
        description="Códigos de las advertencias que el usuario leyó.",
    )


class _Out(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


class Inferencia(_Out):
    campo: str
    valor: object
    motivo: str


class AdvertenciaInteligente(_Out):
    codigo: str
    mensaje: str


class BloqueoInteligente(_Out):
    """What the company's setup lacks to issue the previewed receipt now (the 409 that confirming would answer)."""

    codigo: Literal["emisor_sin_domicilio", "sin_certificado_vigente", "sin_cae", "cae_agotado", "cae_vencido"]
    mensaje: str


class Evento(_Out):
    estado: str
    en: datetime
    por: str
    detalle: str | None = None


class SolicitudEstado(_Out):
    """An issuance request: its state, timeline, draft, warnings and result."""

    request_id: str = Field(alias="requestId")
    modo: str
    estado: Literal["preview", "confirmed", "issued", "failed", "expired"]
    borrador: dict = Field(description="El CFE completo (mismo formato que el cuerpo de comprobante/emitir).")
    hash_borrador: str = Field(alias="hashBorrador")
    totales: dict
    inferencias: list[Inferencia]
    advertencias: list[AdvertenciaInteligente]
    bloqueos: list[BloqueoInteligente] = Field(
        default_factory=list,
        description="Mientras está en preview: lo que le falta a la configuración de la empresa para emitirlo ahora "
        "(sin domicilio fiscal, sin certificado vigente, sin CAE que lo numere, agotado o vencido), comprobado en "
        "cada consulta; confirmar antes de resolverlo responde el mismo 409. Vacío en los demás estados.",
    )
    previsualizacion_url: str | None = Field(None, alias="previsualizacionUrl")
    vence_en: datetime | None = Field(None, alias="venceEn")
    cfe_emitidos: list[str] = Field(default_factory=list, alias="cfeEmitidos")
    comprobante: dict | None = Field(None, description="El comprobante emitido (como getByIdCfeEmitido).")
    estado_dgi: str | None = Field(None, alias="estadoDGI")
    error: dict | None = None
    linea_de_tiempo: list[Evento] = Field(alias="lineaDeTiempo")
    creado_por: str = Field(alias="creadoPor")
    creado_en: datetime = Field(alias="creadoEn")
    final: bool = Field(description="true cuando el estado ya no cambia (issued, failed, expired).")


# --- The company's requests, newest first (support looks requests up here) ---

_STATE = Literal["preview", "confirmed", "issued", "failed", "expired"]


class SolicitudesQuery(BaseModel):
    """Filters of the list of the company's requests; every one is optional and they add up. An unknown
    parameter is refused (a misspelt filter would otherwise list everything)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    estado: _STATE | None = Field(None, description="Solo las solicitudes en este estado.", examples=["issued"])
    creado_por: str | None = Field(
        None,
        alias="creadoPor",
        max_length=254,
        examples=["soporte@"],
        description="Comienzo del correo de quien creó la solicitud (sin distinguir mayúsculas).",
    )
    desde: Day | None = Field(
        None, description="Creadas desde este día (hora de Montevideo), inclusive.", examples=["2026-11-01"]
    )
    hasta: Day | None = Field(
        None,
        description="Creadas hasta este día (hora de Montevideo), inclusive. Si es "
        "anterior a desde, la lista sale vacía.",
        examples=["2026-11-30"],
    )
    numero: TypedNumber = Field(
        None,
        examples=["A-15"],
        description='Número del comprobante emitido, como se escriba: "A-15", "A 0000015", "A15" o "15" '
        "(sin serie, cualquier serie).",
    )
    cursor: str | None = Field(None, max_length=200, pattern=CURSOR_PATTERN, description=CURSOR_DESCRIPTION)
    limite: int = Field(20, ge=1, le=100, description="Solicitudes por página (20 si no se indica, hasta 100).")


class ComprobanteResumen(_Out):
    id_cfe_emitido: str = Field(alias="idCfeEmitido")
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    tpo_moneda: str = Field(alias="tpoMoneda")
    mnt_total: Decimal = Field(alias="mntTotal")


class SolicitudResumen(_Out):
    request_id: str = Field(alias="requestId")
    estado: _STATE = Field(description="expired también para una previsualización vencida sin consultar.")
    modo: str = Field(description="preview (previsualizar y confirmar) o direct.")
    creado_en: datetime = Field(alias="creadoEn")
    creado_por: str = Field(alias="creadoPor")
    comprobante: ComprobanteResumen | None = Field(None, description="El comprobante emitido, si lo hay.")
    codigo_error: str | None = Field(None, alias="codigoError", description="Por qué falló, si falló.")


class ListaSolicitudes(Page[SolicitudResumen]):
    """A page of the company's requests, newest first."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "items": [
                        {
                            "requestId": "ei_3f2a9c0e5b9d4e0fa1c2d3e4f5a6b7c8",
                            "estado": "issued",
                            "modo": "direct",
                            "creadoEn": "2026-11-23T13:05:10.123456+00:00",
                            "creadoPor": "usuario@demo.uy",
                            "comprobante": {
                                "idCfeEmitido": "9b2e41c07d5f4a3e8c1d2f3a4b5c6d7e",
                                "tipoCFE": 101,
                                "serie": "A",
                                "nro": 15,
                                "tpoMoneda": "UYU",
                                "mntTotal": "366.00",
                            },
                        },
                        {
                            "requestId": "ei_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f",
                            "estado": "failed",
                            "modo": "preview",
                            "creadoEn": "2026-11-23T12:58:41.500000+00:00",
                            "creadoPor": "usuario@demo.uy",
                            "codigoError": "cae_agotado",
                        },
                    ],
                    "siguienteCursor": "W1sidCIsIjIwMjYtMTEtMjNUMTI6NTg6NDEuNTAwMDAwKzAwOjAwIl0sWyJzIiwiZWlfMGMxZCJdXQ",
                }
            ]
        },
    )
