"""Request and response schemas of the clientes group."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from email_validator import EmailNotValidError, validate_email
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from portal.domain.identifiers import DNI_COUNTRIES, DocType, digits_only, is_valid_ci, is_valid_rut
from portal.service.cfe.codes import COUNTRIES
from portal.service.cfe.xmlchars import PrintedText
from portal.service.platform.i18n import _
from portal.service.platform.pydantic_errors import refuse

Moneda = Literal["UYU", "USD", "EUR", "ARS", "BRL"]
_EXAMPLE: dict[str, Any] = {
    "tipoDocRecep": 2,
    "codPaisRecep": "UY",
    "docRecep": "211003420017",
    "rznSocRecep": "Viajes Arapey S.R.L.",
    "dirRecep": "Av. 18 de Julio 1234",
    "ciudadRecep": "Montevideo",
    "deptoRecep": "Montevideo",
    "correo": "facturas@arapey.com.uy",
    "moneda": "UYU",
    "fmaPago": 2,
    "diasCredito": 30,
}


class _Body(PrintedText):
    """Its texts go on the receipts: refused or normalised as a CFE's are, and the schema says so."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)


class _Editable(_Body):
    """What a person keeps about a customer besides its identity."""

    rzn_soc_recep: str | None = Field(None, alias="rznSocRecep", min_length=1, max_length=150)
    dir_recep: str | None = Field(None, alias="dirRecep", max_length=70)
    ciudad_recep: str | None = Field(None, alias="ciudadRecep", max_length=30)
    depto_recep: str | None = Field(None, alias="deptoRecep", max_length=30)
    correo: str | None = Field(None, max_length=254, description="A dónde se le envían sus comprobantes.")
    moneda: Moneda | None = Field(None, description="Moneda en que se le factura por defecto.")
    fma_pago: Literal[1, 2] | None = Field(None, alias="fmaPago", description="1 contado, 2 crédito.")
    dias_credito: int | None = Field(
        None, alias="diasCredito", ge=0, le=365, description="Plazo de sus ventas a crédito."
    )

    @field_validator("correo")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if not value:
            return None
        try:
            return validate_email(value, check_deliverability=False, allow_smtputf8=False).normalized
        except EmailNotValidError as exc:
            raise refuse(
                "correo_invalido", _("La dirección de correo no es válida: {reason}", reason=str(exc))
            ) from exc


class NuevoCliente(_Editable):
    """A customer typed by a person (those of past receipts are added by themselves)."""

    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE]})

    tipo_doc_recep: Literal[2, 3, 4, 5, 6, 7] = Field(
        alias="tipoDocRecep", description="2 RUT, 3 C.I., 4 Otros, 5 Pasaporte, 6 DNI, 7 NIFE."
    )
    cod_pais_recep: str = Field("UY", alias="codPaisRecep", pattern=r"^([A-Z]{2}|99)$")
    doc_recep: str = Field(alias="docRecep", min_length=1, max_length=20)
    rzn_soc_recep: str = Field(alias="rznSocRecep", min_length=1, max_length=150)

    @model_validator(mode="before")
    @classmethod
    def _default_country(cls, data: Any) -> Any:
        """The default country written in, so that its check runs (a DNI left at UY is refused) and its refusal
        names codPaisRecep (pydantic names a default's error by the field's Python name)."""
        if isinstance(data, dict) and "codPaisRecep" not in data and "cod_pais_recep" not in data:
            return {**data, "codPaisRecep": "UY"}
        return data

    # Field validators, not one over the model: each refusal names its field (codPaisRecep, docRecep), so that a
    # form puts it beside that field. The type is declared before both, so `info.data` has it when it was valid.
    @field_validator("cod_pais_recep")
    @classmethod
    def _country(cls, country: str, info: ValidationInfo) -> str:
        doc_type = info.data.get("tipo_doc_recep")
        if doc_type in (2, 3):
            if country != "UY":
                raise refuse("pais_invalido", _("Un RUT o una cédula son de Uruguay (UY)."))
        elif doc_type == DocType.DNI and country not in DNI_COUNTRIES:
            raise refuse("pais_invalido", _("El DNI corresponde a AR, BR, CL o PY."))
        elif country not in COUNTRIES:
            raise refuse("pais_invalido", _("País desconocido: usá su código de dos letras o 99."))
        return country

    @field_validator("doc_recep")
    @classmethod
    def _document(cls, document: str, info: ValidationInfo) -> str:
        doc_type = info.data.get("tipo_doc_recep")
        if doc_type not in (2, 3):
            return document
        digits = digits_only(document)
        if not (is_valid_rut(digits) if doc_type == 2 else is_valid_ci(digits)):
            raise refuse("documento_invalido", _("El número de documento no es válido (dígito verificador)."))
        return digits


class CambioCliente(_Editable):
    """The fields to change; what is left out stays as it is. The identity (type, country, document) never changes."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"correo": "pagos@arapey.com.uy", "fmaPago": 2, "diasCredito": 45}]}
    )


class ClientesQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    q: str | None = Field(None, min_length=1, max_length=150, description="Comienzo del nombre o del documento.")
    cursor: str | None = Field(None, max_length=400)
    limite: int = Field(50, ge=1, le=200)


class Cliente(BaseModel):
    id: int
    tipoDocRecep: int  # noqa: N815 - the API's names
    codPaisRecep: str  # noqa: N815
    docRecep: str  # noqa: N815
    rznSocRecep: str  # noqa: N815
    dirRecep: str | None  # noqa: N815
    ciudadRecep: str | None  # noqa: N815
    deptoRecep: str | None  # noqa: N815
    correo: str | None
    moneda: str
    fmaPago: int  # noqa: N815
    diasCredito: int | None  # noqa: N815
    origen: Literal["comprobante", "manual"]
    ultimoComprobante: datetime | None  # noqa: N815


class PaginaClientes(BaseModel):
    items: list[Cliente]
    siguienteCursor: str | None  # noqa: N815


class Saldo(BaseModel):
    moneda: str
    saldo: Decimal = Field(description="Ventas a crédito y notas de débito menos notas de crédito.")
    comprobantes: int


class ComprobanteCliente(BaseModel):
    id: str
    tipoCFE: int  # noqa: N815
    serie: str
    nro: int
    fchEmis: str  # noqa: N815
    moneda: str
    mntPagar: Decimal  # noqa: N815
    importe: Decimal = Field(
        description="Lo que representa, como en la lista de comprobantes: su monto total, negativo en las notas de "
        "crédito; el total retenido en un e-Resguardo."
    )
    estadoDgi: str  # noqa: N815


class FichaCliente(Cliente):
    """A customer with its balance of credit sales and its latest receipts."""

    saldos: list[Saldo]
    comprobantes: list[ComprobanteCliente]
