"""Benchmark: `plates run --executor ray` on a local Ray cluster against the single-process run of the same plan.

The plan: the baseline backend (the offline reader, `plates.models.baseline`) on the first ``--plates``
standard plates of ColorBlindnessEval (rendered from their specs at 900 px on whichever process asks them:
nothing is stored) at 256 px, prompt cbe-open. Both runs write real Parquet parts to a temporary folder and are
compared row for row (keys, replies, verdicts). The Ray run is timed on a cluster started beforehand
(``ray.init(num_cpus=--cpus)``, its start-up printed apart: it is paid once per cluster, not per run) and also
with the cluster started by the run itself. Target: the Ray run within 1.5x of the single-process wall time.

    RAY_USAGE_STATS_ENABLED=0 python3 bench/bench_scaleout.py [--plates 300] [--cpus 2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from plates.datasets import load_dataset
from plates.reader import MODEL_NAME
from plates.results import load_results
from plates.runs.experiment import parse_experiment
from plates.runs.ray_executor import RayExecutor
from plates.runs.runner import run_experiment

TARGET = 1.5
SAME = ["row_key", "reply", "parsed", "parse_status", "correct"]


def _exp(out: Path):
    return parse_experiment({"dataset": "colorblindnesseval", "prompts": ["cbe-open"],
                             "conditions": {"sizes": [256]},
                             "models": [{"backend": "baseline", "model": MODEL_NAME}], "out": str(out)})


def _rows(out: Path):
    return load_results(out).frame[SAME].sort_values("row_key").reset_index(drop=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--plates", type=int, default=300)
    ap.add_argument("--cpus", type=int, default=2)
    args = ap.parse_args()
    import ray

    items = [i for i in load_dataset("colorblindnesseval", limit=2 * args.plates) if i.variant == "standard"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        local = run_experiment(_exp(root / "local"), items=items, progress=False)
        single = time.perf_counter() - t0

        t0 = time.perf_counter()
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
        start = time.perf_counter() - t0
        t0 = time.perf_counter()
        distributed = run_experiment(_exp(root / "ray"), items=items, progress=False, executor=RayExecutor())
        on_cluster = time.perf_counter() - t0
        ray.shutdown()

        t0 = time.perf_counter()
        run_experiment(_exp(root / "ray-own"), items=items, progress=False,
                       executor=RayExecutor())  # starts (and stops) its own cluster of this machine's cores
        with_start = time.perf_counter() - t0
        same = _rows(root / "local").equals(_rows(root / "ray")) and _rows(root / "local").equals(_rows(root / "ray-own"))
    ratio = on_cluster / single
    print(f"plan: {local.planned} rows (baseline, {len(items)} CBE plates rendered from specs at 900 px, sent at "
          f"256 px); load {os.getloadavg()[0]:.1f}")
    print(f"single process: {single:.1f} s ({local.written / single:.1f} rows/s)")
    print(f"ray, cluster of {args.cpus} CPUs already up ({start:.1f} s to start it): {on_cluster:.1f} s "
          f"({distributed.written / on_cluster:.1f} rows/s); ratio {ratio:.2f} vs target <= {TARGET} "
          f"({'met' if ratio <= TARGET else 'NOT met'})")
    print(f"ray, the run starting its own cluster: {with_start:.1f} s (ratio {with_start / single:.2f})")
    print(f"rows identical (keys, replies, verdicts): {same}")


if __name__ == "__main__":
    main()
