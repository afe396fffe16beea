"""The company's DGI branches: list, create, update (audited), and which one a receipt is issued from.

Codes are unique per company; exactly one branch is the default once there is any. A company that has
none yet (created before this area) issues from the branch data on its `company` row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal.service.empresa import audit
from portal.service.empresa.models import Branch
from portal.service.empresa.schemas import BranchIn, BranchList, BranchOut
from portal.service.platform import db
from portal.service.platform.auth import Principal
from portal.service.platform.errors import Conflict, FieldError, NotFound, ValidationFailed
from portal.service.platform.i18n import _
from portal.service.platform.models import Company

_FIELDS = ("codigo", "nombre", "domicilio", "ciudad", "departamento", "predeterminada")


def _present(branch: Branch) -> BranchOut:
    return BranchOut(
        id=branch.id, activa=branch.retired_at is None, **{name: getattr(branch, name) for name in _FIELDS}
    )


def _values(branch: Branch) -> dict[str, Any]:
    return {name: getattr(branch, name) for name in _FIELDS}


def _all(session: Session, company_id: int, *, locked: bool = False) -> list[Branch]:
    """The company's branches; `locked` for a change: they are judged together (one default, never a retired
    one), so two admins' changes at once take turns instead of each judging the other's before it commits
    (PostgreSQL; SQLite writes one at a time)."""
    query = select(Branch).where(Branch.company_id == company_id).order_by(Branch.codigo)
    return list(session.scalars(query.with_for_update() if locked else query))


def list_branches(principal: Principal) -> BranchList:
    return BranchList(items=[_present(b) for b in _all(db.session(), principal.company_id)])


def _duplicate_code(code: int) -> ValidationFailed:
    message = _("Ya hay una sucursal con el código {code}.", code=code)
    return ValidationFailed([FieldError("codigo", "duplicado", message)], message=message)


def create(principal: Principal, body: BranchIn) -> BranchOut:
    with db.write_transaction() as session:
        existing = _all(session, principal.company_id, locked=True)
        if any(b.codigo == body.codigo for b in existing):
            raise _duplicate_code(body.codigo)
        branch = Branch(company_id=principal.company_id, **body.model_dump())
        # The first branch is the default whatever was asked: a company always has one to issue from.
        branch.predeterminada = body.predeterminada or not existing
        session.add(branch)
        _single_default(existing, branch)
        session.flush()
        audit.record(session, principal, "sucursal_creada", _values(branch), target=f"{branch.codigo} {branch.nombre}")
        result = _present(branch)
    return result


def update(principal: Principal, branch_id: int, body: BranchIn) -> BranchOut:
    """Replace a branch's data. Un-marking the default is refused: mark another branch instead."""
    with db.write_transaction() as session:
        existing = _all(session, principal.company_id, locked=True)
        branch = next((b for b in existing if b.id == branch_id), None)
        if branch is None:
            raise NotFound(_("No existe esa sucursal en la empresa."), code="sucursal_inexistente")
        if any(b.codigo == body.codigo and b.id != branch.id for b in existing):
            raise _duplicate_code(body.codigo)
        if branch.predeterminada and not body.predeterminada:
            message = _("Para cambiar la sucursal predeterminada, marcá otra como predeterminada.")
            raise ValidationFailed([FieldError("predeterminada", "unica", message)], message=message)
        if branch.retired_at is not None and body.predeterminada:
            message = _("Esa sucursal está dada de baja: no puede ser la predeterminada.")
            raise ValidationFailed([FieldError("predeterminada", "dada_de_baja", message)], message=message)
        before = _values(branch)
        for name, value in body.model_dump().items():
            setattr(branch, name, value)
        _single_default(existing, branch)
        changes = audit.diff(before, _values(branch))
        if changes:
            audit.record(session, principal, "sucursal_modificada", changes, target=f"{branch.codigo} {branch.nombre}")
        db.flush_unless_taken(session, _duplicate_code(body.codigo))  # another admin took the code meanwhile
        result = _present(branch)
    return result


def retire(principal: Principal, branch_id: int) -> BranchOut:
    """Retire a branch: no receipt is issued from it again; those issued keep it. The default one cannot be
    (mark another first); retiring one already retired changes nothing."""
    with db.write_transaction() as session:
        branch = next((b for b in _all(session, principal.company_id, locked=True) if b.id == branch_id), None)
        if branch is None:
            raise NotFound(_("No existe esa sucursal en la empresa."), code="sucursal_inexistente")
        if branch.predeterminada:
            raise Conflict(
                _("Es la sucursal predeterminada: marcá otra como predeterminada antes de darla de baja."),
                code="sucursal_predeterminada",
            )
        if branch.retired_at is None:
            branch.retired_at = datetime.now(UTC)
            audit.record(
                session,
                principal,
                "sucursal_dada_de_baja",
                {"activa": [True, False]},
                target=f"{branch.codigo} {branch.nombre}",
            )
        result = _present(branch)
    return result


def _single_default(branches: list[Branch], chosen: Branch) -> None:
    if chosen.predeterminada:
        for other in branches:
            if other is not chosen:
                other.predeterminada = False


def for_receipt(session: Session, company: Company, code: int | None) -> dict[str, Any]:
    """The Issuer's branch fields (sucursal, cdg_dgi_sucursal, domicilio_fiscal, ciudad, departamento)."""
    branches = _all(session, company.id)
    if not branches and code in (None, company.cdg_dgi_sucursal):
        return {
            "sucursal": company.sucursal,
            "cdg_dgi_sucursal": company.cdg_dgi_sucursal,
            "domicilio_fiscal": company.domicilio_fiscal,
            "ciudad": company.ciudad,
            "departamento": company.departamento,
        }
    chosen: Branch | None
    if code is None:
        chosen = next((b for b in branches if b.predeterminada), branches[0])
    else:
        chosen = next((b for b in branches if b.codigo == code), None)
    if chosen is None:
        message = _("La empresa no tiene una sucursal con el código {code}.", code=code)
        raise ValidationFailed([FieldError("cdgDGISucur", "sucursal_inexistente", message)], message=message)
    if chosen.retired_at is not None:
        message = _(
            "La sucursal {code} «{name}» está dada de baja: emití desde otra.", code=chosen.codigo, name=chosen.nombre
        )
        raise ValidationFailed([FieldError("cdgDGISucur", "sucursal_dada_de_baja", message)], message=message)
    return {
        "sucursal": chosen.nombre,
        "cdg_dgi_sucursal": chosen.codigo,
        "domicilio_fiscal": chosen.domicilio,
        "ciudad": chosen.ciudad,
        "departamento": chosen.departamento,
    }
