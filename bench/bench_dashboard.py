"""Dashboard at scale: every page's numbers and figure over 1,000,000 and 10,000,000 result rows.

Targets (this machine): over 10,000,000 rows in >= 20 Parquet parts, the first overview (open the
results, scan the parts, aggregate, draw) <= 1.5 s, each other page <= 1 s, peak memory (RSS of the whole
process) <= 600 MB. The 1M and 10M figures are printed side by side so the growth shows.

The synthetic result set is in the results schema with every column filled, as a real sweep writes it: 8
models, each its own run (parts of ~1/3 of a run each), every model asked every item once under 5 (prompt,
condition) combinations (cbe-open in colour and grayscale at 900 px and at 300 px, the two yes/no prompts),
items spread over the five ColorBlindnessEval colour sets at ΔE2000 5-40 (nominal) with drawn quantiles, a
per-item PlateSpec JSON, replies, tokens and timestamps; verdicts at random with a per-model accuracy that
rises with ΔE2000, 1% failed requests. ``--retries`` adds a `--retry-errors` part that rewrites the failed
rows of one run under the same row keys (the latest row per key must win).

Each measurement runs in a fresh child process (its peak RSS is the dashboard's, not the generator's): open
(`plates.dashboard.views.open_results`), then each page's query and figure as `dashboard/sections/` draws them
(`plates.dashboard.pages`), each page timed on its first view (nothing cached), after a one-row warm-up of plotly.

    python3 bench/bench_dashboard.py [--rows 1000000 10000000] [--parts 24] [--repeat 3] [--dir DIR]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_FIRST_S = 1.5
TARGET_PAGE_S = 1.0
TARGET_MB = 600.0
MODELS = 8
COMBOS = (  # (prompt, grayscale, size)
    ("cbe-open", False, 900),
    ("cbe-open", True, 900),
    ("cbe-open", False, 300),
    ("cbe-yn-correct", False, 900),
    ("cbe-yn-incorrect", False, 900),
)
COLOUR_SETS = tuple(f"colorblindnesseval-{i}" for i in range(1, 6))


def _dict(indices, values):
    """A dictionary-encoded string column (what Parquet stores; cheap to build for millions of rows)."""
    import numpy as np
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(pa.array(np.asarray(indices, dtype=np.int32)), pa.array(values))


def synthetic_run(model: int, items: int, seed: int, start: int, stop: int):
    """Rows ``start:stop`` of model ``model``'s run (items x COMBOS), as a pyarrow Table in the results
    schema (string columns dictionary-encoded)."""
    import numpy as np
    import pyarrow as pa

    from plates.results import SCHEMA

    rng = np.random.default_rng([seed, model, start])
    idx = np.arange(start, stop)
    n = idx.size
    item, combo = idx // len(COMBOS), idx % len(COMBOS)
    prompts = sorted({c[0] for c in COMBOS})
    prompt = np.array([prompts.index(c[0]) for c in COMBOS])[combo]
    gray = np.array([c[1] for c in COMBOS])[combo]
    size = np.array([c[2] for c in COMBOS], dtype=np.int32)[combo]
    colour_set = item % len(COLOUR_SETS)
    delta_e = 5.0 + 35.0 * ((item * 7919) % 1000) / 1000.0
    threshold = 8.0 + 2.0 * model
    p = 0.5 + 0.45 / (1.0 + np.exp(-(delta_e - threshold) / 2.0))
    correct = rng.random(n) < p - 0.1 * gray
    failed = rng.random(n) < 0.01
    label = item % 100
    labels = [str(v) for v in range(100)]
    spec_json = [
        json.dumps({"text": str(i % 100), "seed": int(i), "palette": COLOUR_SETS[i % 5], "size": 900})
        for i in range(item.min(), item.max() + 1)
    ]
    reply_values = [*labels, "I cannot see a number in this image"]
    reply = np.where(correct, label, len(labels))
    columns = {
        "run_id": _dict(np.zeros(n), [f"run-model-{model}"]),
        "item_id": _dict(item - item.min(), [f"cbe-{i}" for i in range(item.min(), item.max() + 1)]),
        "model": _dict(np.zeros(n), [f"model-{model}"]),
        "backend": _dict(np.zeros(n), ["openai"]),
        "dataset": _dict(np.zeros(n), ["colorblindnesseval"]),
        "task": _dict(prompt, prompts),
        "target": _dict(label, labels),
        "expected": _dict(label, labels),
        "prompt_name": _dict(prompt, prompts),
        "prompt_text": _dict(prompt, [f"prompt text of {p}" for p in prompts]),
        "variant": _dict(np.zeros(n), ["standard"]),
        "colour_set": _dict(colour_set, list(COLOUR_SETS)),
        "delta_e": delta_e,
        "font": _dict(np.zeros(n), ["liberation-sans-bold"]),
        "size": size,
        "grayscale": gray,
        "hue_shift": np.zeros(n),
        "cvd": _dict(np.zeros(n), ["none"]),
        "cvd_severity": np.zeros(n),
        "shots": np.zeros(n, dtype=np.int32),
        "spec_json": _dict(item - item.min(), spec_json),
        "reply": _dict(reply, reply_values),
        "parsed": pa.array(np.where(correct, label.astype(str), None), type=pa.string()),
        "parse_status": _dict(np.where(correct, 0, 1), ["ok", "refusal"]),
        "correct": pa.array(np.where(failed, None, correct), type=pa.bool_()),
        "failure_mode": pa.array(np.where(correct | failed, None, "evasion"), type=pa.string()),
        "latency_s": rng.uniform(0.2, 3.0, n),
        "prompt_tokens": np.full(n, 900),
        "completion_tokens": np.full(n, 4),
        "attempts": np.ones(n, dtype=np.int32),
        "timestamp": np.full(n, np.datetime64("2026-01-01T00:00:00", "us")),
        "plates_version": _dict(np.zeros(n), ["0.1.0"]),
        "row_key": np.char.add(f"m{model}-", idx.astype(str)).astype(object),
        "delta_e_target": delta_e,
        "delta_e_drawn_min": delta_e * 0.8,
        "delta_e_drawn_p05": delta_e * 0.9,
        "delta_e_drawn_median": delta_e,
        "delta_e_drawn_p95": delta_e * 1.2,
        "text_only": np.zeros(n, dtype=bool),
        "family": _dict(np.zeros(n), ["ishihara"]),
    }
    columns["parse_status"] = _dict(np.where(failed, 2, np.where(correct, 0, 1)), ["ok", "refusal", "error"])
    arrays, fields = [], []
    for field in SCHEMA:
        value = columns.get(field.name)
        if value is None:
            arrays.append(pa.nulls(n, field.type))
            fields.append(field)
        elif isinstance(value, pa.DictionaryArray):
            arrays.append(value)
            fields.append(pa.field(field.name, value.type))
        else:
            arrays.append(pa.array(value, type=field.type, from_pandas=True))
            fields.append(field)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def make(folder: Path, rows: int, parts: int, retries: bool = False) -> None:
    """``rows`` rows over MODELS runs in ``parts`` parts (at least one per run), as `plates run` writes."""
    import pyarrow.parquet as pq

    per_model = -(-rows // MODELS)
    items = -(-per_model // len(COMBOS))
    chunks = max(1, -(-parts // MODELS))
    for m in range(MODELS):
        run = folder / f"run-model-{m}"
        run.mkdir(parents=True, exist_ok=True)
        total = min(per_model, rows - m * per_model)
        bounds = [total * c // chunks for c in range(chunks + 1)]
        for c, (a, b) in enumerate(zip(bounds, bounds[1:])):
            if b > a:
                pq.write_table(
                    synthetic_run(m, items, 0, a, b),
                    run / f"part-{c:03d}.parquet",
                    compression="zstd",
                    row_group_size=1 << 20,
                )
    if retries:  # a --retry-errors rerun of model 0: newer rows under the failed rows' keys
        import pyarrow as pa
        import pyarrow.compute as pc

        from plates.results.schema import SUPERSEDES_KEY

        first = pq.read_table(folder / "run-model-0" / "part-000.parquet")
        failed = first.filter(pc.is_null(first.column("correct")))
        fixed = failed.set_column(
            failed.schema.get_field_index("correct"),
            "correct",
            pa.array([True] * failed.num_rows, pa.bool_()),
        )
        later = pc.add(failed.column("timestamp"), pa.scalar(3_600_000_000, pa.duration("us")))
        fixed = fixed.set_column(fixed.schema.get_field_index("timestamp"), "timestamp", later)
        pq.write_table(
            fixed.replace_schema_metadata({SUPERSEDES_KEY: b"1"}), folder / "run-model-0" / "part-retry.parquet"
        )


def measure(folder: Path) -> dict:
    """In this (fresh) process: open the results and draw every page once; seconds per step, peak MB."""
    import pandas as pd

    from plates.charts import ishihara as charts
    from plates.dashboard import pages, views

    charts.overview_figure(pd.DataFrame({"model": ["m"], "prompt_name": ["p"], "correct": [True]})).to_json()

    out: dict = {}

    def timed_step(key: str, work) -> None:
        t, c = time.perf_counter(), time.process_time()
        work()
        out[f"{key}_s"], out[f"{key}_cpu"] = time.perf_counter() - t, time.process_time() - c

    state = {}

    def first() -> None:
        state["opened"] = views.open_results(folder)
        pages.overview(views.View(state["opened"])).figure.to_json()

    timed_step("first_overview", first)
    opened = state["opened"]
    out["rows"] = views.View(opened).rows
    for name, page in pages.PAGES.items():
        if name != "overview":
            timed_step(f"page_{name}", lambda page=page: page(views.View(opened)).figure.to_json())
    # the People page's work when no row is human (it stops there): one DuckDB EXISTS, no rows read
    from plates.dashboard.queries import has_rows

    out["people_has_humans"] = None
    timed_step("page_people_without_humans",
               lambda: out.update(people_has_humans=has_rows(opened.results, views.View(opened).where, "backend",
                                                             "human", ("ishihara", "illusion"))))
    timed_step("page_drilldown", lambda: views.drilldown(views.View(opened), only="incorrect", page=2))
    filtered = views.View(opened, views.Filters(model=("model-1",), prompt=("cbe-open",)))
    timed_step("filtered_overview_and_delta_e",
               lambda: (pages.overview(filtered).figure.to_json(), pages.delta_e(filtered).figure.to_json()))
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
    return out


def timed(folder: Path, repeat: int) -> list[dict]:
    """``repeat`` fresh child processes, each one `measure`."""
    runs = []
    for _ in range(max(1, repeat)):
        child = subprocess.run(
            [sys.executable, __file__, "--measure", str(folder)], capture_output=True, text=True
        )
        if child.returncode:
            raise RuntimeError(f"bench child failed: {child.stderr[-3000:]}")
        runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--parts", type=int, default=24, help="parts per result set (>= 20 for the target)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes timed; medians reported")
    parser.add_argument("--retries", action="store_true", help="add a --retry-errors part (latest row wins)")
    parser.add_argument(
        "--dir", type=Path, help="where to write the synthetic parts (default: a temporary folder)"
    )
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    results = {}
    with tempfile.TemporaryDirectory(prefix="plates-bench-") as tmp:
        for rows in args.rows:
            folder = (args.dir or Path(tmp)) / f"rows-{rows}"
            if not folder.is_dir():
                t0 = time.perf_counter()
                make(folder, rows, args.parts, args.retries)
                size_mb = sum(f.stat().st_size for f in folder.rglob("*.parquet")) / 2**20
                count = len(list(folder.rglob("*.parquet")))
                print(
                    f"made {rows:,} rows in {count} parts ({size_mb:.0f} MB) in "
                    f"{time.perf_counter() - t0:.1f} s",
                    flush=True,
                )
            results[rows] = timed(folder, args.repeat)
    report(results)
    return 0


def report(results: dict[int, list[dict]]) -> None:
    sizes = sorted(results)
    keys = [k.removesuffix("_s") for k in results[sizes[0]][0] if k.endswith("_s")]
    head = "".join(f"{f'{n:,} rows':>22}" for n in sizes)
    print(f"\nmedian of {len(results[sizes[0]])} fresh processes{'':10}{head}   target (10M wall)")
    print(f"{'(wall s / CPU s of all threads)':<42}" + "".join(f"{'wall':>11}{'CPU':>11}" for _ in sizes))
    for key in keys:
        walls = [statistics.median(r[f"{key}_s"] for r in results[n]) for n in sizes]
        cpus = [statistics.median(r[f"{key}_cpu"] for r in results[n]) for n in sizes]
        target = None if not key.startswith(("first_", "page_")) else (
            TARGET_FIRST_S if key == "first_overview" else TARGET_PAGE_S)
        cells = "".join(f"{w:>10.2f}s{c:>10.2f}s" for w, c in zip(walls, cpus))
        line = f"{key.replace('_', ' '):<42}{cells}"
        if target is not None:
            verdict = "meets" if walls[-1] <= target else "MISSES"
            line += f"   <= {target:.1f} s  ratio {walls[-1] / target:.2f} ({verdict})"
        print(line)
    peaks = [max(r["peak_mb"] for r in results[n]) for n in sizes]
    verdict = "meets" if peaks[-1] <= TARGET_MB else "MISSES"
    print(f"{'peak memory (RSS, worst run)':<42}" + "".join(f"{v:>19.0f} MB" for v in peaks)
          + f"   <= {TARGET_MB:.0f} MB  ratio {peaks[-1] / TARGET_MB:.2f} ({verdict})")
    seen = ", ".join(f"{results[n][0]['rows']:,}" for n in sizes)
    print(f"rows seen: {seen}; machine load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "(other work on the machine inflates wall times; CPU seconds are this process's own)")


if __name__ == "__main__":
    sys.exit(main())
