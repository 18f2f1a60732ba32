"""Dashboard at scale: every page of the navigation served over 1,000,000 and 10,000,000 result rows.

Targets: over 10,000,000 rows (plates, illusions, scenes and human rows) in >= 20 Parquet parts, every page
(the first, the overview, opens the results: parts' footers, the cube) <= 1.5 s and <= 600 MB peak RSS of the
whole process (the dashboard's server). The 1M and 10M figures are printed side by side so the growth shows.

The synthetic results (`tests.support.synthetic_results`: the results schema, every family, real JSON facts)
are written once per size. ``--retries`` adds a `--retry-errors` part that rewrites the failed rows of one run
under the same row keys (the latest row per key must win).

Each measurement runs in a fresh child process: the packaged dashboard (`plates dashboard`) under Streamlit's
AppTest, every page of its navigation opened in turn as a visitor clicks through them, each on its first view
(nothing cached but the opened results, as on a server); a thread samples the process's RSS every 5 ms, so
each page's peak is its own. A page shown a section at a time (`SECTION_WIDGETS`: People's "Section", the
Overview's "Stimuli" family) is timed in its first section as the page, then in every other section as a visitor
opens it (the radio set, the page rerun: that section's own scans and fits), each printed as its own row and held
to the same targets.

    python3 bench/bench_dashboard.py [--rows 1000000 10000000] [--parts 24] [--repeat 3] [--dir DIR]
                                     [--pages illusions people ...]
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
import threading
import time
from pathlib import Path

import pandas as pd
import psutil
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")

from plates.results.schema import SUPERSEDES_KEY  # noqa: E402 - after the checkout is on the path
from tests.support.synthetic_results import write_synthetic  # noqa: E402

TARGET_S = 1.5
TARGET_MB = 600.0
SAMPLE_S = 0.005  # the RSS sampler's period
#: Pages shown one section at a time -> the key of the radio that picks the section (its options, read from the
#: page itself, are the sections timed: a section added to the page is timed without an edit here).
SECTION_WIDGETS = {"overview": "overview_family", "people": "people_section"}


def make(folder: Path, rows: int, parts: int, retries: bool = False) -> None:
    """``rows`` rows of every family (`tests.support.synthetic_results.write_synthetic`); with ``retries`` a
    `--retry-errors` part that rewrites the failed rows of model 0's first part under the same row keys."""
    sizes = write_synthetic(folder, rows, parts)
    print("  rows per family: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()), flush=True)
    if retries:  # a --retry-errors rerun of model 0: newer rows under the failed rows' keys
        first = pq.read_table(folder / "run-model-0" / "part-000.parquet")
        failed = first.filter(pc.is_null(first.column("correct")))
        fixed = failed.set_column(failed.schema.get_field_index("correct"), "correct",
                                  pa.array([True] * failed.num_rows, pa.bool_()))
        later = pc.add(failed.column("timestamp"), pa.scalar(3_600_000_000, pa.duration("us")))
        fixed = fixed.set_column(fixed.schema.get_field_index("timestamp"), "timestamp", later)
        pq.write_table(fixed.replace_schema_metadata({SUPERSEDES_KEY: b"1"}),
                       folder / "run-model-0" / "part-retry.parquet")


class PeakSampler:
    """This process's resident memory, sampled every `SAMPLE_S` seconds on a thread: ``peak()`` since the
    last ``reset()`` (MB)."""

    def __init__(self) -> None:
        self._proc, self._peak, self._stop = psutil.Process(), 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self._peak = max(self._peak, self._proc.memory_info().rss)

    def reset(self) -> None:
        self._peak = self._proc.memory_info().rss

    def peak(self) -> float:
        self._peak = max(self._peak, self._proc.memory_info().rss)
        return self._peak / 2**20

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def measure(folder: Path, pages: list[str] | None = None) -> dict:
    """In this (fresh) process: the dashboard served on ``folder`` through Streamlit's AppTest, then every
    page of its navigation in turn (the first: the overview, which opens the results); wall and CPU seconds
    and the peak RSS during each page (MB, the whole process: the dashboard's server). ``pages``: only these
    (file stems, e.g. "illusions") after the first page, which opens the results."""
    from streamlit.testing.v1 import AppTest

    import plates.dashboard
    from plates.charts.overview import overview_figure
    from plates.dashboard.app import PAGES

    # a served dashboard has imported its modules and drawn a figure before the first visitor: warm up
    overview_figure(pd.DataFrame({"model": ["m"], "prompt_name": ["p"], "correct": [True]})).to_json()
    os.environ["PLATES_RESULTS"] = str(folder)
    app = str(Path(plates.dashboard.__file__).resolve().parent / "app.py")
    sampler = PeakSampler()
    out: dict = {"start_mb": sampler.peak()}
    at = AppTest.from_file(app, default_timeout=600)
    for path, title, _, default in sorted(PAGES, key=lambda page: not page[3]):  # the default page first
        key = Path(path).stem
        if pages and not default and key not in pages:
            continue
        at = _timed_run(out, sampler, key, title, at.run if default else at.switch_page(path).run)
        radios = [r for r in at.radio if r.key == SECTION_WIDGETS.get(key)]
        shown = radios[0].value if radios else None  # the section the page opened on: timed as the page
        for option in [o for o in radios[0].options if o != shown] if radios else []:
            radio = next(r for r in at.radio if r.key == SECTION_WIDGETS[key])
            at = _timed_run(out, sampler, f"{key} · {option}", f"{title} · {option}",
                            radio.set_value(option).run)
    sampler.stop()
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
    return out


def _timed_run(out: dict, sampler: PeakSampler, key: str, title: str, step) -> object:
    """``step()`` (an AppTest's run, its page or section already chosen) timed into ``out``: wall and CPU
    seconds and peak RSS (MB) under ``key``, and the charts drawn; a page that shows an exception or error is a
    RuntimeError. Returns the AppTest after the run."""
    sampler.reset()
    t, c = time.perf_counter(), time.process_time()
    at = step()
    out[f"{key}_s"], out[f"{key}_cpu"] = time.perf_counter() - t, time.process_time() - c
    out[f"{key}_mb"] = sampler.peak()
    print(f"{title}: {out[f'{key}_s']:.2f} s, {out[f'{key}_mb']:.0f} MB", file=sys.stderr, flush=True)
    problems = [e.value for e in at.exception] + [e.value for e in at.error]
    if problems:
        raise RuntimeError(f"page {title!r} failed: {problems[0]}")
    out[f"{key}_charts"] = len(at.get("plotly_chart"))
    return at


def timed(folder: Path, repeat: int, pages: list[str] | None = None) -> list[dict]:
    """``repeat`` fresh child processes, each one `measure` (of ``pages`` only, when given)."""
    runs = []
    for _ in range(max(1, repeat)):
        child = subprocess.run(
            [sys.executable, __file__, "--measure", str(folder), *(["--pages", *pages] if pages else [])],
            capture_output=True, text=True,
        )
        if child.returncode:
            raise RuntimeError(f"bench child failed: {child.stderr[-3000:]}")
        runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
        print(f"  {folder.name}: " + ", ".join(f"{k.removesuffix('_s')} {v:.2f} s / {runs[-1][k[:-2] + '_mb']:.0f} MB"
                                            for k, v in runs[-1].items() if k.endswith("_s")), flush=True)
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
    parser.add_argument("--pages", nargs="+", help="only these pages (file stems: illusions, people, ...) "
                        "after the overview, which opens the results: for iterating, not the target's figure")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.pages)))
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
            results[rows] = timed(folder, args.repeat, args.pages)
    report(results)
    return 0


def report(results: dict[int, list[dict]]) -> None:
    sizes = sorted(results)
    keys = [k.removesuffix("_s") for k in results[sizes[0]][0] if k.endswith("_s")]
    head = "".join(f"{f'{n:,} rows':>30}" for n in sizes)
    print(f"\nmedian of {len(results[sizes[0]])} fresh processes (peak: worst){'':6}{head}   "
          f"target (largest: <= {TARGET_S} s, <= {TARGET_MB:.0f} MB)")
    print(f"{'page (wall s / CPU s / peak RSS MB)':<44}" + "".join(f"{'wall':>10}{'CPU':>10}{'MB':>10}" for _ in sizes))
    misses = 0
    for key in keys:
        walls = [statistics.median(r[f"{key}_s"] for r in results[n]) for n in sizes]
        cpus = [statistics.median(r[f"{key}_cpu"] for r in results[n]) for n in sizes]
        peaks = [max(r[f"{key}_mb"] for r in results[n]) for n in sizes]
        cells = "".join(f"{w:>9.2f}s{c:>9.2f}s{m:>10.0f}" for w, c, m in zip(walls, cpus, peaks))
        ok = walls[-1] <= TARGET_S and peaks[-1] <= TARGET_MB
        misses += not ok
        page, _, section = key.partition(" · ")  # a section's row: "people · Illusions (PSE)"
        label = f"  · {section}" if section else key.replace("_", " ") + (" (opens the results)" if key == "overview" else "")
        print(f"{label:<44}{cells}   {'meets' if ok else 'MISSES'} "
              f"(time ratio {walls[-1] / TARGET_S:.2f}, memory ratio {peaks[-1] / TARGET_MB:.2f})")
    peaks = [max(r["peak_mb"] for r in results[n]) for n in sizes]
    print(f"{'whole-process peak (ru_maxrss)':<44}" + "".join(f"{v:>29.0f}" for v in peaks))
    sections = sum(" · " in key for key in keys)
    print(f"{len(keys) - misses} of {len(keys)} pages and sections ({sections} sections past a page's first) meet both targets at {sizes[-1]:,} rows; machine load "
          f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work on the machine inflates wall "
          "times; CPU seconds are this process's own, all threads)")


if __name__ == "__main__":
    sys.exit(main())
