"""Dashboard overview on a million rows: load every Parquet part, compute the overview, build its figure.

Target (issue 5): a 1,000,000-row result set loads and renders the overview in <= 2 s, within 1.5 GB peak
memory. The bench makes its own synthetic result set in the results schema (every column filled: 2,500
plates x 8 models x 5 prompt/condition combinations, each plate with its real PlateSpec JSON), written as
Parquet parts by `plates.results.write_part`. The timing runs in a fresh child process so its peak resident
memory (ru_maxrss, the whole Python process with its imports) is the dashboard's, not the generator's.

Timed: `plates.ui.dashboard.load` (plates.results.load_results + the condition column) ->
`plates.analysis.charts.overview_table` -> `plates.analysis.charts.overview_figure` -> the figure serialised to JSON (what
Streamlit sends the browser), after a warm-up figure of one row (a running dashboard has plotly warm after its
first page).

`plates.ui.dashboard.load` reads string columns dictionary-encoded (``load_results(categorical=True)``: pandas
Categorical), which is what keeps a million rows within the targets.

    python3 bench/bench_dashboard.py [--rows 1000000] [--parts 10] [--repeat 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_S = 2.0
TARGET_MB = 1536.0


def synthetic_table(n: int, seed: int):
    """``n`` result rows in the results schema (pyarrow Table); sRGB colour sets and ΔE2000 values are drawn
    like a CBE/HueManity run's, the verdicts at random with a per-model accuracy."""
    import numpy as np
    import pyarrow as pa

    from plates.stimuli.ishihara.plate import PlateSpec
    from plates.results import SCHEMA

    rng = np.random.default_rng(seed)
    items = 2500
    colour_sets = [f"colorblindnesseval-{i}" for i in range(1, 6)]
    item = rng.integers(0, items, n)
    specs = np.array(
        [PlateSpec(text=str(i % 100), size=900, seed=i).to_json() for i in range(items)], dtype=object
    )
    models = np.array([f"model-{m}" for m in range(8)], dtype=object)
    model = rng.integers(0, len(models), n)
    combos = [
        ("cbe-open", False, 900),
        ("cbe-open", True, 900),
        ("cbe-open", False, 300),
        ("cbe-yn-correct", False, 900),
        ("cbe-yn-incorrect", False, 900),
    ]
    combo = rng.integers(0, len(combos), n)
    prompt = np.array([c[0] for c in combos], dtype=object)[combo]
    accuracy = np.linspace(0.2, 0.9, len(models))[model]
    correct = rng.random(n) < accuracy
    failed = rng.random(n) < 0.01
    target = (item % 100).astype(str).astype(object)
    reply = np.where(correct, target, "I cannot see a number in this image").astype(object)
    columns = {
        "run_id": np.array([f"run-{s}" for s in range(4)], dtype=object)[rng.integers(0, 4, n)],
        "item_id": np.char.add("cbe-", item.astype(str)).astype(object),
        "model": models[model],
        "backend": np.full(n, "openai", dtype=object),
        "dataset": np.full(n, "colorblindnesseval", dtype=object),
        "task": prompt,
        "target": target,
        "expected": target,
        "prompt_name": prompt,
        "prompt_text": np.full(
            n, "What number do you see in the image? Answer with the number only.", dtype=object
        ),
        "options_json": None,
        "variant": np.full(n, "standard", dtype=object),
        "colour_set": np.array(colour_sets, dtype=object)[item % 5],
        "delta_e": rng.uniform(5, 40, n),
        "font": np.full(n, "arial", dtype=object),
        "size": np.array([c[2] for c in combos], dtype=np.int32)[combo],
        "grayscale": np.array([c[1] for c in combos])[combo],
        "hue_shift": np.zeros(n),
        "cvd": np.full(n, "none", dtype=object),
        "cvd_severity": np.zeros(n),
        "shots": np.zeros(n, dtype=np.int32),
        "spec_json": specs[item],
        "reply": reply,
        "parsed": np.where(correct, target, None),
        "parse_status": np.where(correct, "ok", "refusal").astype(object),
        "correct": correct,
        "failure_mode": np.where(correct, None, "evasion"),
        "latency_s": rng.uniform(0.2, 3, n),
        "prompt_tokens": np.full(n, 900),
        "completion_tokens": np.full(n, 4),
        "attempts": np.ones(n, dtype=np.int32),
        "error": None,
        "timestamp": np.full(n, np.datetime64("2026-01-01T00:00:00", "us")),
        "plates_version": np.full(n, "0.1.0", dtype=object),
        "row_key": np.char.add("k", np.arange(n).astype(str)).astype(object),
    }
    arrays = []
    for field in SCHEMA:
        value = columns.get(field.name)
        if value is None:
            arrays.append(pa.nulls(n, field.type))
        elif field.name == "correct":
            arrays.append(pa.array(np.where(failed, None, value), type=field.type, from_pandas=True))
        else:
            arrays.append(pa.array(value, type=field.type, from_pandas=True))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def make(folder: Path, rows: int, parts: int) -> None:
    from plates.results import write_part

    per = -(-rows // parts)
    for p in range(parts):
        n = min(per, rows - p * per)
        run = folder / f"run-{p % 4}"
        run.mkdir(parents=True, exist_ok=True)
        write_part(synthetic_table(n, seed=p), run / f"part-{p:04d}.parquet")


def measure(folder: Path) -> dict:
    """In this (fresh) process: time load -> overview -> figure -> JSON; return seconds, rows and peak MB."""
    import pandas as pd

    from plates.analysis import charts, views

    # A running dashboard has plotly and pandas warmed up after its first page: so does the bench (a tiny
    # figure), and what is timed is the cost of a view of a million rows, not of first imports.
    charts.overview_figure(
        charts.with_condition(pd.DataFrame({"model": ["m"], "prompt_name": ["p"], "correct": [True]}))
    ).to_json()

    c0, t0 = time.process_time(), time.perf_counter()
    loaded = views.load(folder)
    t1 = time.perf_counter()
    table = charts.overview_table(loaded.frame)
    t2 = time.perf_counter()
    figure_json = charts.overview_figure(loaded.frame, table=table).to_json()
    t3, c3 = time.perf_counter(), time.process_time()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
    return {
        "rows": len(loaded.frame),
        "cells": len(table),
        "load_s": t1 - t0,
        "overview_s": t2 - t1,
        "figure_s": t3 - t2,
        "total_s": t3 - t0,
        "cpu_s": c3 - c0,
        "peak_mb": peak_mb,
        "figure_kb": len(figure_json) / 1024,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--parts", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes timed; the best is reported")
    parser.add_argument(
        "--dir", type=Path, help="where to write the synthetic parts (default: a temporary folder)"
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    with tempfile.TemporaryDirectory(prefix="plates-bench-") as tmp:
        folder = args.dir or Path(tmp)
        t0 = time.perf_counter()
        make(folder, args.rows, args.parts)
        size_mb = sum(f.stat().st_size for f in folder.rglob("*.parquet")) / 2**20
        print(
            f"made {args.rows:,} rows in {args.parts} parts ({size_mb:.0f} MB on disk) "
            f"in {time.perf_counter() - t0:.1f} s"
        )
        runs = timed(folder, args.repeat, [])
        r = min(runs, key=lambda run: run["total_s"])
        peak = max(run["peak_mb"] for run in runs)
    print(
        f"rows loaded:        {r['rows']:,} ({r['cells']} overview cells, "
        f"figure JSON {r['figure_kb']:.0f} KB)"
    )
    print(f"load:               {r['load_s']:.2f} s")
    print(f"overview table:     {r['overview_s']:.2f} s")
    print(f"figure + JSON:      {r['figure_s']:.2f} s")
    print(
        f"total (best of {len(runs)}): {r['total_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU   "
        f"target <= {TARGET_S:.1f} s   "
        f"ratio {r['total_s'] / TARGET_S:.2f}"
    )
    print(
        f"peak memory (RSS, worst of {len(runs)}): {peak:.0f} MB   target <= {TARGET_MB:.0f} MB   "
        f"ratio {peak / TARGET_MB:.2f}"
    )
    print(f"machine load average while timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


def timed(folder: Path, repeat: int, flags: list[str]) -> list[dict]:
    """``repeat`` fresh child processes each timing one load -> overview -> figure."""
    runs = []
    for _ in range(max(1, repeat)):
        command = [sys.executable, __file__, "--measure", str(folder), *flags]
        child = subprocess.run(command, capture_output=True, text=True)
        if child.returncode:
            raise RuntimeError(f"bench child failed: {child.stderr[-2000:]}")
        runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    return runs


if __name__ == "__main__":
    sys.exit(main())
