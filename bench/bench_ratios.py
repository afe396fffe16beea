"""Benchmark: issue #31's ratios, each side measured in the same run, interleaved (A, B, A, B ...).

    .venv/bin/python bench/bench_ratios.py cpu [--rounds 4] [--seconds 3]          # target 1
    .venv/bin/python bench/bench_ratios.py companies [--rounds 3] [--seconds 4]    # target 2, SQLite
    .venv/bin/python bench/bench_ratios.py companies --database-url postgresql+psycopg://...  # target 2, PostgreSQL
    .venv/bin/python bench/bench_ratios.py cpu --against /tmp/other-checkout       # this tree and another, turn by turn

On a machine shared with others absolute figures drift with their load; a ratio of two sides measured in
alternating slices of a few seconds each does not (both sides see the same load, moment by moment).

`cpu` (target 1: issuing CPU per receipt at most 1.5 x the floor): gunicorn with deploy/'s settings and two
service processes (the production setting on 2 cores) on a throwaway SQLite file, serving the service's app plus a
no-op JSON POST (bench_floor.py's). Alternating slices: the no-op POST, then issuing the bench's e-Ticket
(`POST .../emitir`, its own Idempotency-Key each), both through HTTP with 32 connections, CPU per request read from
/proc (server + load generator); and `build_signed_cfe` of the same e-Ticket in this process (rules, totals, XML,
XMLDSig, XSD). The ratio is issue / (no-op + build_signed_cfe).

`companies` (target 2: one series is not the bottleneck): the same server with 50 more companies (each its own
user, certificate and CAE ranges). Alternating slices: every connection issuing for one company (one series),
then each connection for its own company (50 series). The ratio is one company's receipts/s over 50 companies'.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import loadgen, samples  # noqa: E402
from bench.bench_emitir import (  # noqa: E402
    PYTHON,
    environment,
    machine,
    prepare,
    start_service,
    tree_cpu_seconds,
)
from bench.bench_floor import NOOP_PATH  # noqa: E402

COMPANIES = 50

# Run in the service's environment: N companies with a user, a certificate and CAE ranges; prints their tokens.
_ADD_COMPANIES = """
import json, sys
from sqlalchemy import select
from portal.domain.identifiers import is_valid_rut
from portal.service import create_app
from portal.service.platform import db
from portal.service.platform.areas import area_modules
from portal.service.identity.claims import mint_access_token
from portal.service.platform.models import Company, Membership, User
from portal.service.seed import _demo_certificate
count = int(sys.argv[1])
app = create_app()
tokens = []
with db.command_context(app):
    session = db.session()
    made = []
    candidates = (f"21{n:06d}001{d}" for n in range(500000, 501000) for d in range(10))
    ruts = [rut for rut in candidates if is_valid_rut(rut)][:count]
    for index, rut in enumerate(ruts):
        company = Company(rut=rut, razon_social=f"Bench {index} S.A.", sucursal="Casa central", cdg_dgi_sucursal=1,
                          domicilio_fiscal="Av. 18 de Julio 1", ciudad="Montevideo", departamento="Montevideo")
        user = User(email=f"bench{index}@demo.uy", name=f"Bench {index}", password_hash="-")
        session.add_all([company, user])
        session.flush()
        session.add(Membership(user_id=user.id, company_id=company.id, role="usuario"))
        _demo_certificate(session, company)
        made.append((company, user))
    session.commit()
    everyone = list(session.scalars(select(Company).order_by(Company.id)))
    for area_seed in area_modules("seed"):
        list(area_seed.seed_demo(session, everyone))
        session.commit()
    tokens = [mint_access_token(session, user, lifetime=3600) for _company, user in made]
json.dump(tokens, sys.stdout)
"""


def _issue_factory(port: int, tokens: list[str]):
    """Requests issuing the bench's e-Ticket, each with its own key, round-robin over `tokens`."""
    prefixes = [{"Authorization": f"Bearer {token}", "Content-Type": "application/json"} for token in tokens]
    turn = [0]

    def make() -> bytes:
        headers = prefixes[turn[0] % len(prefixes)]
        turn[0] += 1
        return loadgen.request_bytes(
            "POST",
            "/api/v1/comprobante/emitir",
            f"127.0.0.1:{port}",
            {**headers, "Idempotency-Key": uuid.uuid4().hex},
            samples.TWO_LINE_ETICKET_BODY,
        )

    return make


def _slice(port: int, make, connections: int, seconds: float, server_pid: int) -> tuple[int, float, float, dict]:
    """(2xx answers, wall seconds, CPU seconds of server + load generator, non-2xx statuses)."""
    generator_before, server_before = os.times(), tree_cpu_seconds(server_pid)
    outcome = loadgen.run("127.0.0.1", port, make, connections=connections, seconds=seconds)
    generator_after, server_after = os.times(), tree_cpu_seconds(server_pid)
    generator = (generator_after.user - generator_before.user) + (generator_after.system - generator_before.system)
    errors = {s: n for s, n in outcome.statuses.items() if not 200 <= s < 300}
    return outcome.ok, outcome.seconds, (server_after - server_before) + generator, errors


def _build_signed_cpu_ms(seconds: float) -> float:
    """CPU ms per build_signed_cfe of the bench's e-Ticket, in this process, for about `seconds`."""
    from portal.service.cfe import build_signed_cfe, parse_cfe_input
    from portal.service.cfe.signing import CfeSigner
    from portal.service.platform.certificates import generate_self_signed

    global _SIGNER
    if _SIGNER is None:
        _SIGNER = CfeSigner(*generate_self_signed("219999830019", "bench"))
    cfe = parse_cfe_input(json.loads(samples.TWO_LINE_ETICKET_BODY))
    issuer, numbering = samples.demo_issuer(), samples.numbering()
    count, started, wall = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - wall < seconds:
        build_signed_cfe(cfe, issuer, numbering, _SIGNER, ui_value=Decimal("6.1642"))
        count += 1
    return (time.process_time() - started) * 1000 / count


_SIGNER = None


def _server(root: Path, env: dict[str, str], port: int, workers: int, log: Path):
    """gunicorn serving `root`'s service app plus the no-op route, `workers` processes."""
    env = {**env, "PYTHONPATH": str(root)}
    return start_service(env, port, workers, None, log, app="bench.bench_floor:service_app_with_noop()", cwd=root)


def cpu(args) -> int:
    trees = [("this", ROOT)] + ([("other", args.against.resolve())] if args.against else [])
    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-ratios-"))
    servers, figures = {}, {}
    try:
        for index, (name, root) in enumerate(trees):
            env = environment(workdir / name, f"sqlite:///{workdir / name / 'service.db'}")
            (workdir / name).mkdir()
            token = prepare(env)
            port = args.port + index
            server = _server(root, env, port, args.workers, workdir / f"{name}.log")
            noop = loadgen.request_bytes(
                "POST",
                NOOP_PATH,
                f"127.0.0.1:{port}",
                {"Content-Type": "application/json"},
                samples.TWO_LINE_ETICKET_BODY,
            )
            servers[name] = (server, port, lambda noop=noop: noop, _issue_factory(port, [token]))
            figures[name] = {"noop": [0, 0.0], "issue": [0, 0.0], "errors": {}}
            loadgen.run("127.0.0.1", port, servers[name][3], connections=4, seconds=1.0)  # warm-up
        build_ms = []
        for round_ in range(args.rounds):
            # The trees swap places every round: an A/A run (this tree against a copy of itself) measured the
            # one going first 13% dearer, more than most changes being compared.
            order = list(servers.items()) if round_ % 2 == 0 else list(reversed(servers.items()))
            for name, (server, port, noop, issue) in order:
                for kind, make in (("noop", noop), ("issue", issue)):
                    ok, _wall, cpu_s, errors = _slice(port, make, args.connections, args.seconds, server.pid)
                    figures[name][kind][0] += ok
                    figures[name][kind][1] += cpu_s
                    for status, n in errors.items():
                        figures[name]["errors"][status] = figures[name]["errors"].get(status, 0) + n
            build_ms.append(_build_signed_cpu_ms(args.seconds / 2))
    finally:
        for server, *_rest in servers.values():
            server.terminate()
            server.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)
    build = statistics.median(build_ms)
    print(f"\nmachine: {machine()}; load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{args.rounds} rounds of {args.seconds:.0f} s slices, {args.connections} connections, {args.workers} "
        "service processes (gunicorn, deploy/'s settings), SQLite\n"
    )
    print(
        "| tree | no-op POST, CPU ms | issue, CPU ms | build_signed_cfe, CPU ms | issue / (no-op + build) | non-2xx |"
    )
    print("|---|---|---|---|---|---|")
    for name, values in figures.items():
        noop_ms = values["noop"][1] * 1000 / max(values["noop"][0], 1)
        issue_ms = values["issue"][1] * 1000 / max(values["issue"][0], 1)
        print(
            f"| {name} | {noop_ms:.2f} | {issue_ms:.2f} | {build:.2f} | **{issue_ms / (noop_ms + build):.2f}** | "
            f"{values['errors'] or 0} |"
        )
    return 0


def add_companies(env: dict[str, str]) -> list[str]:
    """COMPANIES more companies in the prepared database of `env`, each with its user; their access tokens."""
    made = subprocess.run(  # noqa: S603
        [PYTHON, "-c", _ADD_COMPANIES, str(COMPANIES)], env=env, capture_output=True, text=True, cwd=ROOT
    )
    if made.returncode:
        raise RuntimeError(made.stderr)
    return json.loads(made.stdout)


def companies(args) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="cfe-bench-ratios-"))
    env = environment(workdir, args.database_url or f"sqlite:///{workdir / 'service.db'}")
    prepare(env)
    tokens = add_companies(env)
    server = start_service(env, args.port, args.workers, None, workdir / "service.log")
    one, many = _issue_factory(args.port, tokens[:1]), _issue_factory(args.port, tokens)
    rates: dict[str, list[float]] = {"one company": [], f"{COMPANIES} companies": []}
    errors: dict[int, int] = {}
    try:
        loadgen.run("127.0.0.1", args.port, many, connections=8, seconds=1.0)  # warm-up, every company once
        for _round in range(args.rounds):
            for name, make in zip(rates, (one, many), strict=True):
                ok, wall, _cpu, failed = _slice(args.port, make, args.connections, args.seconds, server.pid)
                rates[name].append(ok / wall)
                for status, n in failed.items():
                    errors[status] = errors.get(status, 0) + n
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)
    backend = "PostgreSQL" if args.database_url else "SQLite"
    print(f"\nmachine: {machine()}; load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{backend}, {args.workers} service processes, {args.connections} connections, {args.rounds} rounds of "
        f"{args.seconds:.0f} s slices; non-2xx: {errors or 0}\n"
    )
    print("| issuing for | receipts/s per slice | mean |")
    print("|---|---|---|")
    for name, values in rates.items():
        print(f"| {name} | {', '.join(f'{v:.0f}' for v in values)} | {statistics.mean(values):.0f} |")
    ratio = statistics.mean(rates["one company"]) / statistics.mean(rates[f"{COMPANIES} companies"])
    print(f"\none company / {COMPANIES} companies: **{ratio:.2f}** (target >= 0.8)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("cpu", "companies"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8131)
    parser.add_argument("--against", type=Path, default=None, help="cpu: another checkout, interleaved")
    parser.add_argument("--database-url", default=None, help="companies: an empty PostgreSQL database")
    args = parser.parse_args()
    return cpu(args) if args.mode == "cpu" else companies(args)


if __name__ == "__main__":
    sys.exit(main())
