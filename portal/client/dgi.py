"""Client methods of the DGI endpoints, and their typed results.

Every lookup is made for one company with one of its certificates. The company is sent both as the
service expects it (`idEmpresa`) and as the caller's working company (`X-Empresa-Id`), so a user of several
companies can look up as any of them without switching the portal's current company.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote

from portal.client.models import JsonObject, optional_date
from portal.client.transport import Transport

BASE = "/api/v1/dgi"


@dataclass(frozen=True)
class Contact:
    """A contact of an address as DGI lists it: kind ("CORREO ELECTRONICO", "TELEFONO FIJO") and value."""

    kind: str
    value: str

    @classmethod
    def from_json(cls, data: JsonObject) -> Contact:
        return cls(kind=data["tipo"], value=data["valor"])


@dataclass(frozen=True)
class Address:
    """The fiscal address of the taxpayer's main establishment."""

    street: str
    number: str | None
    apartment: str | None
    locality: str
    department_id: int | None
    department: str
    postal_code: str | None
    contacts: tuple[Contact, ...] = ()

    @classmethod
    def from_json(cls, data: JsonObject) -> Address:
        return cls(
            street=data["calle"],
            number=data.get("numero"),
            apartment=data.get("apartamento"),
            locality=data["localidad"],
            department_id=data.get("departamentoId"),
            department=data["departamentoNombre"],
            postal_code=data.get("codigoPostal"),
            contacts=tuple(Contact.from_json(c) for c in data.get("contactos") or ()),
        )

    @property
    def street_line(self) -> str:
        """Street and door number, the way a receipt's DirRecep carries them."""
        return " ".join(part for part in (self.street, self.number) if part)


@dataclass(frozen=True)
class Activity:
    """A registered activity ("giro"): CIIU code, name and start date."""

    code: str
    name: str
    since: date | None

    @classmethod
    def from_json(cls, data: JsonObject) -> Activity:
        return cls(code=data["giroCod"], name=data["giroNom"], since=optional_date(data.get("fechaInicio")))


@dataclass(frozen=True)
class Entity:
    """A taxpayer as DGI's RUT registry knows it.

    `address` and `activities` are None in a `lookup_rut` answer (identity only) and filled by
    `lookup_entity_data`. `electronic_issuer` is None when the DGI service asked does not say.
    """

    rut: str
    name: str
    trade_name: str | None
    entity_type: str
    entity_type_description: str
    state: str
    state_description: str
    active: bool
    started: date | None
    electronic_issuer: bool | None
    electronic_issuer_since: date | None
    address: Address | None = None
    activities: tuple[Activity, ...] | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> Entity:
        address = data.get("domicilioFiscal")
        activities = data.get("actividades")
        return cls(
            rut=data["rut"],
            name=data["denominacion"],
            trade_name=data.get("nombreFantasia"),
            entity_type=data["tipoEntidad"],
            entity_type_description=data["tipoEntidadDescripcion"],
            state=data["estadoActividad"],
            state_description=data["estadoActividadDescripcion"],
            active=bool(data["activo"]),
            started=optional_date(data.get("fechaInicioActividad")),
            electronic_issuer=data.get("emisorElectronico"),
            electronic_issuer_since=optional_date(data.get("emisorElectronicoDesde")),
            address=Address.from_json(address) if address else None,
            activities=tuple(Activity.from_json(a) for a in activities) if activities is not None else None,
        )


@dataclass(frozen=True)
class EntityName:
    """The name DGI registers for a document (tipoDoc: 1 NIE, 2 RUT, 3 CI)."""

    doc_type: int
    number: str
    name: str

    @classmethod
    def from_json(cls, data: JsonObject) -> EntityName:
        return cls(doc_type=int(data["tipoDoc"]), number=data["nroDoc"], name=data["nombre"])


@dataclass(frozen=True)
class CvaStatus:
    """The taxpayer's Certificado de Vigencia Anual: `state` is VIGENTE, VENCIDO or SIN_CERTIFICADO."""

    rut: str
    name: str
    current: bool
    state: str
    number: str | None
    issued: date | None
    expires: date | None

    @classmethod
    def from_json(cls, data: JsonObject) -> CvaStatus:
        return cls(
            rut=data["rut"],
            name=data["denominacion"],
            current=bool(data["vigente"]),
            state=data["estado"],
            number=data.get("numero"),
            issued=optional_date(data.get("fechaEmision")),
            expires=optional_date(data.get("fechaVencimiento")),
        )


class DgiApi(Transport):
    """The DGI endpoints (one method per endpoint). Each takes the company and the certificate to use."""

    def _dgi(self, path: str, company_id: int, certificate_id: int, **params: Any) -> Any:
        as_company = Transport(self._client, {**self._headers, "X-Empresa-Id": str(company_id)}, self.request_id)
        # A 502/504 here means DGI failed after the service already waited its bounded timeout: asking again
        # would triple the person's wait, so these calls are not retried on status.
        return as_company._json(
            "GET",
            BASE + path,
            retry_on_status=False,
            params={"idEmpresa": company_id, "idCertificado": certificate_id, **params},
        )

    def lookup_rut(self, rut: str, *, company_id: int, certificate_id: int) -> Entity:
        """GET /dgi/consultaRut/{rut}: the taxpayer's identity (no address, no activities)."""
        return Entity.from_json(self._dgi(f"/consultaRut/{quote(rut, safe='')}", company_id, certificate_id))

    def lookup_entity_name(self, doc_type: int, number: str, *, company_id: int, certificate_id: int) -> EntityName:
        """GET /dgi/consultaNombreEntidad: the name registered for a NIE (1), RUT (2) or CI (3)."""
        return EntityName.from_json(
            self._dgi("/consultaNombreEntidad", company_id, certificate_id, tipoDoc=doc_type, nroDoc=number)
        )

    def lookup_cva(self, rut: str, *, company_id: int, certificate_id: int) -> CvaStatus:
        """GET /dgi/consultaCva/{rut}: the taxpayer's annual tax-compliance certificate."""
        return CvaStatus.from_json(self._dgi(f"/consultaCva/{quote(rut, safe='')}", company_id, certificate_id))

    def lookup_entity_data(self, rut: str, *, company_id: int, certificate_id: int) -> Entity:
        """GET /dgi/consultaDatosEntidad/{rut}: identity, fiscal address with contacts, activities."""
        return Entity.from_json(self._dgi(f"/consultaDatosEntidad/{quote(rut, safe='')}", company_id, certificate_id))
