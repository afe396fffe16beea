"""Fan-out and delivery, run by the worker (tasks.py).

`fan_out` turns each event not yet dispatched into one delivery per active endpoint of its company that
hears its type. `deliver_due` takes a lease on a batch of due deliveries, sends them (one keep-alive HTTP
session per connection, up to four connections per endpoint and eight in all, in parallel), and records
every attempt and its outcome in one transaction.

At least once: a delivery is final only once an endpoint answered 2xx (delivered) or a day of retries has
passed (failed); a worker that dies mid-batch leaves leases that expire, and the sweep sends them again.
Retries back off exponentially (WEBHOOKS_RETRY_BASE_SECONDS × 4ⁿ, at most four hours between attempts).
An endpoint whose attempts have all failed for WEBHOOKS_RETRY_HOURS is disabled and its admins are told.
After a failure on one connection, the rest of that connection's share waits for the failed one's retry: a
server that is down is not sent a whole batch of 10-second timeouts.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import requests
from flask import current_app
from requests.adapters import HTTPAdapter
from sqlalchemy import delete, insert, select, update
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.poolmanager import PoolManager
from urllib3.util import connection

from portal.service.eventos.models import Event
from portal.service.platform import db, responses
from portal.service.platform.i18n import Text, _, stored
from portal.service.webhooks import guard, notices, signing
from portal.service.webhooks.models import (
    DELIVERED,
    FAILED,
    PENDING,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)

BATCH = 500
LEASE = timedelta(minutes=2)
MAX_DELAY = timedelta(hours=4)
HEAD_BYTES = 500
PARALLEL_CONNECTIONS = 8
CONNECTIONS_PER_ENDPOINT = 4


def _now() -> datetime:
    return datetime.now(UTC)


def retry_delay(attempts: int) -> timedelta:
    """Wait after the `attempts`-th failed attempt: base, 4×base, 16×base... at most four hours."""
    base = float(current_app.config["WEBHOOKS_RETRY_BASE_SECONDS"])
    return min(timedelta(seconds=base * 4 ** (attempts - 1)), MAX_DELAY)


def retry_window() -> timedelta:
    return timedelta(hours=float(current_app.config["WEBHOOKS_RETRY_HOURS"]))


# --- fan-out ---------------------------------------------------------------------------------------------


def fan_out(now: datetime | None = None, limit: int = 2000) -> int:
    """Dispatch the oldest events not yet dispatched; returns how many deliveries it created."""
    now = now or _now()
    created = 0
    with db.write_transaction() as session:
        events = session.execute(
            select(Event.id, Event.company_id, Event.type)
            .where(Event.dispatched_at.is_(None))
            .order_by(Event.created_at)
            .limit(limit)
        ).all()
        if not events:
            return 0
        companies = {e.company_id for e in events}
        listeners: dict[int, list[tuple[str, set[str]]]] = defaultdict(list)
        for endpoint_id, company_id, types in session.execute(
            select(WebhookEndpoint.id, WebhookEndpoint.company_id, WebhookEndpoint.events).where(
                WebhookEndpoint.company_id.in_(companies), WebhookEndpoint.active.is_(True)
            )
        ):
            listeners[company_id].append((endpoint_id, set(types)))
        rows = [
            {
                "endpoint_id": endpoint_id,
                "company_id": e.company_id,
                "event_id": e.id,
                "event_type": e.type,
                "state": PENDING,
                "attempts": 0,
                "next_attempt_at": now,
                "created_at": now,
            }
            for e in events
            for endpoint_id, types in listeners.get(e.company_id, ())
            if e.type in types
        ]
        if rows:
            session.execute(insert(WebhookDelivery), rows)
            created = len(rows)
        session.execute(update(Event).where(Event.id.in_([e.id for e in events])).values(dispatched_at=now))
    return created


def pending_events() -> bool:
    with db.new_session() as session:
        return session.scalar(select(Event.id).where(Event.dispatched_at.is_(None)).limit(1)) is not None


# --- delivery --------------------------------------------------------------------------------------------


@dataclass
class _Job:
    delivery_id: int
    endpoint_id: str
    event_id: str
    event_type: str
    body: str
    attempts: int
    created_at: datetime


@dataclass
class _Target:
    id: str
    company_id: int
    url: str
    secrets: list[str]
    failing_since: datetime | None


@dataclass
class _Result:
    job: _Job
    attempted_at: datetime
    duration_ms: int
    status: int | None
    error: Text | None
    head: str | None
    sent: bool  # False: not tried in this batch (its endpoint failed earlier in it)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def body_of(event_type: str, event_id: str, created_at: datetime, data: dict) -> str:
    """The JSON every endpoint receives: Standard Webhooks' `type`, `timestamp` and `data`, and our event id. The
    timestamp is written as the API and the data write moments (UTC with `Z`), so one body reads one way."""
    return json.dumps(
        {"id": event_id, "type": event_type, "timestamp": responses.moment(created_at), "data": data},
        separators=(",", ":"),
        ensure_ascii=False,
    )


def _lease(now: datetime, limit: int, delivery_id: int | None) -> tuple[list[_Job], dict[str, _Target]]:
    with db.write_transaction() as session:
        due = (
            select(WebhookDelivery.id)
            .where(
                WebhookDelivery.state == PENDING,
                WebhookDelivery.next_attempt_at <= now,
                (WebhookDelivery.lease_until.is_(None)) | (WebhookDelivery.lease_until < now),
            )
            .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id)
            .limit(limit)
        )
        if delivery_id is not None:
            due = due.where(WebhookDelivery.id == delivery_id)
        ids = list(session.scalars(due))
        if not ids:
            return [], {}
        session.execute(update(WebhookDelivery).where(WebhookDelivery.id.in_(ids)).values(lease_until=now + LEASE))
        rows = session.execute(
            select(WebhookDelivery, Event.data, Event.created_at)
            .join(Event, Event.id == WebhookDelivery.event_id)
            .where(WebhookDelivery.id.in_(ids))
            .order_by(WebhookDelivery.id)
        ).all()
        endpoint_ids = {d.endpoint_id for d, _data, _at in rows}
        targets = {}
        for endpoint in session.scalars(select(WebhookEndpoint).where(WebhookEndpoint.id.in_(endpoint_ids))):
            keys = [signing.unseal(endpoint.secret_encrypted)]
            if endpoint.previous_secret_encrypted and (endpoint.previous_secret_until or now) > now:
                keys.append(signing.unseal(endpoint.previous_secret_encrypted))
            if endpoint.active:
                targets[endpoint.id] = _Target(
                    endpoint.id, endpoint.company_id, endpoint.url, keys, endpoint.failing_since
                )
        jobs = [
            _Job(
                d.id,
                d.endpoint_id,
                d.event_id,
                d.event_type,
                body_of(d.event_type, d.event_id, at, data),
                d.attempts,
                d.created_at,
            )
            for d, data, at in rows
        ]
        return jobs, targets


def deliver_due(now: datetime | None = None, limit: int = BATCH, delivery_id: int | None = None) -> int:
    """Send a batch of due deliveries and record what became of them; returns how many were attempted."""
    now = now or _now()
    jobs, targets = _lease(now, limit, delivery_id)
    if not jobs:
        return 0
    by_endpoint: dict[str, list[_Job]] = defaultdict(list)
    for job in jobs:
        by_endpoint[job.endpoint_id].append(job)
    orphans = [job for job in jobs if job.endpoint_id not in targets]  # disabled or deleted meanwhile
    # Up to CONNECTIONS_PER_ENDPOINT keep-alive connections per endpoint, each sending its share in order.
    groups = [
        (targets[eid], group[lane::CONNECTIONS_PER_ENDPOINT])
        for eid, group in by_endpoint.items()
        if eid in targets
        for lane in range(min(CONNECTIONS_PER_ENDPOINT, len(group)))
    ]
    settings = _Settings.from_app()
    results: list[_Result] = []
    if len(groups) == 1:
        results = _send_group(settings, *groups[0])
    elif groups:
        with ThreadPoolExecutor(min(PARALLEL_CONNECTIONS, len(groups))) as pool:
            for part in pool.map(lambda g: _send_group(settings, *g), groups):
                results.extend(part)
    _record(now, results, orphans, targets)
    return sum(r.sent for r in results)


@dataclass(frozen=True)
class _Settings:
    timeout: float
    allow_private: bool
    # No attempt starts after this moment (time.monotonic): the batch, recorded when its last group ends, must end
    # within its lease, or the next run leases its deliveries again and sends them twice. Half the lease, plus one
    # attempt (WEBHOOKS_TIMEOUT_SECONDS, at most 30 s), is less than the lease.
    last_start: float

    @classmethod
    def from_app(cls) -> _Settings:
        return cls(
            float(current_app.config["WEBHOOKS_TIMEOUT_SECONDS"]),
            bool(current_app.config["WEBHOOKS_ALLOW_PRIVATE"]),
            time.monotonic() + LEASE.total_seconds() / 2,
        )


def _send_group(settings: _Settings, target: _Target, group: list[_Job]) -> list[_Result]:
    """Send one endpoint's jobs in order over one keep-alive session; after a failure, or once the batch's time
    is up, the rest wait."""
    results: list[_Result] = []
    try:
        addresses = guard.addresses(target.url, allow_private=settings.allow_private)
    except guard.UnsafeUrl as exc:
        first = _Result(group[0], _now(), 0, None, exc.message, None, True)
        return [first, *(_Result(job, first.attempted_at, 0, None, None, None, False) for job in group[1:])]
    with requests.Session() as http:
        http.trust_env = False  # a proxy from the environment must not carry companies' webhooks
        http.mount("http://", _WatchedAdapter(addresses))
        http.mount("https://", _WatchedAdapter(addresses))
        failed = False
        for job in group:
            if failed or time.monotonic() > settings.last_start:
                results.append(_Result(job, _now(), 0, None, None, None, False))
                continue
            result = _post(http, settings, target, job)
            results.append(result)
            failed = not result.ok
    return results


# --- the whole attempt within the timeout ---------------------------------------------------------------------
# requests' timeout bounds each read, not the answer: an endpoint that sends a header line every 9 seconds would
# hold the worker's thread for ever, and with it the batch of every company (recorded only when all groups end,
# sent again to all when its lease expires). A watchdog shuts the attempt's socket when the timeout has passed.


class _Watch:
    """One attempt's socket, for the watchdog timer (another thread) to shut."""

    def __init__(self) -> None:
        self.sock: socket.socket | None = None
        self.fired = False

    def watch(self, sock: socket.socket | None) -> None:
        self.sock = sock
        if self.fired:  # the time ran out before this socket was handed over
            self.cut()

    def cut(self) -> None:
        self.fired = True
        sock = self.sock
        if sock is not None:
            try:  # socket.socket's shutdown, not SSLSocket's (which drops its TLS object under the reader's feet)
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass


_watching = threading.local()  # the _Watch of the attempt this thread is making


def _watched(sock: socket.socket | None) -> None:
    watch = getattr(_watching, "watch", None)
    if watch is not None:
        watch.watch(sock)


# --- connections to the checked addresses only -------------------------------------------------------------------
# The session serves one endpoint's URL (no redirects followed) and connects to the addresses the guard resolved
# and checked for its host, never to what the name resolves to by then (DNS rebinding). Only the TCP destination
# is pinned: the URL is unchanged, so the Host header, TLS's SNI and the certificate's check name the URL's host.


class _WatchedHTTPConnection(HTTPConnection):
    def __init__(self, *args: Any, pinned: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pinned = pinned

    def _new_conn(self) -> socket.socket:
        sock = self._pinned_conn()
        _watched(sock)  # a new connection: its TLS handshake is watched too
        return sock

    def _pinned_conn(self) -> socket.socket:
        """urllib3's `_new_conn`, to each checked address in turn instead of the name."""
        error: OSError | None = None
        for address in self.pinned:
            try:
                return connection.create_connection(
                    (address, self.port),
                    self.timeout,
                    source_address=self.source_address,
                    socket_options=self.socket_options,
                )
            except OSError as exc:  # the next address, as urllib3 does with the resolver's answers
                error = exc
        if isinstance(error, TimeoutError):
            raise ConnectTimeoutError(
                self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})"
            ) from error
        raise NewConnectionError(self, f"Failed to establish a new connection: {error or 'no checked address'}")

    def getresponse(self, *args, **kwargs):
        _watched(self.sock)  # a kept-alive connection, or the TLS socket over the new one
        return super().getresponse(*args, **kwargs)


class _WatchedHTTPSConnection(_WatchedHTTPConnection, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class _PinnedPoolManager(PoolManager):
    """Hands the checked addresses to every connection of its pools (urllib3's `_new_pool` is the place for it)."""

    def __init__(self, pinned: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pinned = pinned
        self.pool_classes_by_scheme = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}

    def _new_pool(
        self, scheme: str, host: str, port: int, request_context: dict[str, Any] | None = None
    ) -> HTTPConnectionPool:
        context = dict(self.connection_pool_kw if request_context is None else request_context)
        context["pinned"] = self.pinned  # a pool's keyword arguments it does not know go to its connections
        return super()._new_pool(scheme, host, port, context)


class _WatchedAdapter(HTTPAdapter):
    def __init__(self, pinned: tuple[str, ...]) -> None:
        self.pinned = pinned  # before HTTPAdapter's __init__, which makes the pool manager
        super().__init__()

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        super().init_poolmanager(connections, maxsize, block, **pool_kwargs)
        self.poolmanager = _PinnedPoolManager(
            self.pinned, num_pools=connections, maxsize=maxsize, block=block, **pool_kwargs
        )


def _no_answer(settings: _Settings) -> Text:
    return _("Sin respuesta en {segundos} s.", segundos=f"{settings.timeout:g}")


def _post(http: requests.Session, settings: _Settings, target: _Target, job: _Job) -> _Result:
    moment = _now()
    headers = signing.headers(job.event_id, moment, job.body, target.secrets)
    headers["user-agent"] = "cfe-portal-webhooks/1"
    started = time.perf_counter()
    watch = _watching.watch = _Watch()
    watchdog = threading.Timer(settings.timeout, watch.cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        response = http.post(
            target.url,
            data=job.body.encode(),
            headers=headers,
            timeout=settings.timeout,
            allow_redirects=False,
            stream=True,
        )
        try:
            head = response.raw.read(HEAD_BYTES, decode_content=True) or b""
        finally:
            response.close()
        status, error = response.status_code, None
        if 300 <= status < 400:
            error = _(
                "Redirección a {destino}: no se siguen redirecciones.",
                destino=response.headers.get("location", "?")[:200],
            )
        text = head.decode("utf-8", "replace")
    except requests.Timeout:
        status, error, text = None, _no_answer(settings), None
    except requests.RequestException as exc:
        status, error, text = None, _("No se pudo conectar: {causa}.", causa=type(exc).__name__), None
    finally:
        watchdog.cancel()
        _watching.watch = None
    if watch.fired:  # cut by the watchdog: what came before (even a status line) came too late
        status, error, text = None, _no_answer(settings), None
    duration = int((time.perf_counter() - started) * 1000)
    return _Result(job, moment, duration, status, error, text, True)


def _record(now: datetime, results: list[_Result], orphans: list[_Job], targets: dict[str, _Target]) -> None:
    window = retry_window()
    disabled: list[WebhookEndpoint] = []
    with db.write_transaction() as session:
        # A webhook deleted while its batch was sent took its deliveries with it (the foreign keys cascade): what
        # was sent for it is not recorded, and the rest of the batch is (recording it would fail the transaction,
        # and the others, left leased, would be sent again). Locked, so that no delete comes in between.
        ids = [r.job.delivery_id for r in results] + [j.delivery_id for j in orphans]
        alive = set(session.scalars(select(WebhookDelivery.id).where(WebhookDelivery.id.in_(ids)).with_for_update()))
        results = [r for r in results if r.job.delivery_id in alive]
        orphans = [j for j in orphans if j.delivery_id in alive]
        attempts = [
            {
                "delivery_id": r.job.delivery_id,
                "endpoint_id": r.job.endpoint_id,
                "event_id": r.job.event_id,
                "event_type": r.job.event_type,
                "attempted_at": r.attempted_at,
                "duration_ms": r.duration_ms,
                "status_code": r.status,
                "ok": r.ok,
                "error": str(r.error)[:300] if r.error else None,
                "error_texts": stored(r.error) if r.error else None,
                "head": r.head,
            }
            for r in results
            if r.sent
        ]
        if attempts:
            session.execute(
                insert(WebhookAttempt),
                [{**{k: v for k, v in a.items() if k != "head"}, "response_head": a["head"]} for a in attempts],
            )
        delivered = [r.job.delivery_id for r in results if r.ok]
        if delivered:
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id.in_(delivered))
                .values(state=DELIVERED, delivered_at=now, lease_until=None, attempts=WebhookDelivery.attempts + 1)
            )
        retry_at: dict[str, datetime] = {}
        for r in results:
            if r.ok or not r.sent:
                continue
            count = r.job.attempts + 1
            deadline = r.job.created_at + window
            if now >= deadline:
                values = {"state": FAILED, "attempts": count, "lease_until": None}
            else:
                later = min(now + retry_delay(count), deadline)
                retry_at[r.job.endpoint_id] = later
                values = {"attempts": count, "next_attempt_at": later, "lease_until": None}
            session.execute(update(WebhookDelivery).where(WebhookDelivery.id == r.job.delivery_id).values(**values))
        failing = {r.job.endpoint_id for r in results if r.sent and not r.ok}
        for r in results:
            if not r.sent:  # waits with the one that failed before it (or a minute, if that one gave up)
                later = retry_at.get(r.job.endpoint_id, now + timedelta(minutes=1))
                if r.job.endpoint_id not in failing:  # the batch's time ran out: due again at once
                    later = now
                session.execute(
                    update(WebhookDelivery)
                    .where(WebhookDelivery.id == r.job.delivery_id)
                    .values(next_attempt_at=later, lease_until=None)
                )
        if orphans:
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.id.in_([j.delivery_id for j in orphans]))
                .values(state=FAILED, lease_until=None)
            )
        disabled = _endpoint_health(session, now, results, targets, window)
    for endpoint in disabled:
        notices.endpoint_disabled(endpoint)


def _endpoint_health(session, now, results: Iterable[_Result], targets, window) -> list[WebhookEndpoint]:
    """Success clears an endpoint's failing streak; a streak as long as the retry window disables it."""
    outcome: dict[str, bool] = {}
    for r in results:
        if r.sent:
            outcome[r.job.endpoint_id] = outcome.get(r.job.endpoint_id, False) or r.ok
    disabled = []
    for endpoint_id, ok in outcome.items():
        endpoint = session.get(WebhookEndpoint, endpoint_id)
        if endpoint is None or not endpoint.active:
            continue
        if ok:
            endpoint.failing_since, endpoint.last_success_at = None, now
            continue
        endpoint.failing_since = endpoint.failing_since or now
        if now - endpoint.failing_since >= window:
            endpoint.active, endpoint.disabled_at = False, now
            endpoint.disabled_reason = _("Desactivado: todas sus entregas fallaron durante un día.")
            session.execute(
                update(WebhookDelivery)
                .where(WebhookDelivery.endpoint_id == endpoint_id, WebhookDelivery.state == PENDING)
                .values(state=FAILED, lease_until=None)
            )
            session.flush()
            session.expunge(endpoint)
            disabled.append(endpoint)
    return disabled


def due_deliveries(now: datetime | None = None) -> bool:
    now = now or _now()
    with db.new_session() as session:
        return (
            session.scalar(
                select(WebhookDelivery.id)
                .where(
                    WebhookDelivery.state == PENDING,
                    WebhookDelivery.next_attempt_at <= now,
                    (WebhookDelivery.lease_until.is_(None)) | (WebhookDelivery.lease_until < now),
                )
                .limit(1)
            )
            is not None
        )


def purge(now: datetime | None = None) -> int:
    """Forget events dispatched more than WEBHOOKS_KEEP_DAYS ago, with their deliveries and attempts (the
    foreign keys cascade), and after a day those no webhook heard (a company without webhooks). Every delivery
    is final a day after its event, so nothing pending is lost."""
    now = now or _now()
    cutoff = now - timedelta(days=int(current_app.config["WEBHOOKS_KEEP_DAYS"]))
    unheard = ~select(WebhookDelivery.id).where(WebhookDelivery.event_id == Event.id).exists()
    with db.write_transaction() as session:
        old = db.rows_affected(session, delete(Event).where(Event.dispatched_at < cutoff))
        quiet = db.rows_affected(session, delete(Event).where(Event.dispatched_at < now - timedelta(days=1), unheard))
        return old + quiet
