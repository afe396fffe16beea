"""Filling the directory of electronic issuers: daily, from DGI's ws_consultas (or the embedded simulator's list
in development), asking for what changed since the last good refresh (a day of overlap), or everything when
the directory was never filled. Each refresh is recorded (intercambio_actualizacion) with its outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app
from sqlalchemy import select

from portal.service.envios import consultas
from portal.service.envios.consultas import ElectronicIssuer
from portal.service.intercambio.directory import upsert_issuer
from portal.service.intercambio.models import DirectoryRefresh
from portal.service.intercambio.simulated import simulated_issuers
from portal.service.platform import db
from portal.service.platform.errors import ApiError
from portal.service.platform.i18n import _
from portal.service.platform.keystore import private_key_pem, signing_certificate
from portal.service.platform.models import Company

EVERYTHING = datetime(2000, 1, 1, tzinfo=UTC)  # DGI's filter is required: "changed since" the beginning
OVERLAP = timedelta(days=1)


@dataclass(frozen=True)
class RefreshResult:
    source: str
    since: datetime
    count: int


def _source(config: Mapping[str, Any]) -> str:
    return "dgi" if config["INTERCAMBIO_DIRECTORY"] == "soap" else "simulador"


def _since(session, source: str, full: bool) -> datetime:
    if full:
        return EVERYTHING
    last = session.scalar(
        select(DirectoryRefresh.started_at)
        .where(
            DirectoryRefresh.source == source,
            DirectoryRefresh.error.is_(None),
            DirectoryRefresh.finished_at.is_not(None),
        )
        .order_by(DirectoryRefresh.started_at.desc())
        .limit(1)
    )
    return EVERYTHING if last is None else last - OVERLAP


def _client(session, config: Mapping[str, Any]) -> consultas.ConsultasClient:
    """A client signing with a current certificate of one of the companies (DGI asks a registered one)."""
    for company_id in session.scalars(select(Company.id).order_by(Company.id)):
        try:
            cert = signing_certificate(session, company_id)
        except ApiError:  # that company has no current certificate: try the next one
            continue
        return consultas.ConsultasClient(
            private_key_pem(cert),
            cert.cert_pem.encode(),
            url=config["INTERCAMBIO_CONSULTAS_URL"] or None,
            timeout=float(config["INTERCAMBIO_CONSULTAS_TIMEOUT_SECONDS"]),
            digest=config.get("DGI_SIGNATURE_DIGEST") or "sha256",
        )
    raise consultas.DirectoryUnavailable(_("Ninguna empresa tiene un certificado vigente con el que consultar a DGI."))


def fetch(session, config: Mapping[str, Any], since: datetime, rut: str | None = None) -> list[ElectronicIssuer]:
    """The issuers changed since `since` (or only `rut`, DGI's Filtro_eFacDocNro), the PROV variant's
    web-service URL and technical e-mail merged in."""
    if _source(config) == "simulador":
        return simulated_issuers(config, since, rut)
    client = _client(session, config)
    merged = {issuer.rut: issuer for issuer in client.issuers("EFACCONSULTARRUCEMISORES", since, rut)}
    for prov in client.issuers("EFACCONSULTARRUCEMISORESPROV", since, rut):
        base = merged.get(prov.rut, prov)
        merged[prov.rut] = ElectronicIssuer(
            base.rut,
            base.name,
            base.exchange_email or prov.exchange_email,
            prov.ws_url,
            base.transition_from,
            base.transition_to,
            prov.tech_email,
        )
    return list(merged.values())


def refresh(full: bool = False) -> RefreshResult:
    """Bring the directory up to date. Raises DirectoryUnavailable (recorded) when the source cannot answer."""
    config = current_app.config
    source = _source(config)
    with db.write_transaction() as session:
        since = _since(session, source, full)
        run = DirectoryRefresh(source=source, since=since, started_at=datetime.now(UTC), count=0)
        session.add(run)
        session.flush()
        run_id = run.id
    try:
        with db.new_session() as session:
            issuers = fetch(session, config, since)
    except consultas.DirectoryUnavailable as exc:
        with db.write_transaction() as session:
            failed = session.get_one(DirectoryRefresh, run_id)
            failed.error, failed.finished_at = str(exc)[:500], datetime.now(UTC)
        raise
    with db.write_transaction() as session:
        for issuer in issuers:
            upsert_issuer(session, issuer, source)
        done = session.get_one(DirectoryRefresh, run_id)
        done.count, done.finished_at = len(issuers), datetime.now(UTC)
    return RefreshResult(source, since, len(issuers))


def refresh_receiver(rut: str) -> ElectronicIssuer | None:
    """Read one receiver's entry afresh from the source (it may have fixed its web service or its exchange
    address since the daily refresh) and keep it. Not recorded as a refresh: the next daily one must still ask
    for every change since the last whole one. None when the source does not list the RUT (the entry kept, as
    the daily refresh never deletes one either). Raises DirectoryUnavailable when the source cannot answer."""
    config = current_app.config
    with db.new_session() as session:
        found = [issuer for issuer in fetch(session, config, EVERYTHING, rut) if issuer.rut == rut]
    if not found:
        return None
    with db.write_transaction() as session:
        upsert_issuer(session, found[0], _source(config))
    return found[0]


def last_refresh(session) -> DirectoryRefresh | None:
    return session.scalar(select(DirectoryRefresh).order_by(DirectoryRefresh.started_at.desc()).limit(1))
