"""mypy over portal/ (configured in pyproject.toml), held to a ratchet: `make typecheck`.

portal.domain and portal.client are strict and must have no error at all. Every other module may have at most
the errors mypy-baseline.txt counts for it: a module with more fails the check (fix what you added); a module
with fewer is reported with the command that lowers the baseline (`scripts/typecheck.py --update`).
mypy keeps its incremental cache in var/mypy-cache: a run after a small change takes a few seconds.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "mypy-baseline.txt"
# Modules that may never appear in the baseline: mypy's strict flags apply to them (pyproject.toml).
STRICT = ("portal/domain/", "portal/client/")
ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error: ")
HEADER = (
    "# mypy errors allowed per module (scripts/typecheck.py): may shrink, never grow.\n"
    "# Fewer errors in a module? Run `.venv/bin/python scripts/typecheck.py --update` and commit this file.\n"
)


def run_mypy() -> tuple[list[str], int]:
    mypy = [sys.executable, "-m", "mypy"]
    done = subprocess.run(mypy, cwd=ROOT, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a syntax error, a bad configuration)
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(2)
    return done.stdout.splitlines(), done.returncode


def count_errors(lines: list[str]) -> Counter[str]:
    return Counter(match["path"] for line in lines if (match := ERROR.match(line)))


def read_baseline(path: Path = BASELINE) -> Counter[str]:
    counts: Counter[str] = Counter()
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                module, count = line.rsplit(maxsplit=1)
                counts[module] = int(count)
    return counts


def write_baseline(counts: Counter[str], path: Path = BASELINE) -> None:
    body = "".join(f"{module} {count}\n" for module, count in sorted(counts.items()) if count)
    path.write_text(HEADER + body)


def compare(current: Counter[str], baseline: Counter[str]) -> tuple[list[str], list[str]]:
    """(modules over their allowance, modules under it), each as a line to print."""
    over, under = [], []
    for module in sorted(set(current) | set(baseline)):
        allowed = 0 if module.startswith(STRICT) else baseline[module]
        if current[module] > allowed:
            over.append(f"{module}: {current[module]} errors, {allowed} allowed")
        elif current[module] < allowed:
            under.append(f"{module}: {current[module]} errors, the baseline allows {allowed}")
    return over, under


def total_of(counts: Counter[str]) -> int:
    return sum(counts.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="lower the baseline to today's counts")
    parser.add_argument("--init", action="store_true", help="write a first baseline (only when there is none)")
    args = parser.parse_args(argv)
    lines, _status = run_mypy()
    current, baseline = count_errors(lines), read_baseline()
    if args.init and not BASELINE.exists():
        write_baseline(Counter({module: n for module, n in current.items() if not module.startswith(STRICT)}))
        print(f"mypy: first baseline written, {total_of(current)} errors.")
        return 0
    over, under = compare(current, baseline)
    total = total_of(current)
    if over:
        modules = {problem.split(":")[0] for problem in over}
        print("\n".join(line for line in lines if (match := ERROR.match(line)) and match["path"] in modules))
        print("\nmypy: more errors than mypy-baseline.txt allows (fix them; the baseline never grows):")
        print("\n".join(f"  {line}" for line in over))
        return 1
    if args.update:
        write_baseline(current)
        print(f"mypy: baseline updated, {total} errors allowed in {len(current)} modules.")
        return 0
    if under:
        print("mypy: fewer errors than the baseline allows, well done. Lower it so they stay fixed:")
        print("\n".join(f"  {line}" for line in under))
        print("  .venv/bin/python scripts/typecheck.py --update   (then commit mypy-baseline.txt)")
    print(f"mypy: {total} errors, none beyond mypy-baseline.txt; strict modules clean.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
