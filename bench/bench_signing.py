"""Benchmark: XMLDSig signing of a CFE against raw RSA-2048 signing on one core, in the same run.

    .venv/bin/python bench/bench_signing.py [--seconds 3]

Signing alone is `CfeSigner.sign` on a freshly built 10-line e-Ticket (template, C14N, SHA-256 digest, the
RSA signature, serialization). `openssl speed -seconds N rsa2048` runs right before and right after, single
process, and the ratio uses their mean, so load from other users of the machine affects both sides alike.
The other steps of `build_signed_cfe` (rules, totals, XML building, XSD validation) are timed too, and the
whole build of a 10-line e-Factura de Exportación (121) and e-Boleta de entrada (151) beside the e-Ticket's in
the same run (issue 29: a new type costs at most 1.2 times the e-Ticket).
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if not (ROOT.parent / "shared/domain/dgi-xsd").is_dir():
    os.environ.setdefault("CFE_DOMAIN_DIR", str(ROOT.parent.parent / "shared/domain"))

from bench import samples  # noqa: E402
from bench.bench_emitir import machine, raw_rsa_signs_per_second  # noqa: E402


def per_second(fn, seconds: float) -> float:
    count, deadline = 0, time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        fn()
        count += 1
    return count / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()

    from portal.domain.uruguay_time import MONTEVIDEO
    from portal.service.cfe import build_signed_cfe, compute_totals
    from portal.service.cfe.schema import load_schema, validate_cfe
    from portal.service.cfe.signing import CfeSigner
    from portal.service.cfe.xml import build_cfe_xml
    from portal.service.platform.certificates import generate_self_signed

    cfe, issuer, numbering = samples.ten_line_eticket(), samples.demo_issuer(), samples.numbering()
    signer = CfeSigner(*generate_self_signed("219999830019", "bench"))
    load_schema()
    from datetime import datetime

    moment = datetime.now(MONTEVIDEO)
    unsigned = build_cfe_xml(cfe, issuer, numbering, compute_totals(cfe), moment)
    signed_xml = signer.sign(copy.deepcopy(unsigned)).xml
    ui = Decimal("6.1642")

    rsa_before = raw_rsa_signs_per_second(1, seconds=int(args.seconds))
    sign = per_second(lambda: signer.sign(copy.deepcopy(unsigned)), args.seconds)
    rsa_after = raw_rsa_signs_per_second(1, seconds=int(args.seconds))
    copy_only = per_second(lambda: copy.deepcopy(unsigned), args.seconds / 3)
    build = per_second(lambda: build_cfe_xml(cfe, issuer, numbering, compute_totals(cfe), moment), args.seconds / 3)
    xsd = per_second(lambda: validate_cfe(signed_xml), args.seconds / 3)
    whole = per_second(lambda: build_signed_cfe(cfe, issuer, numbering, signer, ui_value=ui), args.seconds / 2)
    others = {
        "e-Factura de Exportación (121)": samples.ten_line_export(),
        "e-Boleta de entrada (151)": samples.ten_line_boleta(),
    }
    # Interleaved short slices, median per type: load from others on a shared machine hits every type alike.
    bodies = {"e-Ticket (101)": cfe, **others}
    slices: dict[str, list[float]] = {name: [] for name in bodies}
    for _ in range(7):
        for name, body in bodies.items():
            one = lambda body=body: build_signed_cfe(body, issuer, numbering, signer, ui_value=ui)  # noqa: E731
            slices[name].append(per_second(one, args.seconds / 14))
    by_type = {name: statistics.median(rates) for name, rates in slices.items()}
    ticket = by_type.pop("e-Ticket (101)")
    rsa = (rsa_before + rsa_after) / 2
    # The copy of the unsigned tree is the benchmark's, not the service's (it builds a new tree per receipt).
    sign_ms = 1000 / sign - 1000 / copy_only

    print(f"\nmachine: {machine()}; load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"raw RSA-2048 signing, one process (openssl speed): {rsa_before:,.0f} before, {rsa_after:,.0f} after\n")
    print("| step (10-line e-Ticket) | per second | ms each | share of raw RSA |")
    print("|---|---|---|---|")
    print(
        f"| XMLDSig signature (CfeSigner.sign) | {1000 / sign_ms:,.0f} | {sign_ms:.3f} | {1000 / sign_ms / rsa:.0%} |"
    )
    print(f"| building the XML (build_cfe_xml, totals) | {build:,.0f} | {1000 / build:.3f} | |")
    print(f"| XSD validation (validate_cfe) | {xsd:,.0f} | {1000 / xsd:.3f} | |")
    print(
        f"| build_signed_cfe (rules, totals, XML, signature, XSD) | {whole:,.0f} | {1000 / whole:.3f} | "
        f"{whole / rsa:.0%} |"
    )
    print("\n| build_signed_cfe, 10 lines | per second | ms each | cost / e-Ticket |")
    print("|---|---|---|---|")
    print(f"| e-Ticket (101) | {ticket:,.0f} | {1000 / ticket:.3f} | 1.00 |")
    worst = 0.0
    for name, rate in by_type.items():
        worst = max(worst, ticket / rate)
        print(f"| {name} | {rate:,.0f} | {1000 / rate:.3f} | {ticket / rate:.2f} |")
    print(f"\nNew types at most 1.2x the e-Ticket: {'met' if worst <= 1.2 else 'MISSED'} ({worst:.2f}x)")
    return 0 if worst <= 1.2 else 1


if __name__ == "__main__":
    sys.exit(main())
