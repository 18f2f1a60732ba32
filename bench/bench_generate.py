"""Benchmark `plates generate`: CPU per plate per paper style, peak memory, extrapolated to the full sets.

Run: python3 bench/bench_generate.py [--preset huemanity --preset colorblindnesseval] [--plates 1000]
                                     [--workers N] [--size 900] [--full] [--keep]

For each ``--preset`` (default: ``huemanity``, HueManity §3's 83,850 images in its own style, and
``colorblindnesseval``, CBE's style with its standard and clear image per plate), generates its first ``--plates``
plates into a temporary folder with ``--workers`` processes (default: every core), each time as a user does: a
fresh ``plates generate`` process (its workers forked from it, as from any command run alone; this bench's own
imports, threads and memory are not the command's), then prints:
* CPU time per plate (the workers' CPU plus the command's, which writes the manifest: what two otherwise idle
  cores would spend; a busy shared machine inflates wall-clock figures much more than CPU time) against the
  style's target (HueManity style <= 36 ms, CBE style <= 40 ms, PNG encoding and manifest included): steady
  state, i.e. less the CPU of the same command on a few plates (the workers' start-up, paid once per set), and
  with the start-up spread over the sample; the full set on 2 workers from it (HueManity: <= 25 min);
* the measured wall time per plate and the same extrapolation from it (with --full the whole set is written
  and the figure is measured, not extrapolated);
* where one plate's time goes, one process, 50 plates: render (pack, colour, paint), the manifest's drawn-ΔE
  statistics, PNG encoding (every variant the preset writes, from the arrays a worker encodes);
* peak resident memory of the command's whole process tree (sampled with psutil), at half-way and at the end of the
  sample, against <= 500 MB: equal figures mean memory stays flat as the set grows;
* bytes per PNG.
The machine's load average is printed at the start and the end of each preset.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from plates.datasets import PRESETS, make_spec, preset_size
from plates.datasets.write import measured_values
from plates.images import encode_png
from plates.stimuli.ishihara.plate import render

#: CPU ms per plate (PNG encoding and manifest included) that each paper style must stay within
TARGET_MS = {"huemanity": 36.0, "cbe": 40.0, "dense": 36.0}


class RssMonitor(threading.Thread):
    """Peak summed RSS and PSS (bytes) of process ``pid`` and all its descendants. RSS counts pages shared by the
    forked workers once per process (an upper bound); PSS splits them fairly (the real total)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        try:
            import psutil
        except ImportError:  # not a project dependency: fall back to getrusage peaks (printed as such)
            psutil = None
        self.proc = psutil.Process(pid) if psutil else None
        self.peak = 0
        self.peak_pss = 0
        self.samples: list[tuple[float, int, int]] = []  # (perf_counter, RSS sum, PSS sum)
        self.stop = threading.Event()

    def peaks_until(self, t: float) -> tuple[int, int]:
        """Peak RSS and PSS sums sampled up to ``t`` (perf_counter)."""
        before = [(rss, pss) for at, rss, pss in self.samples if at <= t]
        return max((b[0] for b in before), default=0), max((b[1] for b in before), default=0)

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
            self.samples.append((time.perf_counter(), total, pss))
            time.sleep(0.2)


def line(name: str, value: float, unit: str, target: float) -> None:
    ratio = value / target
    print(f"{name:<50} {value:10.2f} {unit:<4} target <= {target:<8g} ratio {ratio:5.2f}  "
          f"{'meets' if ratio <= 1 else 'MISSES'}")


def _cpu() -> float:
    """CPU seconds of this process and its reaped children, user + system."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def where_time_goes(name: str, size: int, compress_level: int) -> tuple[float, float, float]:
    """Median CPU ms per plate of render, drawn-ΔE statistics and PNG encoding (every variant), one process."""
    p = PRESETS[name]
    render(make_spec(name, p.labels[0], p.palettes[0], size=size, seed=0)).delta_e_drawn  # noqa: B018 - warm-up
    rt, mt, et = [], [], []
    for i in range(50):
        spec = make_spec(name, p.labels[(7 * i) % len(p.labels)], p.palettes[i % len(p.palettes)], size=size, seed=i)
        c0 = time.process_time()
        plate = render(spec)
        c1 = time.process_time()
        measured_values(plate)
        c2 = time.process_time()
        for v in p.variants:  # what a generate worker encodes: the painter's pixel array, no PIL image
            encode_png(plate.variant_pixels(v), compress_level)
        rt.append(c1 - c0)
        mt.append(c2 - c1)
        et.append(time.process_time() - c2)
    return statistics.median(rt) * 1e3, statistics.median(mt) * 1e3, statistics.median(et) * 1e3


def _command(name: str, out: str, plates: int, args) -> subprocess.Popen:
    """``plates generate`` of the first ``plates`` plates of preset ``name`` into ``out``, started as a user
    starts it (stdout: its JSON summary)."""
    return subprocess.Popen([sys.executable, "-m", "plates.cli", "generate", "--preset", name, "--out", out,
                             "--limit", str(plates), "--size", str(args.size), "--workers", str(args.workers),
                             "--compress-level", str(args.compress_level), "--no-progress"], stdout=subprocess.PIPE)


def bench_preset(name: str, args) -> None:
    p = PRESETS[name]
    full = preset_size(name) // len(p.variants)  # plates in the whole set
    n = full if args.full else min(args.plates, full)
    load0 = os.getloadavg()[0]
    render_ms, measure_ms, png_ms = where_time_goes(name, args.size, args.compress_level)
    # the same command on a few plates: its CPU is mostly the command's start-up (imports: numpy, Pillow, scipy,
    # colour-science), which the full set pays once
    few = min(2 * args.workers, n)
    small = tempfile.mkdtemp(prefix="plates-bench-")
    try:
        c0 = _cpu()
        _command(name, small, few, args).wait()
        startup = _cpu() - c0
    finally:
        shutil.rmtree(small, ignore_errors=True)
    out = tempfile.mkdtemp(prefix="plates-bench-")
    try:
        ru0c = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = _command(name, out, n, args)
        mon = RssMonitor(proc.pid)
        mon.start()
        stdout, _ = proc.communicate()
        wall = time.perf_counter() - t0
        mon.stop.set()
        mon.join()
        if proc.returncode != 0:
            raise RuntimeError(f"plates generate exited with {proc.returncode}")
        s = json.loads(stdout)
        ru1c = resource.getrusage(resource.RUSAGE_CHILDREN)
        # the command, its workers (reaped by it) and nothing of this process
        cmd_cpu = (ru1c.ru_utime - ru0c.ru_utime) + (ru1c.ru_stime - ru0c.ru_stime)
        peak_half, pss_half = mon.peaks_until(t0 + wall / 2)
        peak_end, pss_end = mon.peak, mon.peak_pss
        if mon.proc is None:  # getrusage: the largest process's peak times the processes (an upper bound)
            kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * (args.workers + 1)
            peak_end = pss_end = peak_half = pss_half = kb * 1024
            print("psutil not installed: memory figures are getrusage peaks (no half-way figure)")
    finally:
        nbytes = 0
        for root, _dirs, files in os.walk(out):
            nbytes += sum(os.path.getsize(os.path.join(root, f)) for f in files if f.endswith(".png"))
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
        else:
            print(f"kept {out}")
    pngs = n * len(p.variants)
    cpu_plate = cmd_cpu / n
    print(f"\n## {name} (style {p.style}): {n:,} of {full:,} plates ({pngs:,} PNGs, {s['rows']:,} manifest rows) "
          f"at {args.size} px, {args.workers} workers, PNG compress level {args.compress_level}; load average "
          f"{load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end, {os.cpu_count()} cores")
    steady = (cmd_cpu - startup) / max(n - few, 1)
    line("CPU per plate, steady (start-up subtracted)", steady * 1e3, "ms", TARGET_MS[p.style])
    print(f"{'  with the workers start-up spread over the sample':<50} {cpu_plate * 1e3:10.2f} ms "
          f"(start-up {startup:.1f} s CPU, measured on {few} plates)")
    line("  full set on 2 idle cores, from CPU time (EXTRAP.)", (steady * full + startup) / 2 / 60, "min", 25.0)
    per_plate = wall / n
    full_min_2 = per_plate * full * args.workers / 2 / 60  # the same per-worker speed on 2 workers
    label = "full set on 2 workers, wall (MEASURED)" if args.full and args.workers == 2 else (
        "full set on 2 workers, wall (EXTRAPOLATED)")
    print(f"{'  wall time for the sample':<50} {wall:10.1f} s ({per_plate * args.workers * 1e3:.2f} ms per plate "
          "per worker)")
    line(label, full_min_2, "min", 25.0)
    print(f"{'  one process, median CPU: render / drawn ΔE / PNG':<50} {render_ms:10.2f} / {measure_ms:.2f} / "
          f"{png_ms:.2f} ms per plate")
    line("peak memory (PSS sum), process tree", pss_end / 2**20, "MB", 500.0)
    print(f"{'  peak PSS in the first half of the run (flat if equal)':<50} {pss_half / 2**20:10.1f} MB")
    print(f"{'  peak RSS sum (shared pages counted per process)':<50} {peak_end / 2**20:10.1f} MB "
          f"(half-way {peak_half / 2**20:.1f} MB)")
    print(f"{'  bytes per PNG':<50} {nbytes / max(pngs, 1) / 1024:10.1f} KiB  (full set ~ "
          f"{nbytes / max(pngs, 1) * full * len(p.variants) / 2**30:.1f} GiB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", action="append", choices=sorted(PRESETS),
                    help="plate preset (repeatable; default: huemanity and colorblindnesseval)")
    ap.add_argument("--plates", type=int, default=1000, help="sample size per preset, in plates")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--size", type=int, default=900)
    ap.add_argument("--compress-level", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="write every plate of each preset instead of a sample")
    ap.add_argument("--keep", action="store_true", help="keep the generated folders")
    args = ap.parse_args()
    for name in args.preset or ["huemanity", "colorblindnesseval"]:
        bench_preset(name, args)


if __name__ == "__main__":
    main()
