"""Benchmark: signed, stored receipts per second through HTTP, against raw RSA-2048 signing in the same run.

    .venv/bin/python bench/bench_emitir.py                 # 5 s per level, 16 and 32 connections
    .venv/bin/python bench/bench_emitir.py --seconds 10 --workers 2 --threads 16

Starts the service as `make serve` does (gunicorn with deploy/gunicorn.conf.py, overridable with --workers and
--threads) on a throwaway SQLite database on disk (not tmpfs: the commit's fsync is part of the cost), or on the
PostgreSQL database --database-url names, with the demo data. A load generator in this process
(bench/loadgen.py) keeps N connections busy posting e-Tickets, each with its own Idempotency-Key. Afterwards it
checks, from the database: every 201 is there, numbers are gapless with no duplicate, every stored XML's
signature verifies against the company certificate and the XML is valid against DGI's XSD.

`openssl speed rsa2048` runs in the same session on all cores, so the ratio compares like with like on whatever
load the machine has; the load average before the run is printed too. On a shared machine the CPU time the
service and the load generator spend per receipt (read from /proc) is the steadier figure: the last column turns
it into what the machine's cores could sustain if nothing else ran.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import loadgen, samples  # noqa: E402

PYTHON = sys.executable


def raw_rsa_signs_per_second(processes: int, seconds: int = 3) -> float:
    """RSA-2048 private-key operations per second over `processes` openssl processes (the machine's ceiling)."""
    command = ["openssl", "speed", "-seconds", str(seconds), "-multi", str(processes), "rsa2048"]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout  # noqa: S603
    match = re.search(r"rsa\s+2048 bits\s+\S+\s+\S+\s+([\d.]+)", output)
    if match is None:
        raise RuntimeError(f"could not read openssl speed's output:\n{output}")
    return float(match.group(1))


def tree_cpu_seconds(root_pid: int) -> float:
    """User + system CPU seconds used so far by a process and its live children (gunicorn and its workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks)
    wanted, total = {root_pid}, 0.0
    for _ in range(3):  # master, workers, anything they started
        wanted |= {pid for pid, (parent, _cpu) in stats.items() if parent in wanted}
    for pid in wanted:
        total += stats.get(pid, (0, 0.0))[1]
    return total


def machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def environment(workdir: Path, database_url: str) -> dict[str, str]:
    env = {
        **os.environ,
        "CFE_VAR_DIR": str(workdir),
        "CFE_SECRETS_DIR": str(workdir / "secrets"),
        "CFE_DATABASE_URL": database_url,
        "PYTHONPATH": str(ROOT),
    }
    # A worktree sits one level deeper than the checkout that ../shared/domain is relative to.
    if "CFE_XSD_DIR" not in env and not (ROOT.parent / "shared/domain/dgi-xsd").is_dir():
        env.setdefault("CFE_DOMAIN_DIR", str(ROOT.parent.parent / "shared/domain"))
    return env


def portal_environment(workdir: Path, service_url: str, portal_url: str) -> dict[str, str]:
    """environment() for a service and a portal that know each other (sign-in redirects, the portal's
    database and sessions in `workdir`)."""
    env = environment(workdir, f"sqlite:///{workdir / 'service.db'}")
    env.update(
        CFE_ISSUER_URL=service_url,
        CFE_SERVICE_URL=service_url,
        CFE_PORTAL_REDIRECT_URIS=f"{portal_url}/auth/callback",
        CFE_PORTAL_POST_LOGOUT_URIS=f"{portal_url}/",
        PORTAL_DATABASE_URL=f"sqlite:///{workdir / 'portal.db'}",
        PORTAL_PUBLIC_URL=portal_url,
        PORTAL_SESSION_DIR=str(workdir / "sessions"),
    )
    return env


def prepare(env: dict[str, str]) -> str:
    """Secrets, schema, demo data; returns an access token for usuario@demo.uy (a writer of Demo S.A.)."""
    subprocess.run([PYTHON, "-m", "portal.devsecrets"], env=env, check=True, capture_output=True)  # noqa: S603
    for command in (["migrate"], ["seed"]):
        subprocess.run(  # noqa: S603
            [PYTHON, "-m", "portal.service", *command],
            env=env,
            check=True,
            capture_output=True,
        )
    return subprocess.run(  # noqa: S603
        [PYTHON, "-m", "portal.service", "token", "usuario@demo.uy", "--lifetime", "3600"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def start_service(
    env: dict[str, str],
    port: int,
    workers: int | None,
    threads: int | None,
    log: Path,
    app: str = "portal.service:create_app()",
    cwd: Path = ROOT,
) -> subprocess.Popen:
    """gunicorn with deploy/'s settings serving `app` (it must answer GET /healthz), once it answers."""
    command = [
        PYTHON,
        "-m",
        "gunicorn",
        "-c",
        str(ROOT / "deploy/gunicorn.conf.py"),
        "-b",
        f"127.0.0.1:{port}",
        "--access-logfile",
        "/dev/null",
    ]
    if not (ROOT / "deploy/gunicorn.conf.py").exists():
        command = [PYTHON, "-m", "gunicorn", "-b", f"127.0.0.1:{port}", "--workers", "1", "--threads", "8"]
    if workers:
        command += ["--workers", str(workers)]
    if threads:
        command += ["--threads", str(threads)]
    process = subprocess.Popen(  # noqa: S603
        [*command, app],
        env=env,
        cwd=cwd,  # gunicorn imports the app from its working directory first
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            outcome = loadgen.run(
                "127.0.0.1",
                port,
                lambda: loadgen.request_bytes("GET", "/healthz", "b", {}),
                connections=1,
                seconds=0.01,
            )
            if outcome.statuses.get(200):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the service did not start; see {log}")


def issue_request_factory(port: int, token: str):
    body = samples.TWO_LINE_ETICKET_BODY
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def make() -> bytes:
        return loadgen.request_bytes(
            "POST",
            "/api/v1/comprobante/emitir",
            f"127.0.0.1:{port}",
            {**headers, "Idempotency-Key": uuid.uuid4().hex},
            body,
        )

    return make


def check_database(env: dict[str, str], acknowledged: list[dict]) -> dict:
    """Gaps, duplicates, lost acknowledged receipts and invalid ones, read back from the database."""
    script = """
import json, sys
from sqlalchemy import select
from portal.service import create_app
from portal.service.platform import db
from portal.service.cfe.schema import validate_cfe
from portal.service.cfe.signing import verify_signature
from portal.service.comprobante.models import IssuedCfe
from portal.service.platform.models import Certificate
app = create_app()
with db.command_context(app):
    s = db.session()
    certs = {c.id: c.cert_pem.encode() for c in s.scalars(select(Certificate))}
    rows = s.execute(select(IssuedCfe.id, IssuedCfe.tipo_cfe, IssuedCfe.serie, IssuedCfe.nro, IssuedCfe.xml,
                            IssuedCfe.certificate_id)).all()
    invalid = sum(1 for r in rows if not verify_signature(r.xml, certs[r.certificate_id]) or validate_cfe(r.xml))
    json.dump({"ids": [r.id for r in rows], "numbers": [[r.tipo_cfe, r.serie, r.nro] for r in rows],
               "invalid": invalid}, sys.stdout)
"""
    done = subprocess.run([PYTHON, "-c", script], env=env, capture_output=True, text=True)  # noqa: S603
    if done.returncode:
        raise RuntimeError(f"reading the receipts back failed:\n{done.stderr}")
    stored = json.loads(done.stdout)
    series: dict[tuple, list[int]] = {}
    for tipo, serie, nro in stored["numbers"]:
        series.setdefault((tipo, serie), []).append(nro)
    gaps = duplicates = 0
    for numbers in series.values():
        duplicates += len(numbers) - len(set(numbers))
        gaps += max(numbers) - min(numbers) + 1 - len(set(numbers)) if numbers else 0
    ids = set(stored["ids"])
    lost = sum(1 for receipt in acknowledged if receipt["idCfeEmitido"] not in ids)
    return {"stored": len(ids), "gaps": gaps, "duplicates": duplicates, "lost": lost, "invalid": stored["invalid"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per concurrency level (default 5)")
    parser.add_argument("--connections", default="16,32", help="comma-separated levels (default 16,32)")
    parser.add_argument("--workers", type=int, default=None, help="gunicorn workers (default: deploy's)")
    parser.add_argument("--threads", type=int, default=None, help="threads per worker (default: deploy's)")
    parser.add_argument("--port", type=int, default=8115)
    parser.add_argument(
        "--database-url",
        default=None,
        help="an empty PostgreSQL database (postgresql+psycopg://...) instead of a new SQLite file",
    )
    args = parser.parse_args()

    load_before = os.getloadavg()
    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-", dir=ROOT / "var" if (ROOT / "var").is_dir() else None))
    env = environment(workdir, args.database_url or f"sqlite:///{workdir / 'service.db'}")
    token = prepare(env)
    rsa = raw_rsa_signs_per_second(os.cpu_count() or 1)
    service = start_service(env, args.port, args.workers, args.threads, workdir / "service.log")
    make = issue_request_factory(args.port, token)
    rows, acknowledged = [], []
    try:
        loadgen.run("127.0.0.1", args.port, make, connections=4, seconds=1.0, keep_bodies=True)  # warm-up
        for level in (int(c) for c in args.connections.split(",")):
            cpu_before, server_before = os.times(), tree_cpu_seconds(service.pid)
            outcome = loadgen.run(
                "127.0.0.1", args.port, make, connections=level, seconds=args.seconds, keep_bodies=True
            )
            cpu_after, server_after = os.times(), tree_cpu_seconds(service.pid)
            acknowledged += [json.loads(body) for body in outcome.bodies]
            generator = cpu_after.user - cpu_before.user + cpu_after.system - cpu_before.system
            rows.append((level, outcome, generator, server_after - server_before))
    finally:
        service.terminate()
        service.wait(timeout=30)
    checks = check_database(env, acknowledged)
    shutil.rmtree(workdir, ignore_errors=True)

    print(
        f"\nmachine: {machine()}; load average before the run: {load_before[0]:.2f} {load_before[1]:.2f} "
        f"{load_before[2]:.2f}"
    )
    print(f"raw RSA-2048 signing, openssl speed -multi {os.cpu_count()}: {rsa:,.0f} signs/s\n")
    cores = os.cpu_count() or 1
    print(
        "| connections | receipts/s | share of raw RSA | p50 | p99 | non-2xx | CPU ms per receipt: service "
        f"+ load generator | receipts/s {cores} idle cores could give |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for level, outcome, generator_cpu, server_cpu in rows:
        rate = outcome.ok / outcome.seconds
        errors = {s: n for s, n in outcome.statuses.items() if not 200 <= s < 300}
        per_receipt = (server_cpu + generator_cpu) * 1000 / max(outcome.ok, 1)
        print(
            f"| {level} | {rate:,.0f} | {rate / rsa:.1%} | {outcome.percentile(0.5):.1f} ms | "
            f"{outcome.percentile(0.99):.1f} ms | {errors or 0} | {server_cpu * 1000 / max(outcome.ok, 1):.1f}"
            f" + {generator_cpu * 1000 / max(outcome.ok, 1):.1f} | {cores * 1000 / per_receipt:,.0f} |"
        )
    print(
        f"\nafter the run: {checks['stored']} receipts stored (warm-up included), {len(acknowledged)} "
        f"acknowledged with 201; gaps {checks['gaps']}, duplicates {checks['duplicates']}, acknowledged but "
        f"missing {checks['lost']}, invalid signature or XSD {checks['invalid']}"
    )
    sound = not (checks["gaps"] or checks["duplicates"] or checks["lost"] or checks["invalid"])
    return 0 if sound else 1


if __name__ == "__main__":
    sys.exit(main())
