"""CAE ranges: importing them and taking the next number, gapless, inside the caller's transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from sqlalchemy import bindparam, func, select, true, tuple_, update
from sqlalchemy.orm import Session

from portal.service.cfe import Numbering
from portal.service.cfe.cae import CaeRange
from portal.service.comprobante.models import CaeRangeRecord
from portal.service.platform import db
from portal.service.platform.errors import ApiError, Conflict
from portal.service.platform.groupcommit import Claim
from portal.service.platform.i18n import _, cfe_type
from portal.service.platform.models import Company

# Below this share of the range left, responses carry a warning so someone requests a new CAE in time.
LOW_RANGE_SHARE = 0.10
# Every issue runs these; compiled once and run on the transaction's DBAPI cursor (db.Prepared). Plain columns:
# the ORM's objects (and refreshing them) cost more than the query.
_RANGE = CaeRangeRecord.__table__.c
_RANGES_QUERY = (
    select(
        _RANGE.id,
        _RANGE.serie,
        _RANGE.dnro,
        _RANGE.hnro,
        _RANGE.next_nro,
        _RANGE.cae_id,
        _RANGE.fecha_autorizacion,
        _RANGE.vencimiento,
        _RANGE.cae_especial,
        _RANGE.causal_cae_esp,
    )
    .where(_RANGE.company_id == bindparam("company_id"), _RANGE.tipo_cfe == bindparam("tipo_cfe"))
    .order_by(_RANGE.vencimiento, _RANGE.id)
)
_RANGES_OF_TYPE = db.Prepared(_RANGES_QUERY.with_for_update())
_TAKE_NUMBER = db.Prepared(
    update(CaeRangeRecord.metadata.tables[CaeRangeRecord.__tablename__])  # the Table: __table__ is a FromClause
    .where(CaeRangeRecord.id == bindparam("range_id"))
    .values(next_nro=bindparam("following"))
)


class _Range(NamedTuple):
    """A row of _RANGES_OF_TYPE."""

    id: int
    serie: str
    dnro: int
    hnro: int
    next_nro: int
    cae_id: int
    fecha_autorizacion: date
    vencimiento: date
    cae_especial: int | None
    causal_cae_esp: int | None


# What a batch of issues claims before numbering (groupcommit.Claim): the ranges of each (company, type).
_KEYS = tuple_(_RANGE.company_id, _RANGE.tipo_cfe).in_(bindparam("keys", expanding=True))
# Waiting, in one order for every process (rows are locked as the sort yields them), so two never deadlock.
_CLAIM_WAITING = (
    select(_RANGE.id).where(_KEYS).order_by(_RANGE.company_id, _RANGE.tipo_cfe, _RANGE.id).with_for_update()
)
# Not waiting: each range locked unless another transaction holds it; per key, its ranges and how many were got.
_R = CaeRangeRecord.__table__.alias("r")
_GOT = select(_RANGE.id).where(_RANGE.id == _R.c.id).with_for_update(skip_locked=True).lateral("got")
_CLAIM_SKIPPING = (
    select(_R.c.company_id, _R.c.tipo_cfe, func.count().label("ranges"), func.count(_GOT.c.id).label("got"))
    .select_from(_R.outerjoin(_GOT, true()))
    .where(tuple_(_R.c.company_id, _R.c.tipo_cfe).in_(bindparam("keys", expanding=True)))
    .group_by(_R.c.company_id, _R.c.tipo_cfe)
)


def claim_ranges(session: Session, keys: list[tuple[int, int]], wait: bool) -> set[tuple[int, int]]:
    """Lock the CAE ranges of each (company, type) in `keys` for the batch's transaction (groupcommit.Claim);
    the keys whose ranges are all locked now (a key without ranges too: its issue answers sin_cae). Without
    `wait`, ranges another transaction holds are skipped. On SQLite the batch holds the database's write lock
    already: nothing to lock."""
    connection = db.connection_of(session)
    if connection.dialect.name != "postgresql":
        return set(keys)
    if wait:
        connection.execute(_CLAIM_WAITING, {"keys": keys}).all()
        return set(keys)
    held = {
        (row.company_id, row.tipo_cfe)
        for row in connection.execute(_CLAIM_SKIPPING, {"keys": keys})
        if row.got < row.ranges
    }
    return set(keys) - held


def range_claim(company_id: int, tipo_cfe: int) -> Claim:
    """What an issue of `tipo_cfe` for the company claims before it numbers (db.grouped_write)."""
    return Claim((company_id, tipo_cfe), claim_ranges)


def range_numbering(cae: CaeRangeRecord | _Range, nro: int) -> Numbering:
    """Number `nro` of a CAE range (its record, or its row as allocate reads it): what the CFE signs."""
    return Numbering.in_range(cae, nro)


@dataclass(frozen=True)
class Allocation:
    range_id: int | None  # None: a paper contingency receipt, numbered by its printed book
    numbering: Numbering
    warning: dict | None


def import_range(session: Session, company: Company, cae: CaeRange, xml: bytes | None, source: str = "dgi"):
    """Add a CAE range to a company (the caller commits). The CAE must be the company's own. The same CAE again
    is the range already loaded (not new); another file with the number of a CAE loaded is a 409 `cae_distinto`:
    DGI never reuses a CAE number, so one of the two files is not DGI's as it was issued."""
    if cae.rut != company.rut:
        raise ValueError(f"El CAE es del RUT {cae.rut}, no de {company.rut}.")
    existing = session.scalar(
        select(CaeRangeRecord).where(CaeRangeRecord.company_id == company.id, CaeRangeRecord.cae_id == cae.cae_id)
    )
    if existing:
        if _contents(existing) != _contents(cae):
            raise Conflict(
                _(
                    "El CAE {cae} ya está cargado con otros datos (tipo {tipo}, serie {serie}, números {desde} a "
                    "{hasta}): revisá que el archivo sea el que te entregó DGI, sin editarlo.",
                    cae=cae.cae_id,
                    tipo=cfe_type(existing.tipo_cfe),
                    serie=existing.serie,
                    desde=existing.dnro,
                    hasta=existing.hnro,
                ),
                code="cae_distinto",
            )
        return existing, False
    record = CaeRangeRecord(
        company_id=company.id,
        tipo_cfe=cae.tipo_cfe,
        serie=cae.serie,
        dnro=cae.dnro,
        hnro=cae.hnro,
        next_nro=cae.dnro,
        cae_id=cae.cae_id,
        fecha_autorizacion=cae.fecha_autorizacion,
        vencimiento=cae.vencimiento,
        cae_especial=cae.cae_especial,
        causal_cae_esp=cae.causal_cae_esp,
        source=source,
        xml=xml,
    )
    session.add(record)
    return record, True


def _contents(cae: CaeRange | CaeRangeRecord) -> tuple:
    """What DGI authorized with a CAE number: the same in a file and in the range loaded from it."""
    return (
        cae.tipo_cfe,
        cae.serie,
        cae.dnro,
        cae.hnro,
        cae.fecha_autorizacion,
        cae.vencimiento,
        cae.cae_especial,
        cae.causal_cae_esp,
    )


def _usable(ranges: list[_Range], tipo_cfe: int, fch_emis: date) -> list[_Range]:
    """The ranges that can number a receipt dated `fch_emis`, oldest first; a 409 `sin_cae` / `cae_agotado` /
    `cae_vencido` when none can."""
    if not ranges:
        raise ApiError(
            _(
                "La empresa no tiene CAE para el tipo {tipo}. Importá el archivo de CAE de DGI.",
                tipo=cfe_type(tipo_cfe),
            ),
            code="sin_cae",
            status=409,
        )
    usable = [
        r for r in ranges if r.next_nro <= r.hnro and r.vencimiento >= fch_emis and r.fecha_autorizacion <= fch_emis
    ]
    if not usable:
        if all(r.next_nro > r.hnro for r in ranges):
            raise ApiError(
                _(
                    "Se agotaron los números de CAE para el tipo {tipo}. Pedí un nuevo CAE a DGI.",
                    tipo=cfe_type(tipo_cfe),
                ),
                code="cae_agotado",
                status=409,
            )
        raise ApiError(
            _(
                "Los CAE del tipo {tipo} están vencidos (o no vigentes) para el {dia}. Pedí un nuevo CAE a DGI.",
                tipo=cfe_type(tipo_cfe),
                dia=f"{fch_emis:%d/%m/%Y}",
            ),
            code="cae_vencido",
            status=409,
        )
    return usable


def numbering_refusal(session: Session, company_id: int, tipo_cfe: int, fch_emis: date) -> ApiError | None:
    """What `allocate` would refuse now for this type and day, read without a lock (smart issuance's preview says
    it before the confirmation); None when a range can number it."""
    rows = session.execute(_RANGES_QUERY, {"company_id": company_id, "tipo_cfe": tipo_cfe})
    try:
        _usable([_Range._make(row) for row in rows], tipo_cfe, fch_emis)
    except ApiError as refusal:
        return refusal
    return None


def allocate(session: Session, company_id: int, tipo_cfe: int, fch_emis: date) -> Allocation:
    """The next number of the oldest usable range for this type, locked until the caller commits.

    Raises a 409 `cae_agotado` / `cae_vencido` / `sin_cae` when no range can number the receipt.
    """
    connection = db.connection_of(session)
    ranges = [
        _Range(*row) for row in _RANGES_OF_TYPE.rows(connection, {"company_id": company_id, "tipo_cfe": tipo_cfe})
    ]
    chosen = _usable(ranges, tipo_cfe, fch_emis)[0]
    nro = chosen.next_nro
    # Read with FOR UPDATE each time (SQLite: under the write lock), so a number given back by a rolled-back
    # savepoint is seen by the next issue of the batch.
    _TAKE_NUMBER.run(connection, {"range_id": chosen.id, "following": nro + 1}).close()
    numbering = range_numbering(chosen, nro)
    remaining_after = chosen.hnro - nro
    warning = None
    if remaining_after < (chosen.hnro - chosen.dnro + 1) * LOW_RANGE_SHARE:
        warning = {
            "codigo": "cae_por_agotarse",
            "mensaje": _(
                "Quedan {restantes} números en el CAE {cae} (serie {serie}, tipo {tipo}). Pedí un nuevo CAE a DGI.",
                restantes=remaining_after,
                cae=chosen.cae_id,
                serie=chosen.serie,
                tipo=cfe_type(tipo_cfe),
            ),
        }
    return Allocation(chosen.id, numbering, warning)
