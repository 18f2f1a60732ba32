"""Benchmark: `run_experiment` end to end against the loopback chat server answering after 200 ms.

512 rows (32 HueManity plates, generated to a folder first as `plates generate` does, x 4 prompts x 4
conditions at 64 px) at concurrency 16: the ideal is 512 / 16 x 0.2 s = 6.4 s; the target for the backend alone
is 1.15x of it. The runner adds image preparation (load PNG, apply condition, PNG encode;
overlapped with the requests of the previous chunk), scoring and Parquet parts. Prints wall time, throughput
and the ratio to the ideal.

    python3 bench/bench_runner.py [--items 32] [--concurrency 16] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from loopback import LoopbackServer  # a fast ASGI loopback server: measures the runner, not a slow server

from plates.datasets import generate, load_dataset
from plates.results import load_results
from plates.runs.experiment import parse_experiment
from plates.runs.runner import run_experiment


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--items", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--delay", type=float, default=0.2)
    args = ap.parse_args()
    data = tempfile.TemporaryDirectory()
    generate("huemanity-numeric", data.name, limit=args.items, size=256, progress=False)
    items = load_dataset(data.name)
    with LoopbackServer(delay=args.delay) as server, tempfile.TemporaryDirectory() as out:
        exp = parse_experiment({
            "dataset": data.name, "prompts": ["huemanity-numeric", "colorbench-mc", "colorbench-mc-cot", "plain-yn"],
            "conditions": {"sizes": [64], "grayscale": [False, True], "hue_shifts": [0, 90]},
            "models": [{"backend": "openai", "model": "test-model", "base_url": server.base_url, "api_key_env": False,
                        "concurrency": args.concurrency}],
            "out": out,
        })
        t0 = time.perf_counter()
        summary = run_experiment(exp, items=items, progress=False)
        wall = time.perf_counter() - t0
        rows = len(load_results(out).frame)
    n = summary.written
    ideal = n / args.concurrency * args.delay
    print(f"run_experiment: {n} rows ({rows} on disk, {server.count} requests) at concurrency {args.concurrency}, "
          f"server delay {args.delay * 1000:.0f} ms: {wall:.2f} s, {n / wall:.1f} rows/s; ideal {ideal:.2f} s; "
          f"ratio to ideal {wall / ideal:.2f} (backend target 1.15)")


if __name__ == "__main__":
    main()
