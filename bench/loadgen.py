"""A small HTTP/1.1 keep-alive load generator (asyncio, one process) for the benchmarks.

No wrk or hey on the machine, and a thread-per-connection client would spend more CPU than the server it
measures. Each connection sends one request at a time and reads the answer (Content-Length bodies only, which
is what gunicorn sends for these apps); the caller builds each request's bytes so every request can carry its
own Idempotency-Key.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Outcome:
    """What a run produced: latencies (ms) per status, answer bodies of the successful ones, wall time."""

    latencies_ms: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    bodies: list[bytes] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> int:
        return sum(count for status, count in self.statuses.items() if 200 <= status < 300)

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def request_bytes(method: str, path: str, host: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: keep-alive"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes, bool]:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, _, header_block = head.partition(b"\r\n")
    status = int(status_line.split(b" ", 2)[1])
    length, close = 0, False
    for line in header_block.split(b"\r\n"):
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"connection" and value.strip().lower() == b"close":
            close = True
    body = await reader.readexactly(length) if length else b""
    return status, body, close


async def _connection(
    host: str, port: int, make_request: Callable[[], bytes], deadline: float, outcome: Outcome, keep_bodies: bool
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            writer.write(make_request())
            status, body, close = await _read_response(reader)
            outcome.latencies_ms.append((time.perf_counter() - started) * 1000)
            outcome.statuses[status] = outcome.statuses.get(status, 0) + 1
            if keep_bodies and 200 <= status < 300:
                outcome.bodies.append(body)
            if close:
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
    finally:
        writer.close()


def run(
    host: str,
    port: int,
    make_request: Callable[[], bytes],
    *,
    connections: int,
    seconds: float,
    keep_bodies: bool = False,
) -> Outcome:
    """`connections` clients, each sending `make_request()` back to back for `seconds`."""
    outcome = Outcome()

    async def main() -> None:
        deadline = time.perf_counter() + seconds
        started = time.perf_counter()
        await asyncio.gather(
            *(_connection(host, port, make_request, deadline, outcome, keep_bodies) for _ in range(connections))
        )
        outcome.seconds = time.perf_counter() - started

    asyncio.run(main())
    return outcome
