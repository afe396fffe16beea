"""Client methods of the Empresa endpoints (settings, branches, logo, certificates, CAE, audit, the day's
summary); their typed values are in empresa_records.py and empresa_summary.py (re-exported here)."""

from __future__ import annotations

from datetime import date

from portal.client import errors
from portal.client.empresa_records import (
    AuditChange,
    AuditEvent,
    Branch,
    CaeRange,
    ContingencyBook,
    FiscalSettings,
    Logo,
    RetiredCae,
    SigningCertificate,
    UploadedCae,
)
from portal.client.empresa_summary import (
    CaeRangeInUse,
    CurrencyTotal,
    DaySummary,
    DgiSummary,
    RejectedReceipt,
    TodayLine,
)
from portal.client.pages import Page, page_params
from portal.client.transport import Transport

BASE = "/api/v1/empresa"
__all__ = [
    "AuditChange",
    "AuditEvent",
    "Branch",
    "CaeRange",
    "CaeRangeInUse",
    "ContingencyBook",
    "CurrencyTotal",
    "DaySummary",
    "DgiSummary",
    "EmpresaApi",
    "FiscalSettings",
    "Logo",
    "RejectedReceipt",
    "RetiredCae",
    "SigningCertificate",
    "TodayLine",
    "UploadedCae",
]


class EmpresaApi(Transport):
    """The Empresa endpoints (one method per endpoint). Bearer JWT; admins change, members read."""

    def get_fiscal_settings(self) -> FiscalSettings:
        return FiscalSettings.from_json(self._json("GET", f"{BASE}/configuracion"))

    def update_fiscal_settings(self, settings: FiscalSettings) -> FiscalSettings:
        return FiscalSettings.from_json(self._json("PUT", f"{BASE}/configuracion", json=settings.to_json()))

    def list_branches(self) -> tuple[Branch, ...]:
        return tuple(Branch.from_json(b) for b in self._json("GET", f"{BASE}/sucursales")["items"])

    def create_branch(self, branch: Branch) -> Branch:
        return Branch.from_json(self._json("POST", f"{BASE}/sucursales", json=branch.to_json()))

    def update_branch(self, branch_id: int, branch: Branch) -> Branch:
        return Branch.from_json(self._json("PUT", f"{BASE}/sucursales/{int(branch_id)}", json=branch.to_json()))

    def retire_branch(self, branch_id: int) -> Branch:
        """Retire a branch (not the default one: Conflict); its receipts keep it, no new one uses it."""
        return Branch.from_json(self._json("POST", f"{BASE}/sucursales/{int(branch_id)}/baja"))

    def retire_certificate(self, certificate_id: int) -> SigningCertificate:
        """Retire a signing certificate (not the only one in force: Conflict); it never signs again."""
        return SigningCertificate.from_json(self._json("POST", f"{BASE}/certificados/{int(certificate_id)}/baja"))

    def get_logo(self) -> tuple[bytes, str]:
        """(image bytes, mimetype); NotFound when the company has none."""
        response = self._request("GET", f"{BASE}/logo", accept="image/png, image/jpeg")
        return response.content, response.headers.get("Content-Type", "application/octet-stream")

    def upload_logo(self, image: bytes, mimetype: str) -> Logo:
        return Logo.from_json(self._json("PUT", f"{BASE}/logo", data=image, headers_extra={"Content-Type": mimetype}))

    def delete_logo(self) -> None:
        self._request("DELETE", f"{BASE}/logo")

    def list_certificates(self) -> tuple[SigningCertificate, ...]:
        data = self._json("GET", f"{BASE}/certificados")
        return tuple(SigningCertificate.from_json(c) for c in data["items"])

    def upload_certificate(self, p12: bytes, password: str, name: str | None = None) -> SigningCertificate:
        form = {"password": password, **({"nombre": name} if name else {})}
        return SigningCertificate.from_json(
            self._json(
                "POST",
                f"{BASE}/certificados",
                data=form,
                files={"archivo": ("certificado.p12", p12, "application/x-pkcs12")},
            )
        )

    def list_cae_ranges(self) -> tuple[CaeRange, ...]:
        return tuple(CaeRange.from_json(r) for r in self._json("GET", f"{BASE}/cae")["items"])

    def upload_cae(self, xml: bytes) -> UploadedCae:
        response = self._request("POST", f"{BASE}/cae", data=xml, headers_extra={"Content-Type": "application/xml"})
        return UploadedCae(CaeRange.from_json(response.json()), created=response.status_code == 201)

    def retire_cae_range(self, range_id: int, *, count: int, reason: str) -> RetiredCae:
        """Void every unused number of a range at once. `count` confirms how many are left: another count is a
        Conflict that states the real one (nothing voided), as is a range with nothing left. Field errors name
        these parameters (count, reason)."""
        body = {"cantidad": count, "motivo": reason}
        with errors.fields_named({"cantidad": "count", "motivo": "reason"}):
            return RetiredCae.from_json(self._json("POST", f"{BASE}/cae/{int(range_id)}/baja", json=body))

    def list_contingency_books(self) -> tuple[ContingencyBook, ...]:
        return tuple(ContingencyBook.from_json(b) for b in self._json("GET", f"{BASE}/contingencia")["items"])

    def register_contingency_book(
        self,
        *,
        cfe_type: int,
        serie: str,
        first: int,
        last: int,
        cae_id: str,
        authorised_on: date,
        expires_on: date,
    ) -> ContingencyBook:
        """Register a printed contingency book (admin). Field errors name the service's fields (tipoCFE, serie,
        desde, hasta, caeId, fechaAutorizacion, vencimiento); an overlap is a Conflict."""
        body = {
            "tipoCFE": cfe_type,
            "serie": serie,
            "desde": first,
            "hasta": last,
            "caeId": cae_id,
            "fechaAutorizacion": authorised_on.isoformat(),
            "vencimiento": expires_on.isoformat(),
        }
        return ContingencyBook.from_json(self._json("POST", f"{BASE}/contingencia", json=body))

    def remove_contingency_book(self, book_id: int) -> None:
        """Remove a book registered by mistake (admin); one with papers keyed in or numbers voided is a Conflict."""
        self._request("DELETE", f"{BASE}/contingencia/{book_id}")

    def void_contingency_numbers(self, book_id: int, *, first: int, last: int, reason: str) -> None:
        """Void unused paper numbers first..last of a book (admin). Field errors name the service's fields (desde,
        hasta, motivo); numbers keyed in or voided already are a Conflict."""
        body = {"desde": first, "hasta": last, "motivo": reason}
        self._json("POST", f"{BASE}/contingencia/{book_id}/anulaciones", json=body)

    def get_day_summary(self) -> DaySummary:
        return DaySummary.from_json(self._json("GET", f"{BASE}/resumen"))

    def list_audit(self, *, cursor: str | None = None, limit: int | None = None) -> Page[AuditEvent]:
        """A page of the changes to the company's settings, newest first."""
        data = self._json("GET", f"{BASE}/auditoria", params=page_params(cursor, limit))
        return Page.from_json(data, AuditEvent.from_json)
