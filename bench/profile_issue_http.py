"""Profile: where a gunicorn worker's CPU goes while it issues the bench's e-Ticket through HTTP.

    .venv/bin/python bench/profile_issue_http.py [--seconds 10] [--workers 2]    # needs py-spy in the venv

The same server as `bench_ratios.py cpu` (deploy/'s settings, SQLite on disk, 32 connections); py-spy samples
every worker (idle threads left out, so mostly CPU rather than waits) and the script prints the
share of samples under each part of the issuing path, inclusive.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import loadgen  # noqa: E402
from bench.bench_emitir import environment, prepare  # noqa: E402
from bench.bench_ratios import _issue_factory, _server  # noqa: E402

# (label, a frame's text that marks the part): inclusive shares, a frame counted once per sample.
PARTS = [
    ("whole request (Flask wsgi_app)", "wsgi_app (flask/app.py"),
    ("auth + membership", "authenticate (portal/service/platform/auth.py"),
    ("request parsing / pydantic", "parse_json_body (portal/service/platform/api.py"),
    ("rules check before the lock", "checked_for_issue (portal/service/comprobante/issuing.py"),
    ("signing key / print settings (cache)", "signing_key (portal/service/comprobante/issuer.py"),
    ("group commit (all of the write)", "GroupCommit.run (portal/service/platform/groupcommit.py"),
    ("Idempotency-Key lookup", "lookup (portal/service/platform/idempotency.py"),
    ("Idempotency-Key record", "record (portal/service/platform/idempotency.py"),
    ("numbering", "allocate (portal/service/comprobante/numbering.py"),
    ("XML build + sign + XSD", "sign_validated_cfe (portal/service/cfe/__init__.py"),
    ("  XSD check", "validate_cfe (portal/service/cfe/schema.py"),
    ("  XMLDSig", "CfeSigner.sign (portal/service/cfe/signing.py"),
    ("the plain path's write (fastpath)", "_issue_plainly (portal/service/comprobante/fastpath.py"),
    ("receipt's values", "receipt_values (portal/service/comprobante/issuing.py"),
    ("DGI-road record + its answer section", "_plain_submission (portal/service/envios/wiring.py"),
    ("prepared INSERTs (receipt, DGI, outbox, key)", "insert_values (portal/service/platform/db.py"),
    ("receiver words", "remember_receiver (portal/service/comprobante/search.py"),
    ("webhook outbox", "publish (portal/service/eventos/publishing.py"),
    ("answer (from the values)", "fresh_json (portal/service/comprobante/presenters.py"),
    ("commit", "Session.commit (sqlalchemy/orm/session.py"),
    ("after commit: webhooks wake", "_wake_after_commit (portal/service/eventos/publishing.py"),
    ("response JSON", "to_response (portal/service/platform/api.py"),
    ("after request (logging, request id)", "finalize_request (flask/app.py"),
    ("session teardown", "do_teardown_appcontext (flask/app.py"),
    ("SQLAlchemy Core execute (all)", "Connection.execute (sqlalchemy/engine/base.py"),
    ("prepared statements on the DBAPI cursor (all)", "Prepared.run (portal/service/platform/db.py"),
]


WAITS = ("Condition.wait", "Event.wait", "Lock.acquire", "Semaphore.acquire")


def _is(frame: str, name: str, where: str) -> bool:
    """Whether a py-spy frame (`Flask.wsgi_app (flask/app.py:1479)`) is the function `name` (whole, qualified or
    not: `_checked` is not `sign_checked`) of a file ending in `where`."""
    function = frame.split(" (", 1)[0]
    return (function == name or function.endswith("." + name)) and where in frame


def shares(raw: Path) -> tuple[int, collections.Counter]:
    total, counted = 0, collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _space, n = line.rpartition(" ")
        leaf = stack.rsplit(";", 1)[-1]
        if "(flask/app.py" not in stack or leaf.startswith(WAITS) or "_configure_registries" in leaf:
            continue  # outside a request, or waiting (a lock, a condition, the ORM's configure mutex): not CPU
        total += int(n)
        frames = stack.split(";")
        for label, marker in PARTS:
            # The whole function name (`_checked` must not count `sign_checked`'s frames), in its file.
            name, where = marker.split(" (")
            if any(_is(frame, name, where) for frame in frames):
                counted[label] += int(n)
    return total, counted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--port", type=int, default=8141)
    parser.add_argument("--raw", type=Path, default=None, help="keep py-spy's collapsed stacks here")
    args = parser.parse_args()
    pyspy = Path(sys.executable).with_name("py-spy")
    workdir = Path(tempfile.mkdtemp(prefix="cfe-profile-issue-"))
    try:
        env = environment(workdir, f"sqlite:///{workdir / 'service.db'}")
        token = prepare(env)
        server = _server(ROOT, env, args.port, args.workers, workdir / "server.log")
        make = _issue_factory(args.port, [token])
        loadgen.run("127.0.0.1", args.port, make, connections=args.connections, seconds=4.0)  # warm-up, every thread
        children = subprocess.run(  # noqa: S603
            ["pgrep", "-P", str(server.pid)],  # noqa: S607
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        spies = [
            subprocess.Popen(  # noqa: S603
                [
                    str(pyspy),
                    "record",
                    "-r",
                    "400",
                    "-f",
                    "raw",
                    "-d",
                    str(int(args.seconds) + 1),
                    "-p",
                    pid,
                    "-o",
                    str(workdir / f"{pid}.raw"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for pid in children
        ]
        time.sleep(0.5)
        outcome = loadgen.run("127.0.0.1", args.port, make, connections=args.connections, seconds=args.seconds)
        for spy in spies:
            spy.wait(timeout=60)
        server.terminate()
        server.wait(timeout=30)
        total, counted = 0, collections.Counter()
        for pid in children:
            raw = workdir / f"{pid}.raw"
            if raw.exists():
                t, c = shares(raw)
                total += t
                counted.update(c)
                if args.raw:
                    with args.raw.open("a") as out:
                        out.write(raw.read_text())
        print(f"{outcome.ok} receipts in {outcome.seconds:.1f} s; {total} samples in requests")
        for label, _marker in PARTS:
            print(f"{100 * counted[label] / max(total, 1):5.1f}%  {label}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
