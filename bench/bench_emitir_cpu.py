"""Benchmark: the service's CPU time per issued receipt, in-process, one request at a time.

    .venv/bin/python bench/bench_emitir_cpu.py                  # 300 receipts, CPU ms per receipt
    .venv/bin/python bench/bench_emitir_cpu.py --profile 40     # and cProfile's 40 costliest functions

The same request as bench_emitir.py (a two-line e-Ticket with its own Idempotency-Key, a Bearer token)
through the Flask test client, on a throwaway SQLite file on disk with the demo data. `time.process_time`
counts this process's CPU only, so on a machine shared with others it is the steady figure where wall-clock
rates are not: compare two versions by running this for each, one right after the other.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BODY = json.dumps(
    {
        "tipoCFE": 101,
        "fmaPago": 1,
        "mntBruto": True,
        "items": [
            {"indFact": 3, "nomItem": "Café", "cantidad": "2", "precioUnitario": "122"},
            {"indFact": 2, "nomItem": "Medialuna", "cantidad": "3", "precioUnitario": "44"},
        ],
    }
).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--receipts", type=int, default=300)
    parser.add_argument("--warm-up", type=int, default=30)
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's N costliest functions")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="cfe-bench-cpu-")
    os.environ["CFE_VAR_DIR"] = workdir
    os.environ["CFE_SECRETS_DIR"] = os.path.join(workdir, "secrets")
    if not (ROOT.parent / "shared/domain/dgi-xsd").is_dir():  # a worktree sits one level deeper
        os.environ.setdefault("CFE_DOMAIN_DIR", str(ROOT.parent.parent / "shared/domain"))
    from portal.devsecrets import ensure_secrets

    ensure_secrets()
    from portal.service import create_app
    from portal.service.migrations import upgrade
    from portal.service.seed import seed_demo
    from tests.conftest import mint_token

    url = f"sqlite:///{workdir}/service.db"
    upgrade(url)
    app = create_app({"DATABASE_URL": url})
    with app.app_context():
        list(seed_demo())
    client = app.test_client()
    headers = {"Authorization": f"Bearer {mint_token(app, 'usuario@demo.uy')}", "Content-Type": "application/json"}

    def issue() -> None:
        answer = client.post(
            "/api/v1/comprobante/emitir", data=BODY, headers={**headers, "Idempotency-Key": uuid.uuid4().hex}
        )
        if answer.status_code != 201:
            raise RuntimeError(f"{answer.status_code}: {answer.get_data(as_text=True)}")

    for _ in range(args.warm_up):
        issue()
    cpu_ms = []
    profiler = cProfile.Profile(time.process_time) if args.profile else None  # CPU, not waits
    for _ in range(args.receipts):
        started = time.process_time()
        if profiler:
            profiler.enable()
        issue()
        if profiler:
            profiler.disable()
        cpu_ms.append((time.process_time() - started) * 1000)
    load = os.getloadavg()
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(
        f"{args.receipts} receipts, CPU ms per receipt: mean {statistics.mean(cpu_ms):.2f}, "
        f"median {statistics.median(cpu_ms):.2f}, p90 {sorted(cpu_ms)[int(len(cpu_ms) * 0.9)]:.2f}"
        + (" (under cProfile: inflated)" if profiler else "")
    )
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
