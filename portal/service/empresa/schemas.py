"""Request and response bodies of the Empresa endpoints (published as OpenAPI by `operation`)."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal, TypeGuard

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from portal.domain.empresa import DEPARTMENTS, MAX_BOOK_NUMBERS, MAX_BRANCH_CODE, NO_IVA_AL_DIA, latest_expiry
from portal.domain.uruguay_time import today_montevideo
from portal.service.cfe.model_parts import Day
from portal.service.cfe.xmlchars import PrintedText
from portal.service.platform.i18n import _
from portal.service.platform.jsontypes import WHOLE_NUMBER
from portal.service.platform.paging import Page
from portal.service.platform.pydantic_errors import BUILTIN_TYPES, refuse

Regimen = Literal["general", "iva_minimo", "monotributo", "monotributo_mides", "exonerado"]
Paper = Literal["a4", "80mm", "57mm"]
Department = Literal[DEPARTMENTS]  # type: ignore[valid-type]

_RESOLUTION = re.compile(r"^\d{1,6}/\d{4}$")
_URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


class _In(PrintedText):
    """Every text here is printed in the CFE, on one line."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    text_one_line = True


class SettingsIn(_In):
    """Los datos fiscales que se imprimen y que deciden las reglas: se reemplazan todos juntos."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [
                {
                    "regimen": "general",
                    "resolucion": "1234/2020",
                    "ivaAlDia": True,
                    "urlVerificacion": "https://demo.uy/cfe",
                    "formatoPapel": "a4",
                },
                {
                    "regimen": "exonerado",
                    "normaExoneracion": "Ley 18.083 art. 19",
                    "fechaEmisor": "2021-03-01",
                    "ivaAlDia": True,
                    "formatoPapel": "80mm",
                },
            ]
        },
    )

    regimen: Regimen = Field(description="General, IVA mínimo, Monotributo, Monotributo social MIDES o exonerado.")
    normaExoneracion: StrictStr | None = Field(  # noqa: N815 - the API's field names are lower camel case
        None,
        min_length=1,
        max_length=100,
        description="La norma que exonera; obligatoria si regimen es exonerado, y solo entonces.",
    )
    resolucion: StrictStr | None = Field(
        None,
        max_length=11,
        examples=["1234/2020"],
        description="Resolución de DGI que autoriza a emitir (número/año); se imprime «Res. 1234/2020». "
        "Va esta o fechaEmisor: exactamente una de las dos.",
    )
    fechaEmisor: Day | None = Field(  # noqa: N815
        None, description="Fecha en que la empresa ingresó al régimen de CFE; se imprime «Fecha emisor»."
    )
    ivaAlDia: StrictBool = Field(  # noqa: N815
        True, description="Si la empresa tiene la constancia de estar al día con IVA (no en Monotributo)."
    )
    urlVerificacion: StrictStr | None = Field(  # noqa: N815
        None,
        max_length=200,
        description="Página de la empresa donde verificar e-Tickets; sin ella se imprime www.dgi.gub.uy.",
    )
    formatoPapel: Paper = Field(  # noqa: N815
        "a4", description="Formato de impresión por defecto; los rollos térmicos solo para e-Tickets y sus notas."
    )

    @field_validator("resolucion")
    @classmethod
    def _resolution(cls, value: str | None) -> str | None:
        if value and not _RESOLUTION.match(value):
            raise refuse("format", _("Escribila como número/año, por ejemplo 1234/2020."))
        return value or None

    @field_validator("urlVerificacion")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value and not _URL.match(value):
            raise refuse("format", _("Tiene que ser una dirección web que empiece con https://."))
        return value or None

    def problems(self) -> list[tuple[str, str]]:
        """(field, message) for each combination DGI does not allow; empty when consistent."""
        found: list[tuple[str, str]] = []
        if self.regimen == "exonerado" and not self.normaExoneracion:
            found.append(("normaExoneracion", _("Indicá la norma que exonera a la empresa.")))
        if self.regimen != "exonerado" and self.normaExoneracion:
            found.append(("normaExoneracion", _("La norma solo corresponde a empresas exoneradas.")))
        if self.resolucion and self.fechaEmisor:
            found.append(("fechaEmisor", _("Indicá la resolución o la fecha de ingreso, no las dos.")))
        if not self.resolucion and not self.fechaEmisor:
            found.append(
                ("resolucion", _("Indicá la resolución de DGI o la fecha de ingreso al régimen: una de las dos."))
            )
        if self.fechaEmisor and self.fechaEmisor > today_montevideo():
            found.append(
                ("fechaEmisor", _("La fecha de ingreso no puede estar en el futuro: indicá la de la constancia."))
            )
        if self.regimen in NO_IVA_AL_DIA and self.ivaAlDia:
            found.append(("ivaAlDia", _("La constancia de IVA al día no corresponde a Monotributo.")))
        return found


class LogoOut(BaseModel):
    """El logo cargado: tipo, tamaño y medidas en píxeles."""

    tipo: Literal["image/png", "image/jpeg"]
    bytes: int
    ancho: int
    alto: int


class SettingsOut(BaseModel):
    """Los datos fiscales de la empresa."""

    rut: str
    razonSocial: str  # noqa: N815
    regimen: Regimen
    normaExoneracion: str | None = None  # noqa: N815
    resolucion: str | None = None
    fechaEmisor: date | None = None  # noqa: N815
    ivaAlDia: bool  # noqa: N815
    urlVerificacion: str | None = None  # noqa: N815
    formatoPapel: Paper  # noqa: N815
    logo: LogoOut | None = Field(None, description="Ausente si la empresa no cargó un logo.")
    actualizadoEn: datetime | None = None  # noqa: N815
    actualizadoPor: str | None = None  # noqa: N815


BranchCode = Annotated[
    StrictInt, Field(ge=0, le=MAX_BRANCH_CODE, description="Código de sucursal de DGI (0-9999)."), WHOLE_NUMBER
]


class BranchIn(_In):
    """Una sucursal registrada en DGI: su código, nombre y el domicilio que se imprime."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [
                {
                    "codigo": 2,
                    "nombre": "Pocitos",
                    "domicilio": "Av. Brasil 2890",
                    "ciudad": "Montevideo",
                    "departamento": "Montevideo",
                },
                {
                    "codigo": 3,
                    "nombre": "Punta del Este",
                    "domicilio": "Gorlero 800",
                    "ciudad": "Punta del Este",
                    "departamento": "Maldonado",
                    "predeterminada": True,
                },
            ]
        },
    )

    codigo: BranchCode
    nombre: StrictStr = Field(min_length=1, max_length=20)
    domicilio: StrictStr = Field(min_length=1, max_length=70)
    ciudad: StrictStr = Field(min_length=1, max_length=30)
    departamento: Department
    predeterminada: StrictBool = Field(False, description="La sucursal de los comprobantes que no indican otra.")


class BranchOut(BaseModel):
    """Una sucursal de la empresa."""

    id: int
    codigo: int
    nombre: str
    domicilio: str
    ciudad: str
    departamento: str
    predeterminada: bool
    activa: bool = Field(True, description="false: dada de baja; no se puede emitir desde ella.")


class BranchList(BaseModel):
    """Las sucursales de la empresa, por código."""

    items: list[BranchOut]


class CertificateOut(BaseModel):
    """Un certificado de firma: quién, número de serie, vigencia y días que le quedan."""

    id: int
    nombre: str
    sujeto: str
    emisor: str
    serie: str = Field(description="Número de serie del certificado (decimal).")
    rut: str | None = None
    desde: datetime
    hasta: datetime
    diasRestantes: int = Field(description="Días hasta el vencimiento (negativo si ya venció).")  # noqa: N815
    estado: Literal["vigente", "por_vencer", "vencido", "no_vigente", "dado_de_baja"] = Field(
        description="por_vencer: vence dentro de 30 días; dado_de_baja: un administrador lo retiró, no firma más."
    )


class CertificateList(BaseModel):
    """Los certificados de la empresa, del que vence último al que vence primero."""

    items: list[CertificateOut]


class CaeOut(BaseModel):
    """Un rango de CAE: tipo, serie, números, cuántos quedan y hasta cuándo vale."""

    id: int
    caeId: int = Field(description="Número de CAE de DGI.")  # noqa: N815
    tipoCFE: int  # noqa: N815
    serie: str
    desde: int
    hasta: int
    proximo: int = Field(description="El próximo número a usar.")
    restantes: int
    fechaAutorizacion: date  # noqa: N815
    vencimiento: date
    diasRestantes: int  # noqa: N815
    estado: Literal["vigente", "por_vencer", "vencido", "agotado", "no_vigente"] = Field(
        description="por_vencer: vence dentro de 30 días; no_vigente: autorizado desde un día que todavía no llegó."
    )
    caeEspecial: int | None = None  # noqa: N815
    origen: str = Field(description="dgi (archivo de DGI) o demo.")


# _In: the reason is shown in the audit and the portal, so it takes a printed text's characters.
class CaeBajaIn(_In):
    """Dar de baja un rango de CAE: anular de una vez todos sus números sin usar. `cantidad` confirma cuántos
    son (los `restantes` del rango); si no coincide, no se anula nada."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={"examples": [{"cantidad": 99990, "motivo": "Cambio de serie: este CAE no se usa más"}]},
    )

    cantidad: Annotated[StrictInt, Field(ge=1, le=9_999_999), WHOLE_NUMBER] = Field(
        description="Cuántos números quedan sin usar en el rango (sus `restantes`): la confirmación de la baja."
    )
    motivo: StrictStr = Field(min_length=3, max_length=200)


class CaeBajaOut(BaseModel):
    """El rango dado de baja (sin números restantes) y los números anulados, que se informan en el reporte
    diario de `fechaReporte`."""

    cae: CaeOut
    idAnulacion: int = Field(description="La anulación, como la lista /envios/anulaciones.")  # noqa: N815
    nroDesde: int  # noqa: N815
    nroHasta: int  # noqa: N815
    cantidad: int
    fechaReporte: date = Field(description="Día en cuyo reporte diario se informan los números anulados.")  # noqa: N815


class CaeList(BaseModel):
    """Los rangos de CAE de la empresa, por tipo y serie."""

    items: list[CaeOut]


class AuditEventOut(BaseModel):
    """Un cambio en la configuración de la empresa: quién, cuándo, qué y los valores antes y después."""

    fecha: datetime
    actor: str
    accion: str = Field(examples=["configuracion", "sucursal_creada", "certificado_cargado"])
    objeto: str | None = None
    cambios: dict[str, Any]


class AuditList(Page[AuditEventOut]):
    """Los cambios, del más reciente al más antiguo."""


# The day at a glance (GET /resumen) ---------------------------------------------------------------------------


class TodayByType(BaseModel):
    """Los comprobantes de hoy de un tipo en una moneda."""

    tipoCFE: int  # noqa: N815
    moneda: str = Field(description="Código ISO 4217 (UYU, USD, ...).")
    cantidad: int
    total: Decimal = Field(description="Suma de los montos a pagar (MntPagar).")


class TodayByCurrency(BaseModel):
    """Lo facturado hoy en una moneda."""

    moneda: str
    cantidad: int
    neto: Decimal = Field(
        description="e-Tickets y e-Facturas más sus notas de débito, menos sus notas de "
        "crédito (MntPagar); sin e-Remitos ni e-Resguardos."
    )


class TodayOut(BaseModel):
    """Los comprobantes con fecha de hoy (hora de Montevideo)."""

    fecha: date
    cantidad: int
    porTipo: list[TodayByType]  # noqa: N815
    porMoneda: list[TodayByCurrency]  # noqa: N815


class DgiStateCount(BaseModel):
    estado: str = Field(examples=["pendiente", "aceptado", "rechazado"])
    cantidad: int


class RejectedReceipt(BaseModel):
    """Un comprobante rechazado, para abrirlo y corregirlo."""

    id: str
    tipoCFE: int  # noqa: N815
    serie: str
    nro: int
    fecha: date
    estado: str


class DgiSummaryOut(BaseModel):
    """Los comprobantes de la empresa según su estado ante DGI."""

    porEstado: list[DgiStateCount]  # noqa: N815
    enEspera: int = Field(description="Los que DGI todavía no aceptó, rechazó ni observó.")  # noqa: N815
    rechazados: int = Field(description="Rechazados por DGI, ellos o su sobre.")
    ultimosRechazados: list[RejectedReceipt] = Field(description="Los 5 rechazados más recientes.")  # noqa: N815


class CaeInUse(CaeOut):
    """Un rango de CAE con el que todavía se puede numerar."""

    avisos: list[Literal["pocos_numeros", "por_vencer"]] = Field(
        description="pocos_numeros: queda menos del 10 % del rango; por_vencer: vence dentro de 30 días."
    )


# What a company still lacks before its receipts are right, in the order the Empresa pages set it up.
SetupStep = Literal["sin_resolucion_ni_fecha_emisor", "sin_domicilio", "sin_certificado", "sin_cae"]


class SummaryOut(BaseModel):
    """El día de la empresa de un vistazo: comprobantes de hoy, estado ante DGI, CAE y certificados, y lo que
    falta configurar antes de emitir."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "hoy": {
                        "fecha": "2025-06-02",
                        "cantidad": 3,
                        "porTipo": [
                            {"tipoCFE": 101, "moneda": "UYU", "cantidad": 2, "total": "376.00"},
                            {"tipoCFE": 111, "moneda": "USD", "cantidad": 1, "total": "1500.00"},
                        ],
                        "porMoneda": [
                            {"moneda": "UYU", "cantidad": 2, "neto": "376.00"},
                            {"moneda": "USD", "cantidad": 1, "neto": "1500.00"},
                        ],
                    },
                    "dgi": {
                        "porEstado": [{"estado": "aceptado", "cantidad": 40}, {"estado": "rechazado", "cantidad": 1}],
                        "enEspera": 0,
                        "rechazados": 1,
                        "ultimosRechazados": [
                            {
                                "id": "0123456789abcdef",
                                "tipoCFE": 111,
                                "serie": "A",
                                "nro": 25,
                                "fecha": "2025-06-01",
                                "estado": "rechazado",
                            }
                        ],
                    },
                    "cae": [
                        {
                            "id": 1,
                            "caeId": 90250100010,
                            "tipoCFE": 101,
                            "serie": "A",
                            "desde": 1,
                            "hasta": 1000,
                            "proximo": 951,
                            "restantes": 50,
                            "fechaAutorizacion": "2025-01-02",
                            "vencimiento": "2026-12-31",
                            "diasRestantes": 577,
                            "estado": "vigente",
                            "origen": "dgi",
                            "avisos": ["pocos_numeros"],
                        }
                    ],
                    "tiposSinCae": [],
                    "certificados": [
                        {
                            "id": 1,
                            "nombre": "Demo S.A.",
                            "sujeto": "CN=Demo S.A.",
                            "emisor": "CN=Correo Uruguayo",
                            "serie": "4242",
                            "rut": "219999830019",
                            "desde": "2025-01-01T00:00:00Z",
                            "hasta": "2025-06-20T00:00:00Z",
                            "diasRestantes": 18,
                            "estado": "por_vencer",
                        }
                    ],
                    "pendientes": [],
                }
            ]
        }
    )

    hoy: TodayOut
    dgi: DgiSummaryOut
    cae: list[CaeInUse] = Field(description="Los rangos que todavía numeran: ni agotados ni vencidos.")
    tiposSinCae: list[int] = Field(  # noqa: N815
        description="Tipos de CFE con CAE cargados pero ninguno utilizable (agotados o vencidos)."
    )
    certificados: list[CertificateOut] = Field(description="Del que vence último al que vence primero.")
    pendientes: list[SetupStep] = Field(
        description="Lo que falta configurar para emitir comprobantes completos, en el orden de las páginas de "
        "Empresa (vacía cuando no falta nada). `sin_resolucion_ni_fecha_emisor`: los datos fiscales no tienen la "
        "resolución de DGI ni la fecha de ingreso como emisor, y el pie del comprobante impreso no lleva la leyenda "
        "que DGI exige; `sin_domicilio`: ni sucursal ni domicilio fiscal (emitir responde 409 "
        "`emisor_sin_domicilio`); `sin_certificado`: ningún certificado de firma vigente; `sin_cae`: ningún rango "
        "de CAE que numere (emitir responde 409)."
    )


# Contingency books (CFC, types 2xx) -------------------------------------------------------------------------

# Every CFC type (portal.domain.cfe_types.CFC_TYPES, which a test holds this to): a Literal for the schema's enum.
CfcType = Literal[
    201, 202, 203, 211, 212, 213, 221, 222, 223, 224, 231, 232, 233, 241, 242, 243, 251, 252, 253, 281, 282
]


class LibretaIn(_In):
    """Una libreta de contingencia impresa que DGI autorizó (CAE de tipo F): tipo de CFC, serie, rango de
    números y fechas, tal como figuran en la constancia."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={
            "examples": [
                {
                    "tipoCFE": 211,
                    "serie": "A",
                    "desde": 1,
                    "hasta": 500,
                    "caeId": "90261234567",
                    "fechaAutorizacion": "2026-01-15",
                    "vencimiento": "2028-01-15",
                }
            ]
        },
    )

    tipoCFE: CfcType = Field(  # noqa: N815
        description="El tipo electrónico + 100: 201-203 e-Ticket, 211-213 e-Factura, 221-223 e-Factura de "
        "Exportación, 224 e-Remito de Exportación, 231-233 e-Ticket y 241-243 e-Factura de venta por cuenta ajena, "
        "251-253 e-Boleta de entrada, 281 e-Remito, 282 e-Resguardo."
    )
    serie: StrictStr = Field(pattern=r"^[A-Z]{1,2}$", description="La serie impresa (A a ZZ).")
    desde: Annotated[StrictInt, Field(ge=1, le=9_999_999), WHOLE_NUMBER]
    hasta: Annotated[StrictInt, Field(ge=1, le=9_999_999), WHOLE_NUMBER]
    caeId: StrictStr = Field(pattern=r"^\d{11}$", description="Número de la autorización de DGI (11 dígitos).")  # noqa: N815
    fechaAutorizacion: Day  # noqa: N815
    vencimiento: Day

    @model_validator(mode="wrap")
    @classmethod
    def _range_and_dates(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> LibretaIn:
        """The range and the dates are checked even when another field is wrong: one 422 lists every field's
        mistake (after a wrong caeId alone, the backwards range showed only once it was fixed)."""
        across = _book_problems(data) if isinstance(data, dict) else []
        try:
            book = handler(data)
        except ValidationError as exc:
            if not across:
                raise
            raise ValidationError.from_exception_data(exc.title, [*_details(exc), *across]) from None
        if across:
            raise ValidationError.from_exception_data(cls.__name__, across)
        return book


def _book_problems(data: dict) -> list[InitErrorDetails]:
    """A book's checks across fields, on what was sent (a value that is not a whole number or a day is left to
    its field's own check)."""
    problems: list[InitErrorDetails] = []
    first, last = data.get("desde"), data.get("hasta")
    if _whole(first) and _whole(last):
        if last < first:
            message = _("El último número no puede ser menor que el primero.")
            problems.append({"type": refuse("range", message), "loc": ("hasta",), "input": last})
        elif last - first + 1 > MAX_BOOK_NUMBERS:
            message = _("DGI autoriza hasta 999.999 números por libreta.")
            problems.append({"type": refuse("range", message), "loc": ("hasta",), "input": last})
    authorised, expires = _day(data.get("fechaAutorizacion")), _day(data.get("vencimiento"))
    if authorised and expires and expires <= authorised:
        message = _("El vencimiento debe ser posterior a la autorización.")
        problems.append({"type": refuse("range", message), "loc": ("vencimiento",), "input": data["vencimiento"]})
    elif authorised and expires and expires > latest_expiry(authorised):
        message = _(
            "DGI autoriza una libreta por 24 meses como máximo: vence a más tardar el {fecha:%d/%m/%Y}.",
            fecha=latest_expiry(authorised),
        )
        problems.append({"type": refuse("range", message), "loc": ("vencimiento",), "input": data["vencimiento"]})
    return problems


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _details(exc: ValidationError) -> list[InitErrorDetails]:
    """`exc`'s errors as they are raised again (a validator's own error keeps its code and catalogue message)."""
    details: list[InitErrorDetails] = []
    for err in exc.errors(include_url=False):
        ctx = err.get("ctx") or {}
        kind = err["type"] if err["type"] in BUILTIN_TYPES else PydanticCustomError(err["type"], err["msg"], ctx)
        detail: InitErrorDetails = {"type": kind, "loc": err["loc"], "input": err["input"]}
        if ctx:
            detail["ctx"] = ctx
        details.append(detail)
    return details


class LibretaOut(BaseModel):
    """Una libreta de contingencia registrada."""

    id: int
    tipoCFE: int  # noqa: N815
    serie: str
    desde: int
    hasta: int
    caeId: str  # noqa: N815
    fechaAutorizacion: date  # noqa: N815
    vencimiento: date
    vigente: bool = Field(description="Hoy está dentro de sus fechas.")
    registradaPor: str  # noqa: N815
    registradaEn: datetime  # noqa: N815
    usados: int = Field(0, description="Papeles ingresados (comprobantes de contingencia emitidos con esta libreta).")
    anulados: int = Field(0, description="Números anulados (papeles que nunca se usarán).")
    libres: int = Field(0, description="Números que quedan sin usar ni anular.")


class LibretaList(BaseModel):
    """Las libretas de contingencia de la empresa, por tipo y serie."""

    items: list[LibretaOut]


# _In: the reason is shown in the audit and the portal, so it takes a printed text's characters.
class AnularLibretaIn(_In):
    """Anular números de una libreta de contingencia que no se usarán (un papel roto, una libreta que vence)."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={"examples": [{"desde": 41, "hasta": 50, "motivo": "Papeles dañados"}]},
    )

    desde: Annotated[StrictInt, Field(ge=1, le=9_999_999), WHOLE_NUMBER]
    hasta: Annotated[StrictInt, Field(ge=1, le=9_999_999), WHOLE_NUMBER]
    motivo: StrictStr = Field(min_length=1, max_length=200, description="Por qué se anulan.")


class LibretaAnulacionOut(BaseModel):
    """Números anulados de una libreta de contingencia."""

    libreta: int
    tipoCFE: int  # noqa: N815
    serie: str
    desde: int
    hasta: int
    fecha: date
    motivo: str
    anuladaPor: str  # noqa: N815
