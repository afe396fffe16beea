"""Request and response schemas of the informes group."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.alias_generators import to_camel

from portal.service.cfe.model_parts import Day
from portal.service.platform.i18n import _
from portal.service.platform.pydantic_errors import refuse

# A book longer than a year is not a book anyone files; it is also the bound on what one request reads.
MAX_DAYS = 366


class PeriodoQuery(BaseModel):
    """A period, both days included."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)

    desde: Day = Field(description="Primer día del período (AAAA-MM-DD).")
    hasta: Day = Field(description="Último día del período (AAAA-MM-DD), a lo sumo 366 días después de desde.")

    @field_validator("hasta")
    @classmethod
    def _period(cls, value: date, info: ValidationInfo) -> date:
        start = info.data.get("desde")
        if start is not None and start > value:
            raise refuse("rango_invalido", _("La fecha desde es posterior a la fecha hasta."))
        if start is not None and (value - start).days >= MAX_DAYS:
            raise refuse("periodo_demasiado_largo", _("El período abarca a lo sumo 366 días."))
        return value


class VentasQuery(PeriodoQuery):
    """The period of the sales book and the file format."""

    formato: Literal["json", "csv", "xlsx"] | None = Field(
        None, description="json, csv o xlsx; sin él decide el encabezado Accept (JSON por defecto)."
    )


class _Camel(BaseModel):
    """The API's camelCase names over Python's snake_case fields (documentation only: views write the JSON)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class Importes(_Camel):
    """Net, IVA, perceptions, retentions and total of a line or a total, as the signed CFE's Zona A has them."""

    no_gravado: Decimal
    exportacion: Decimal
    iva_suspenso: Decimal
    neto_tasa_minima: Decimal
    neto_tasa_basica: Decimal
    neto_otra_tasa: Decimal
    iva_tasa_minima: Decimal
    iva_tasa_basica: Decimal
    iva_otra_tasa: Decimal
    percepciones: Decimal
    retenciones: Decimal
    total: Decimal


class FilaVentas(_Camel):
    id: str
    fecha: date
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    doc_receptor: str | None
    nombre_receptor: str | None
    moneda: str
    tipo_cambio: Decimal
    estado_dgi: str
    importes: Importes = Field(description="En la moneda del comprobante; las notas de crédito, negativas.")
    importes_pesos: Importes = Field(description="Los mismos importes en pesos (por el tipo de cambio del CFE).")


class TotalTipo(_Camel):
    tipo_cfe: int = Field(alias="tipoCFE")
    cantidad: int
    importes_pesos: Importes


class TotalMonedaLibro(_Camel):
    moneda: str
    cantidad: int
    importes: Importes
    importes_pesos: Importes


class Declaracion(_Camel):
    """Las cifras de ventas de la declaración de IVA del período, en pesos."""

    ventas_tasa_basica: Decimal
    iva_tasa_basica: Decimal
    ventas_tasa_minima: Decimal
    iva_tasa_minima: Decimal
    ventas_otra_tasa: Decimal
    iva_otra_tasa: Decimal
    ventas_exentas_o_no_gravadas: Decimal
    exportaciones: Decimal
    iva_en_suspenso: Decimal
    iva_debito_fiscal: Decimal
    percepciones: Decimal
    retenciones: Decimal


class LibroVentas(_Camel):
    """El libro de ventas (IVA) de un período."""

    desde: date
    hasta: date
    filas: list[FilaVentas]
    rechazados: list[FilaVentas] = Field(description="Rechazados por DGI: fuera del libro y de los totales.")
    cantidad: int
    totales_pesos: Importes
    por_tipo: list[TotalTipo]
    por_moneda: list[TotalMonedaLibro]
    declaracion: Declaracion


class FilaCompras(_Camel):
    id: str = Field(description="El id del registro que `origen` dice.")
    origen: Literal["recibido", "emitido"] = Field(
        description="recibido: un CFE de un proveedor (/api/v1/recibidos/{id}); emitido: una e-Boleta de entrada "
        "de la propia empresa, a un vendedor que no emite CFE (/api/v1/comprobante/getByIdCfeEmitido)."
    )
    fecha: date
    tipo_cfe: int = Field(alias="tipoCFE")
    serie: str
    nro: int
    doc_emisor: str | None = Field(description="RUT del proveedor.")
    nombre_emisor: str | None
    moneda: str
    tipo_cambio: Decimal
    estado: Literal["recibido", "aceptado", "rechazado_comercial", "rechazado_al_recibir", "rechazado_dgi"]
    importes: Importes = Field(
        description="Los totales del XML firmado, en su moneda; las notas de crédito, negativas."
    )
    importes_pesos: Importes = Field(description="Los mismos importes en pesos (por el tipo de cambio del CFE).")


class DeclaracionCompras(_Camel):
    """Las cifras de compras de la declaración de IVA del período, en pesos."""

    compras_tasa_basica: Decimal
    iva_tasa_basica: Decimal
    compras_tasa_minima: Decimal
    iva_tasa_minima: Decimal
    compras_otra_tasa: Decimal
    iva_otra_tasa: Decimal
    compras_exentas_o_no_gravadas: Decimal
    exportaciones: Decimal
    iva_en_suspenso: Decimal
    iva_credito_fiscal: Decimal
    percepciones: Decimal
    retenciones: Decimal


class LibroCompras(_Camel):
    """El libro de compras (IVA) de un período, de los CFE recibidos."""

    desde: date
    hasta: date
    filas: list[FilaCompras]
    rechazados_dgi: list[FilaCompras] = Field(description="Anulados por rechazo de DGI: fuera del libro.")
    rechazados_empresa: list[FilaCompras] = Field(
        description="Rechazados por la empresa, al recibirlos o comercialmente: fuera del libro."
    )
    cantidad: int
    totales_pesos: Importes
    por_tipo: list[TotalTipo]
    por_moneda: list[TotalMonedaLibro]
    declaracion: DeclaracionCompras


class Cantidad(_Camel):
    cantidad: int
    total_pesos: Decimal


class PeriodoTipo(Cantidad):
    tipo_cfe: int = Field(alias="tipoCFE")


class PeriodoMoneda(Cantidad):
    moneda: str
    total: Decimal = Field(description="En la moneda.")


class PeriodoSucursal(Cantidad):
    cdg_dgi_sucur: int | None = Field(alias="cdgDGISucur")


class PeriodoDia(Cantidad):
    fecha: date = Field(description="El día, o el primero del mes cuando la agrupación es por mes.")


class PeriodoCliente(Cantidad):
    doc_recep: str = Field(alias="docRecep")
    rzn_soc_recep: str = Field(alias="rznSocRecep")


class PeriodoEstado(_Camel):
    estado: str
    cantidad: int


class Periodo(_Camel):
    """Un período de un vistazo: lo que suma el libro de ventas (sin los rechazados por DGI), por tipo, moneda,
    sucursal y día o mes, el neto y el IVA por tasa, los principales clientes, y los estados ante DGI de todos
    los comprobantes del período."""

    desde: date
    hasta: date
    agrupacion: Literal["dia", "mes"]
    cantidad: int
    total_pesos: Decimal
    rechazados: int
    iva: Declaracion
    por_tipo: list[PeriodoTipo]
    por_moneda: list[PeriodoMoneda]
    por_sucursal: list[PeriodoSucursal]
    serie: list[PeriodoDia]
    principales_clientes: list[PeriodoCliente]
    estados_dgi: list[PeriodoEstado]


class TasaCompras(_Camel):
    tasa: Literal["basica", "minima", "otra", "exento"] = Field(
        description="Tasa básica, mínima, otra tasa (IVA sobre fictos), o exento y no gravado (sin IVA)."
    )
    porcentaje: Decimal | None = Field(description="La tasa en por ciento; null en otra tasa y en exento.")
    neto_pesos: Decimal
    iva_pesos: Decimal = Field(description="El IVA de la tasa (crédito fiscal); 0 en exento.")
    total_pesos: Decimal = Field(description="Neto más IVA.")


class TotalTasas(_Camel):
    neto_pesos: Decimal
    iva_pesos: Decimal
    total_pesos: Decimal


class PeriodoProveedor(Cantidad):
    doc_emisor: str = Field(description="RUT (o documento, en una e-Boleta de entrada) del proveedor.")
    nombre_emisor: str


class PeriodoCompras(_Camel):
    """Las compras de un período de un vistazo, como las suma el libro de compras (GET /informes/compras): los CFE
    recibidos y las e-Boletas de entrada que la empresa emitió; los rechazados por DGI o por la empresa no suman
    y se cuentan aparte. Todo en pesos."""

    desde: date
    hasta: date
    cantidad: int
    total_pesos: Decimal = Field(description="El total del libro (MntTotal de cada CFE, en pesos).")
    rechazados_dgi: int
    rechazados_empresa: int
    por_tasa: list[TasaCompras] = Field(description="Neto, IVA y total por tasa de IVA; siempre las cuatro.")
    total_tasas: TotalTasas = Field(description="La suma de por_tasa.")
    iva: DeclaracionCompras
    por_tipo: list[PeriodoTipo]
    principales_proveedores: list[PeriodoProveedor] = Field(description="Los diez que más suman, de mayor a menor.")
