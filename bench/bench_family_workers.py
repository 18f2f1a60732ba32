"""Benchmark `plates generate` on family presets: the rate with ``--workers 2`` against ``--workers 1``.

Run: python3 bench/bench_family_workers.py [--presets illusions-classic colorbench-colour-counting]
                                           [--items 300 60] [--repeat 2]

For each preset, its first ``--items`` items are generated (`plates.datasets.generate`, as `plates generate
--preset P --limit N --workers W`) into fresh temporary folders with 1 and with 2 worker processes, the two
interleaved ``--repeat`` times; the median wall-clock rate (items per second, worker start-up included) of each
and their ratio are printed against the target: 2 workers >= 1.7x the rate of 1. The sets are
checked equal (same files, same bytes). The load average is printed: on a busy shared machine two workers
cannot get two cores, so the wall ratio there says little. Beside it, from CPU time (this process's and its
reaped workers'): the rate two idle cores would give, items / max(this process's CPU, the workers' CPU / 2),
over the serial rate items / CPU of the 1-worker run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from plates.datasets import generate

TARGET_RATIO = 1.7


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.png"))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", nargs="+", default=["illusions-classic", "colorbench-colour-counting"])
    ap.add_argument("--items", type=int, nargs="+", default=[300, 60], help="items per preset (one per preset)")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    if len(args.items) != len(args.presets):
        raise ValueError(f"--items has {len(args.items)} values for {len(args.presets)} presets; allowed: one each")
    print(f"family workers bench; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at the start")
    for preset, items in zip(args.presets, args.items):
        rates: dict[int, list[float]] = {1: [], 2: []}
        cpu_rates: dict[int, list[float]] = {1: [], 2: []}
        with tempfile.TemporaryDirectory(prefix="plates-bench-") as tmp:
            for r in range(args.repeat):
                for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
                    out = Path(tmp) / f"w{workers}-{r}"
                    t0, me0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
                    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    generate(preset, out, limit=items, workers=workers, progress=False)
                    rates[workers].append(items / (time.perf_counter() - t0))
                    me1, kids1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
                    mine = me1.ru_utime + me1.ru_stime - me0.ru_utime - me0.ru_stime
                    kids = kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime
                    cpu_rates[workers].append(items / max(mine, kids / workers))
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
