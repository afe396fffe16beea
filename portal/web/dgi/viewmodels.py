"""What the DGI page shows besides the service's answers: the certificate picker, the remembered choice, the
problems a lookup can run into, and the link that starts a receipt to a looked-up receiver."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import urlencode

from flask import current_app, session, url_for
from flask_babel import gettext as _
from flask_login import current_user
from wtforms.fields.choices import SelectChoice

from portal.client import errors as client_errors
from portal.client.dgi import Entity, EntityName
from portal.client.models import UserInfo
from portal.domain.cfe_types import E_FACTURA, E_TICKET
from portal.domain.identifiers import DocType
from portal.web.i18n import day

SESSION_KEY = "dgi_contexto"
RECEIPT_ENDPOINT = "comprobantes.new"
RECEIPT_PATH = "/comprobantes/nuevo"
# Lengths of the receiver fields in DGI's CFE schema (RznSocRecep, DirRecep, CiudadRecep, DeptoRecep).
_RECEIVER_LENGTHS = {"rznSocRecep": 150, "dirRecep": 70, "ciudadRecep": 30, "deptoRecep": 30}


@dataclass(frozen=True)
class LookupContext:
    """The company that asks DGI and the certificate it asks with."""

    company_id: int
    certificate_id: int


def remembered_context() -> LookupContext | None:
    """The certificate chosen for lookups, while it belongs to the company the user works in: switching
    company in the header must not leave lookups signing as the other company."""
    saved = session.get(SESSION_KEY)
    if not saved:
        return None
    current = current_user.company.id if current_user.company else None
    return LookupContext(*saved) if saved[0] == current else None


def remember_context(company_id: int, certificate_id: int) -> None:
    """Choose the certificate for lookups. A certificate of another of the user's companies makes that the
    company the user works in, so the header, the lookups and every other page speak for one company."""
    session[SESSION_KEY] = [company_id, certificate_id]
    session["company_id"] = company_id


@dataclass(frozen=True)
class CertificateOption:
    value: str
    label: str  # short enough for a phone's select: the company and the expiry day
    expired: bool
    name: str  # the certificate's own name, said under the select (a select cannot wrap a long label)


@dataclass(frozen=True)
class CompanyOptions:
    company_id: int
    label: str
    certificates: tuple[CertificateOption, ...]


@dataclass(frozen=True)
class Picker:
    """The choices the identity provider lists. `operator` when it lists no certificate: ids are typed."""

    companies: tuple[CompanyOptions, ...] = ()
    selected: LookupContext | None = None

    @property
    def operator(self) -> bool:
        return not any(c.certificates for c in self.companies)

    @property
    def selected_certificate(self) -> CertificateOption | None:
        if self.selected is None:
            return None
        value = f"{self.selected.company_id}:{self.selected.certificate_id}"
        return next((o for c in self.companies for o in c.certificates if o.value == value), None)

    def choices(self) -> list[SelectChoice]:
        """One optgroup per company; expired certificates are listed but cannot be picked."""
        return [
            SelectChoice(o.value, o.label, {"disabled": True} if o.expired else {}, c.label)
            for c in self.companies
            for o in c.certificates
        ]

    def allows(self, company_id: int, certificate_id: int) -> bool:
        value = f"{company_id}:{certificate_id}"
        return any(o.value == value and not o.expired for c in self.companies for o in c.certificates)


def build_picker(me: UserInfo, today: date) -> Picker:
    """The user's companies and certificates; the remembered choice, else the first usable certificate of
    the portal's current company (then of any company), which is remembered from then on."""
    companies = tuple(
        CompanyOptions(
            c.id,
            f"{c.name} (RUT {c.rut})",
            tuple(
                CertificateOption(
                    f"{c.id}:{cert.id}",
                    _("%(company)s · vence %(day)s", company=c.name, day=day(cert.expires)),
                    cert.expires < today,
                    cert.name,
                )
                for cert in c.certificates
            ),
        )
        for c in me.companies
    )
    selected = remembered_context()
    if selected is None:
        current = current_user.company.id if current_user.company else None
        usable = [
            (c.company_id, o)
            for c in sorted(companies, key=lambda c: c.company_id != current)
            for o in c.certificates
            if not o.expired
        ]
        if usable:
            company_id, option = usable[0]
            selected = LookupContext(company_id, int(option.value.partition(":")[2]))
            remember_context(selected.company_id, selected.certificate_id)
    return Picker(companies, selected)


@dataclass(frozen=True)
class Problem:
    """Why a lookup has no result, said for a person, with what to do next."""

    title: str
    message: str
    retry: bool = False
    fix_context: bool = False
    request_id: str | None = None
    details: tuple[str, ...] = ()


def no_context_problem() -> Problem:
    return Problem(
        _("Falta elegir el certificado"),
        _("Elegí arriba la empresa y el certificado con los que se consulta a DGI."),
        fix_context=True,
    )


def problem_for(exc: client_errors.CfeError) -> Problem | None:
    """The Problem for the service errors the page explains in place; None for the others."""
    request_id = exc.request_id
    if exc.code == "taxpayer_not_found":
        return Problem(
            _("DGI no tiene ese documento registrado"),
            _("Revisá el número: el dígito verificador es correcto, pero DGI no encontró a nadie con ese documento."),
            request_id=request_id,
        )
    if exc.code in ("certificado_no_encontrado", "empresa_ajena"):
        return Problem(
            _("No se puede consultar con ese certificado"),
            _("La empresa o el certificado elegidos no están disponibles para tu usuario. Elegí otros arriba."),
            fix_context=True,
            request_id=request_id,
        )
    if exc.code == "dgi_timeout":
        return Problem(
            _("DGI no responde"),
            _("DGI no respondió a tiempo. Reintentá en unos segundos."),
            retry=True,
            request_id=request_id,
        )
    if exc.code == "dgi_not_offered":
        return Problem(_("DGI no ofrece esta consulta"), exc.message, request_id=request_id)
    if exc.code.startswith("dgi_"):
        return Problem(
            _("DGI no responde"),
            _(
                "El servicio de DGI falló o no está disponible. Reintentá en unos segundos; si "
                "sigue igual, avisá a soporte con el código de abajo."
            ),
            retry=True,
            request_id=request_id,
            details=(exc.message,),
        )
    return None


def receipt_url(**params: str | int | None) -> str:
    """The receipt-issuing page with these query parameters (the receipts area reads them).

    Built with url_for when that page is registered, else from its documented path, so this page works
    whether or not the receipts area is deployed.
    """
    # Any: url_for's own keyword arguments (_external, _anchor...) are typed; these are all query values.
    given: dict[str, Any] = {k: v for k, v in params.items() if v not in (None, "")}
    if RECEIPT_ENDPOINT in current_app.view_functions:
        return url_for(RECEIPT_ENDPOINT, **given)
    return f"{RECEIPT_PATH}?{urlencode(given)}"


def _receiver(**fields: str | None) -> dict[str, str | None]:
    return {k: (v[: _RECEIVER_LENGTHS[k]].strip() if v and k in _RECEIVER_LENGTHS else v) for k, v in fields.items()}


def receiver_url(entity: Entity) -> str:
    """An e-Factura to this RUT, with its name and (when known) its fiscal address."""
    address = entity.address
    return receipt_url(
        tipoCFE=E_FACTURA,
        tipoDocRecep=int(DocType.RUT),
        docRecep=entity.rut,
        **_receiver(
            rznSocRecep=entity.name,
            dirRecep=address.street_line if address else None,
            ciudadRecep=address.locality if address else None,
            deptoRecep=address.department if address else None,
        ),
    )


def person_receiver_url(found: EntityName) -> str:
    """An e-Ticket to a person (CI, NIE) or an e-Factura to a RUT, with the registered name."""
    kind = E_FACTURA if found.doc_type == DocType.RUT else E_TICKET
    return receipt_url(
        tipoCFE=kind, tipoDocRecep=found.doc_type, docRecep=found.number, **_receiver(rznSocRecep=found.name)
    )
