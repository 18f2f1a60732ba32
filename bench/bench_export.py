"""Benchmark the exporters: `plates export hf` on the HueManity numeric set and on an illusion preset.

Run: python3 bench/bench_export.py [--data /tmp/huemanity-numeric] [--illusion rcid-contrast] [--keep]

First generate the HueManity numeric set (HueManity §4: 2,250 plates at 900 px; a few minutes on a loaded
machine): ``plates generate --preset huemanity-numeric --out /tmp/huemanity-numeric``. Then this prints, for
the Hugging Face export of that folder (prompt huemanity-numeric, every plate once, the stored PNGs travelling
as their bytes) and of the illusion preset ``--illusion`` (rendered in memory, both RCID framings, each image
encoded as the OpenAI-compatible backend sends it):
* rows, wall time and rows per second, against a target of <= 60 s for the 2,250 plates and <= 60 s for the
  illusion preset (ratio <= 1 meets it);
* the folder's size against the images' own PNG bytes (Parquet overhead; target <= 2 %), and bytes per row;
* the lmms-eval task folder's and VLMEvalKit TSV's write times and sizes (the TSV holds base64: ~+33 %).
Timings are wall-clock on whatever else this machine runs: rerun on a quiet machine for final figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from plates.cli import build_parser
from plates.cli.run import build_experiment
from plates.integrations.hf_dataset import export_hf
from plates.integrations.lmms_eval import export_lmms_eval
from plates.integrations.vlmevalkit import export_vlmevalkit

TARGET_S = {"huemanity-numeric": 60.0, "illusion": 60.0}
OVERHEAD_TARGET = 0.02


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _experiment(args: list[str]):
    return build_experiment(build_parser().parse_args(["run", *args, "--backend", "baseline", "--out", "unused"]))


def bench(label: str, args: list[str], work: Path, target: float) -> None:
    exp = _experiment(args)
    out = work / label
    t0 = time.perf_counter()
    summary = export_hf(exp, out, command="plates export hf " + " ".join(args) + f" --out {out}")
    seconds = time.perf_counter() - t0
    size, images = _size(out), summary.bytes
    print(f"{label}: {summary.total} rows in {len(summary.rows)} config(s), {seconds:.1f} s "
          f"({summary.total / seconds:.0f} rows/s; target <= {target:.0f} s, ratio {seconds / target:.2f})")
    print(f"  folder {size / 2**20:.1f} MB for {images / 2**20:.1f} MB of PNG: overhead "
          f"{(size - images) / images:+.2%} (target <= {OVERHEAD_TARGET:.0%}); {size / summary.total / 1024:.0f} KB/row")
    t0 = time.perf_counter()
    tasks = export_lmms_eval(out, work / f"{label}-lmms")
    print(f"  lmms-eval task folder: {len(tasks)} task(s) in {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    n = export_vlmevalkit(exp, work / f"{label}-vlmevalkit")
    tsv = work / f"{label}-vlmevalkit" / "plates.tsv"
    print(f"  VLMEvalKit TSV: {n} rows in {time.perf_counter() - t0:.1f} s, {tsv.stat().st_size / 2**20:.1f} MB "
          f"({tsv.stat().st_size / images - 1:+.0%} over the PNG bytes: base64)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="/tmp/huemanity-numeric", help="the generated huemanity-numeric folder")
    parser.add_argument("--illusion", default="rcid-contrast", help="an illusion preset (default rcid-contrast)")
    parser.add_argument("--keep", action="store_true", help="keep the exported folders (printed)")
    args = parser.parse_args()
    if not (Path(args.data) / "manifest.parquet").is_file():
        raise SystemExit(f"{args.data} is not a generated set: run `plates generate --preset huemanity-numeric "
                         f"--out {args.data}` first")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    work = Path(tempfile.mkdtemp(prefix="plates-bench-export-"))
    try:
        bench("huemanity-numeric", ["--dataset", args.data, "--prompt", "huemanity-numeric"], work,
              TARGET_S["huemanity-numeric"])
        toml = work / "illusion.toml"
        toml.write_text(f'prompts = ["rcid-compare-pixel", "rcid-compare-human"]\nout = "unused"\n'
                        f'[dataset]\nsource = "{args.illusion}"\n[[models]]\nbackend = "baseline"\n'
                        'model = "baseline-cnn"\n')
        bench(args.illusion, [str(toml)], work, TARGET_S["illusion"])
        print(f"load average {os.getloadavg()[0]:.1f} after the runs")
    finally:
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
