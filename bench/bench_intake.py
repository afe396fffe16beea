"""Benchmark: receiving suppliers' envelopes against issuing our own receipts, in the same run.

    .venv/bin/python bench/bench_intake.py [--envelopes 2] [--write FILE]

Intake must keep up with issuing (issue #27): a company that issues N receipts a second must be able to receive
N of its suppliers' CFEs a second. Measured in-process on a throwaway SQLite database with the demo data:
  - intake: POST /api/v1/recibidos of envelopes of 250 e-Facturas (EnvioCFE_entreEmpresas, every check:
    XSD, certificate, each CFE's signature, CAE, duplicates; storage; the signed ACKSobre and ACKCFE);
  - issuing: POST /api/v1/comprobante/emitir of as many e-Facturas, one by one, as a client does.
The figure is the ratio of CFEs per second (intake / issuing), target >= 1.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import samples  # noqa: E402

PER_ENVELOPE = 250
TARGET_RATIO = 1.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--envelopes", type=int, default=2)
    parser.add_argument("--write", type=Path, default=None, help="Markdown file to write the results to")
    args = parser.parse_args()
    workdir = samples.demo_environment("cfe-bench-intake-")
    app, token = samples.demo_service(workdir)

    from tests.support import cfe_bodies as bodies
    from tests.support import recibidos as sup

    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    envelopes = [
        sup.envelope([sup.cfe(n * PER_ENVELOPE + i + 1, checked=False) for i in range(PER_ENVELOPE)], idemisor=n + 1)
        for n in range(args.envelopes)
    ]
    count = args.envelopes * PER_ENVELOPE

    start = time.perf_counter()
    for n, data in enumerate(envelopes):
        answer = client.post(
            "/api/v1/recibidos",
            data={"archivos": [(io.BytesIO(data), f"sobre{n}.xml")]},
            headers=headers,
            content_type="multipart/form-data",
        )
        result = answer.get_json()["sobres"][0]
        assert (result["estado"], result["aceptados"]) == ("AS", PER_ENVELOPE), result
    intake_s = time.perf_counter() - start

    start = time.perf_counter()
    for _ in range(count):
        answer = client.post(
            "/api/v1/comprobante/emitir",
            json=bodies.body(bodies.EFACTURA),
            headers={**headers, "Idempotency-Key": uuid.uuid4().hex},
        )
        assert answer.status_code == 201, answer.get_json()
    issue_s = time.perf_counter() - start

    intake_rate, issue_rate = count / intake_s, count / issue_s
    ratio = intake_rate / issue_rate
    size_kb = sum(len(e) for e in envelopes) / len(envelopes) / 1024
    report = "\n".join(
        [
            f"| what ({count} CFEs, envelopes of {PER_ENVELOPE}, {size_kb:.0f} KB each) | seconds | CFEs/s |",
            "| --- | --- | --- |",
            f"| intake (POST /api/v1/recibidos: checks, storage, signed ACKSobre + ACKCFE) | {intake_s:.2f} | "
            f"{intake_rate:.0f} |",
            f"| issuing (POST /api/v1/comprobante/emitir, one by one) | {issue_s:.2f} | {issue_rate:.0f} |",
            f"| **ratio intake / issuing** | | **{ratio:.2f}** (target >= {TARGET_RATIO:g}: "
            f"{'met' if ratio >= TARGET_RATIO else 'missed'}) |",
        ]
    )
    print(report)
    if args.write:
        args.write.write_text(report + "\n")
    return 0 if ratio >= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
