"""``--redact`` throughput on text that made the old patterns quadratic, and on plain text.

Times :class:`zett_browser.export.redact.Redactor` (every pattern, in order, as an export
runs it) on generated text, several rounds each, and prints min/median/max seconds and MB/s:

- 10 MB of hex digits, one run without a separator (target: at most 2 s);
- 1 MB and 10 MB of letters and digits, one run (the URL pattern tried its scheme from every
  letter: 1 MB did not finish in 60 s before; target: 1 MB at most 0.5 s, and 10 MB at most
  15 times 1 MB, i.e. linear);
- 1 MB of PEM BEGIN lines without an END (the PEM pattern started again at each one);
- 1 MB of ``a://b:`` (a scheme again and again, no ``@``);
- 10 MB of prose with a secret every few KB (what a real session looks like).

    python benchmarks/redact_bench.py [--rounds 5]

``benchmarks/run.py`` runs it too (with the storage figures) and counts its targets.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from zett_browser.export.redact import Redactor  # noqa: E402

MB = 1_000_000
HEX_TARGET_S = 2.0
ALNUM_TARGET_S = 0.5
LINEAR_RATIO = 15.0


def _random(alphabet: str, size: int, seed: int) -> str:
    generator = random.Random(seed)
    return "".join(generator.choices(alphabet, k=size))


def _prose(size: int) -> str:
    words = "the retry loop reads config from the store and writes a summary of each step".split()
    generator = random.Random(3)
    secrets = [
        "sk-proj-abcdefghijklmnopqrstuvwx1234",
        "postgresql://reader:s3cr3t@db.example:5432/x",
        "Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9.e30",
        "https://api.example/v1?user=a&api_key=XYZ123&x=1",
        "AKIAIOSFODNN7EXAMPLE",
    ]
    pieces: list[str] = []
    length = 0
    while length < size:
        piece = " ".join(generator.choices(words, k=400)) + f"\n{generator.choice(secrets)}\n"
        pieces.append(piece)
        length += len(piece)
    return "".join(pieces)[:size]


#: name -> (text maker, size in bytes).
CASES: dict[str, tuple[Callable[[], str], int]] = {
    "10 MB hex, one run": (lambda: _random("0123456789abcdef", 10 * MB, 1), 10 * MB),
    "1 MB letters and digits, one run": (
        lambda: _random("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", MB, 2),
        MB,
    ),
    "10 MB letters and digits, one run": (
        lambda: _random("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10 * MB, 2),
        10 * MB,
    ),
    "1 MB of PEM BEGIN lines, no END": (lambda: ("-----BEGIN PRIVATE KEY-----x" * (MB // 28 + 1))[:MB], MB),
    "1 MB of a://b: (no @)": (lambda: ("a://b:" * (MB // 6 + 1))[:MB], MB),
    "10 MB prose, a secret every ~3 KB": (lambda: _prose(10 * MB), 10 * MB),
}


def measure(rounds: int) -> dict[str, tuple[list[float], int, int]]:
    """Seconds of each round per case, the bytes, and the secrets found."""
    results: dict[str, tuple[list[float], int, int]] = {}
    for name, (make, size) in CASES.items():
        text = make()
        times: list[float] = []
        found = 0
        for _ in range(rounds):
            redactor = Redactor()
            started = time.perf_counter()
            redactor(text)
            times.append(time.perf_counter() - started)
            found = redactor.count
        results[name] = (times, size, found)
        print(f"redact: {name}: median {statistics.median(times):.3f} s", file=sys.stderr)
    return results


def print_table(results: dict[str, tuple[list[float], int, int]], rounds: int) -> None:
    """The figures as a Markdown table on stdout."""
    print(f"\n### Redact (`--redact`), {rounds} rounds each\n")
    print("| text | min s | median s | max s | MB/s (median) | secrets |\n|---|---|---|---|---|---|")
    for name, (times, size, found) in results.items():
        median = statistics.median(times)
        rate = size / MB / median if median else float("inf")
        print(f"| {name} | {min(times):.3f} | {median:.3f} | {max(times):.3f} | {rate:.1f} | {found:,} |")


def checks(results: dict[str, tuple[list[float], int, int]]) -> list[tuple[str, float, float]]:
    """(label, measured, limit) of each target, on the medians."""

    def median(name: str) -> float:
        return statistics.median(results[name][0])

    one, ten = median("1 MB letters and digits, one run"), median("10 MB letters and digits, one run")
    return [
        ("redact: 10 MB hex <= 2 s", median("10 MB hex, one run"), HEX_TARGET_S),
        ("redact: 1 MB letters and digits <= 0.5 s", one, ALNUM_TARGET_S),
        ("redact: 10 MB letters and digits <= 15x 1 MB (linear)", ten / one if one else 0.0, LINEAR_RATIO),
    ]


def redact_part(rounds: int) -> list[tuple[str, float, float]]:
    """Measure, print the table, return the checks (``run.py`` calls this)."""
    results = measure(rounds)
    print_table(results, rounds)
    return checks(results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    failures = 0
    found = redact_part(args.rounds)
    print("\n| target | measured | limit | |\n|---|---|---|---|")
    for label, value, limit in found:
        ok = value <= limit
        failures += not ok
        print(f"| {label} | {value:.3f} | {limit:.3f} | {'PASS' if ok else 'MISS'} |")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
