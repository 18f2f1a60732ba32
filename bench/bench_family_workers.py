"""Benchmark `plates generate` on family presets: the rate with ``--workers 2`` against ``--workers 1``.

Run: python3 bench/bench_family_workers.py [--presets illusions-classic colorbench-colour-counting]
                                           [--items N N] [--repeat 2]

For each preset, the whole preset (the set a user generates; ``--items``: its first N items instead) is generated
by `plates generate --preset P [--limit N] --workers W --no-progress`, each run a fresh process as a user starts it (imports, workers' start-up and their lazy imports
included), into fresh temporary folders with 1 and with 2 worker processes, the two interleaved ``--repeat``
times; the median wall-clock rate (items per second) of each and their ratio are printed against the target:
2 workers >= 1.7x the rate of 1. The sets are checked equal (same files, same bytes). The load average is
printed: on a busy shared machine two workers cannot get two cores, so the wall ratio there says little. Beside
it, from CPU time (the command's and its workers', RUSAGE_CHILDREN): items / (CPU / workers), the rate if every
process had a core to itself and the command's own (serial) share were spread as well: an upper bound, which
the extra CPU that more workers cost (each worker's imports, start-up) lowers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.7


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.png"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", nargs="+", default=["illusions-classic", "colorbench-colour-counting"])
    ap.add_argument("--items", type=int, nargs="+", default=None,
                    help="items per preset (one per preset; default: each whole preset)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    if args.items is not None and len(args.items) != len(args.presets):
        raise ValueError(f"--items has {len(args.items)} values for {len(args.presets)} presets; allowed: one each")
    print(f"family workers bench; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at the start")
    for preset, limit in zip(args.presets, args.items or [None] * len(args.presets)):
        rates: dict[int, list[float]] = {1: [], 2: []}
        cpu_rates: dict[int, list[float]] = {1: [], 2: []}
        with tempfile.TemporaryDirectory(prefix="plates-bench-") as tmp:
            for r in range(args.repeat):
                for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
                    out = Path(tmp) / f"w{workers}-{r}"
                    command = [sys.executable, "-m", "plates.cli", "generate", "--preset", preset,
                               *(["--limit", str(limit)] if limit is not None else []), "--workers", str(workers),
                               "--out", str(out), "--no-progress"]
                    t0, kids0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
                    done = subprocess.run(command, check=True, stdout=subprocess.PIPE)
                    items = json.loads(done.stdout)["rows"]
                    rates[workers].append(items / (time.perf_counter() - t0))
                    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu = kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime
                    # the command's own share is not told apart from its workers': all of it counts as parallel
                    cpu_rates[workers].append(items / (cpu / workers))
            same = _files(Path(tmp) / "w1-0") == _files(Path(tmp) / "w2-0")
        one, two = statistics.median(rates[1]), statistics.median(rates[2])
        ratio = two / one
        verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
        print(f"{preset:<28} {items} items: 1 worker {one:7.2f}/s, 2 workers {two:7.2f}/s, ratio {ratio:4.2f} "
              f"(target >= {TARGET_RATIO}: {verdict}); sets identical: {same}")
        c1, c2 = statistics.median(cpu_rates[1]), statistics.median(cpu_rates[2])
        verdict = "meets" if c2 / c1 >= TARGET_RATIO else "MISSES"
        print(f"{'':<28} from CPU time (idle cores): 1 worker {c1:7.2f}/s, 2 workers {c2:7.2f}/s, ratio "
              f"{c2 / c1:4.2f} ({verdict})")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
