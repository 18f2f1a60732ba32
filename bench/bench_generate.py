"""Benchmark `plates generate`: time per PNG and peak memory, extrapolated to HueManity's full 83,850-image set.

Run: python3 bench/bench_generate.py [--plates 1000] [--workers N] [--size 900] [--full] [--keep]

Generates the first ``--plates`` plates of the ``huemanity`` preset (HueManity §3: 83,850 images at 900 px,
jittered DejaVu Sans Bold Oblique) into a temporary folder with every core, then prints:
* the measured wall time per PNG and the EXTRAPOLATION to 83,850 PNGs on this many workers, against the
  target of <= 25 min on 2 cores (ratio <= 1 meets it), and the same from the workers' CPU time, which is
  what two otherwise idle cores would take (a busy shared machine inflates the wall-clock figure). With --full it writes all 83,850 (about 7 GB at
  compress level 2) and the figure is measured, not extrapolated;
* render vs. PNG-encode time per image (one process, 50 images), to show where the time goes;
* peak resident memory of the whole process tree (sampled every 0.1 s with psutil), at half-way and at the
  end of the sample, against <= 500 MB: equal figures mean memory stays flat as the set grows;
* bytes per PNG.
Timings are wall-clock on whatever else this machine runs: rerun on a quiet machine for final figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import tempfile
import threading
import time

from plates.datasets import generate, make_spec, preset_size
from plates.images import encode_png
from plates.stimuli.ishihara.plate import render

FULL = preset_size("huemanity")


class RssMonitor(threading.Thread):
    """Peak summed RSS and PSS (bytes) of this process and all its descendants. RSS counts pages shared by the
    forked workers once per process (an upper bound); PSS splits them fairly (the real total)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        try:
            import psutil
        except ImportError:  # not a project dependency: fall back to getrusage peaks (printed as such)
            psutil = None
        self.proc = psutil.Process() if psutil else None
        self.peak = 0
        self.peak_pss = 0
        self.stop = threading.Event()

    def run(self) -> None:
        if self.proc is None:
            return
        while not self.stop.is_set():
            total = pss = 0
            try:
                for p in [self.proc, *self.proc.children(recursive=True)]:
                    try:
                        info = p.memory_full_info()
                        total += info.rss
                        pss += getattr(info, "pss", info.rss)
                    except Exception:  # a worker may exit between listing and reading
                        pass
            except Exception:
                pass
            self.peak = max(self.peak, total)
            self.peak_pss = max(self.peak_pss, pss)
            time.sleep(0.2)


def line(name: str, value: float, unit: str, target: float) -> None:
    ratio = value / target
    print(f"{name:<50} {value:10.2f} {unit:<4} target <= {target:<8g} ratio {ratio:5.2f}  "
          f"{'meets' if ratio <= 1 else 'MISSES'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plates", type=int, default=1000, help="sample size (plates = PNGs for this preset)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--size", type=int, default=900)
    ap.add_argument("--compress-level", type=int, default=2)
    ap.add_argument("--full", action="store_true", help=f"write all {FULL:,} PNGs instead of a sample")
    ap.add_argument("--keep", action="store_true", help="keep the generated folder")
    args = ap.parse_args()
    n = FULL if args.full else args.plates

    # where the time goes, in one process
    rt, et = [], []
    for i in range(50):
        spec = make_spec("huemanity", "Wg" if i % 2 else "A7", f"huemanity-{i % 25 + 1:02d}", size=args.size, seed=i)
        t0 = time.perf_counter()
        im = render(spec).image
        t1 = time.perf_counter()
        encode_png(im, args.compress_level)
        rt.append(t1 - t0)
        et.append(time.perf_counter() - t1)

    # load colour-science and pyarrow now, as the manifest step does, so both halves of the sample start from
    # the same parent process (otherwise the second half's parent carries them and looks like growth)
    render(make_spec("huemanity", "A7", "huemanity-01", size=args.size, seed=0)).stats  # noqa: B018 - computing the stats is the warm-up
    import pyarrow.parquet  # noqa: F401
    out = tempfile.mkdtemp(prefix="plates-bench-")
    mon = RssMonitor()
    mon.start()
    try:
        half = n // 2
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        generate("huemanity", out, limit=half, size=args.size, workers=args.workers,
                 compress_level=args.compress_level, progress=False)
        peak_half, pss_half = mon.peak, mon.peak_pss
        s = generate("huemanity", out, limit=n, size=args.size, workers=args.workers,
                     compress_level=args.compress_level, progress=False)
        wall = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        child_cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)  # all workers, reaped
        peak_end, pss_end = mon.peak, mon.peak_pss
        if mon.proc is None:  # getrusage: this process's peak plus the largest worker's, times the workers
            kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            kb += resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * args.workers
            peak_end = pss_end = peak_half = pss_half = kb * 1024
            print("psutil not installed: memory figures are getrusage peaks (no half-way figure)")
    finally:
        mon.stop.set()
        nbytes = sum(f.stat().st_size for f in os.scandir(out) if f.is_file())
        for root, _dirs, files in os.walk(out):
            nbytes += sum(os.path.getsize(os.path.join(root, f)) for f in files if f.endswith(".png"))
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
        else:
            print(f"kept {out}")

    per_png = wall / n
    full_min_2 = per_png * FULL * args.workers / 2 / 60  # the same per-worker speed on 2 workers
    print(f"generate bench: huemanity preset, {n:,} of {FULL:,} PNGs at {args.size} px, {args.workers} workers, "
          f"PNG compress level {args.compress_level} ({s['rows']:,} manifest rows)")
    print(f"{'  wall time for the sample':<50} {wall:10.1f} s")
    print(f"{'  per PNG (wall, all workers)':<50} {per_png * 1e3:10.2f} ms;  per PNG per worker "
          f"{per_png * args.workers * 1e3:.2f} ms (target ~36 ms)")
    label = "full set on 2 cores (MEASURED)" if args.full and args.workers == 2 else (
        "full set on 2 cores (EXTRAPOLATED from the sample)")
    line(label, full_min_2, "min", 25.0)
    cpu_png = child_cpu / n
    print(f"{'  workers CPU time per PNG (incl. worker start-up)':<50} {cpu_png * 1e3:10.2f} ms")
    line("  full set on 2 idle cores, from CPU time (EXTRAP.)", cpu_png * FULL / 2 / 60, "min", 25.0)
    print(f"{'  render / PNG encode, one process, median':<50} {statistics.median(rt) * 1e3:10.2f} / "
          f"{statistics.median(et) * 1e3:.2f} ms")
    line("peak memory (PSS sum), process tree", pss_end / 2**20, "MB", 500.0)
    print(f"{'  peak PSS at half the sample (flat if equal)':<50} {pss_half / 2**20:10.1f} MB")
    print(f"{'  peak RSS sum (shared pages counted per process)':<50} {peak_end / 2**20:10.1f} MB "
          f"(half-way {peak_half / 2**20:.1f} MB)")
    print(f"{'  bytes per PNG':<50} {nbytes / max(n, 1) / 1024:10.1f} KiB  (full set ~ "
          f"{nbytes / max(n, 1) * FULL / 2**30:.1f} GiB)")


if __name__ == "__main__":
    main()
