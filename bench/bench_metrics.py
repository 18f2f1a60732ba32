"""plates.analysis.metrics on a million result rows: every metric timed, wall and CPU seconds, plain strings and
categorical (dictionary-encoded) strings.

The rows are `bench_dashboard.synthetic_table`'s (2,500 plates x 8 models x 5 prompt/condition combinations,
1% failed requests), varied so that every metric has work to do: hue shifts 0/90/180/270° on the 900 px
``cbe-open`` rows, and the 300 px rows split between ``colorbench-mc`` and ``colorbench-mc-cot`` (CoT delta). Target: the dashboard renders a million rows in <= 2 s, so each
metric should take a small fraction of that.

``--compare REV`` also times ``plates/analysis/metrics.py`` as it was at git revision REV (e.g. the commit before the
vectorisation) on the same frame and checks that both give equal tables.

    python3 bench/bench_metrics.py [--rows 1000000] [--repeat 1] [--compare REV] [--categorical]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

TARGET_S = 2.0  # the whole dashboard view (bench_dashboard.py); one metric should be a small part of it

CALLS = {
    "accuracy_table(model, prompt, size, grayscale)": lambda m, df: m.accuracy_table(
        df, ["model", "prompt_name", "size", "grayscale"]
    ),
    "yes_no_from_counts(model)": lambda m, df: m.yes_no_from_counts(m.accuracy_table(df, ["model", "prompt_name"]),
                                                                     "model"),
    "grayscale_delta(model, task)": lambda m, df: m.grayscale_delta(df, ["model", "task"]),
    "cot_delta(model)": lambda m, df: m.cot_delta(df, "model"),
}


def frame(rows: int, categorical: bool):
    """The synthetic results as the dashboard's narrow frame (`plates.dashboard.views.CHART_COLUMNS` but condition)."""
    import numpy as np
    from bench_dashboard import synthetic_table

    from plates.dashboard import views

    df = synthetic_table(rows, seed=0).to_pandas()
    df = df[[c for c in views.CHART_COLUMNS if c in df.columns]].copy()
    rng = np.random.default_rng(1)
    open_900 = ((df["prompt_name"] == "cbe-open") & (df["size"] == 900) & ~df["grayscale"]).to_numpy()
    df.loc[open_900, "hue_shift"] = rng.choice([0.0, 90.0, 180.0, 270.0], int(open_900.sum()))
    small = (df["size"] == 300).to_numpy()
    df.loc[small, "prompt_name"] = rng.choice(["colorbench-mc", "colorbench-mc-cot"], int(small.sum()))
    if categorical:
        df = df.astype({c: "category" for c in df.columns if df[c].dtype in (object, "str", "string")})
    return df


def old_metrics(rev: str):
    """``plates/analysis/metrics.py`` at git revision ``rev``, imported as a separate module."""
    source = subprocess.run(["git", "show", f"{rev}:plates/analysis/metrics.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="plates-old-metrics-")) / "old_metrics.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_metrics", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_metrics"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def timed(call, module, df, repeat: int):
    """(best wall s, CPU s of that run, result)."""
    best = None
    for _ in range(max(1, repeat)):
        c0, t0 = time.process_time(), time.perf_counter()
        result = call(module, df)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if best is None or wall < best[0]:
            best = (wall, cpu, result)
    return best


def same(a, b) -> bool:
    import pandas as pd

    a, b = a.reset_index(drop=True), b.reset_index(drop=True)
    try:  # key columns may differ in dtype only (object vs str vs category)
        pd.testing.assert_frame_equal(a.astype({c: object for c in a.columns if a[c].dtype.kind in "OUT"
                                                or str(a[c].dtype) in ("category", "str", "string")}),
                                      b.astype({c: object for c in b.columns if b[c].dtype.kind in "OUT"
                                                or str(b[c].dtype) in ("category", "str", "string")}),
                                      check_dtype=False, rtol=1e-9, atol=1e-12)
    except AssertionError as error:
        print(f"    DIFFERENT: {str(error)[:300]}")
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1, help="timings per metric; the best is reported")
    parser.add_argument("--compare", metavar="REV", help="also time plates/analysis/metrics.py at this git revision")
    parser.add_argument("--categorical", action="store_true", help="string columns as pandas Categorical")
    parser.add_argument("--only", help="time only the metrics whose name contains this text")
    args = parser.parse_args()

    from plates.analysis import metrics

    t0 = time.perf_counter()
    df = frame(args.rows, args.categorical)
    kind = "categorical" if args.categorical else "plain"
    print(f"{len(df):,} rows ({kind} strings) made in {time.perf_counter() - t0:.1f} s")
    old = old_metrics(args.compare) if args.compare else None
    total_wall = total_cpu = 0.0
    for name, call in CALLS.items():
        if args.only and args.only not in name:
            continue
        wall, cpu, result = timed(call, metrics, df, args.repeat)
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        line = f"{name:<48} now {wall:6.2f} s wall {cpu:6.2f} s CPU ({len(result)} rows)"
        if old is not None:
            o_wall, o_cpu, o_result = timed(call, old, df, 1)
            speedup = o_cpu / max(cpu, 1e-9)
            line += f" | {args.compare}: {o_wall:7.2f} s wall {o_cpu:7.2f} s CPU | x{speedup:.0f} CPU"
            print(line)
            print(f"    equal to {args.compare}: {same(result, o_result)}")
        else:
            print(line)
    print(f"all metrics: {total_wall:.2f} s wall, {total_cpu:.2f} s CPU   "
          f"(dashboard target {TARGET_S:.1f} s for a whole view; ratio {total_wall / TARGET_S:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
