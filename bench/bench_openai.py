"""Client throughput of `plates run` against an OpenAI-compatible server that answers after a set latency.

Targets: 2,000 stored 512 px PNG plates of a generated set (HueManity numeric, in its paper's style),
a server that answers after 200 ms: efficiency >= 0.9 at concurrency 16 and >= 0.6 at concurrency 64 (efficiency
= ideal / wall time, ideal = requests x latency / concurrency), client CPU <= 3 ms per request, client peak RSS
<= 400 MB, on the project's 2-core machine with the server on it too.

The whole client is measured, as `plates run --dataset DIR` works: reading the stored PNGs, building requests,
the backend, scoring and writing Parquet parts. Each concurrency runs in a fresh spawned process, so its CPU
time (user + system, every thread) and peak RSS are its own; the server (bench/loopback.py: uvicorn in its own
process) is measured apart. The set is generated once into --data and reused.

    python3 bench/bench_openai.py [--requests 2000] [--concurrency 16 64] [--delay 0.2] [--data DIR]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

TARGET_EFFICIENCY = {16: 0.9, 64: 0.6}
TARGET_CPU_MS = 3.0
TARGET_RSS_MB = 400.0
PRESET, SIZE = "huemanity-numeric", 512


def _ensure_set(data: Path, requests: int) -> None:
    """Generate the first ``requests`` plates of the preset at 512 px into ``data`` unless they are there."""
    from plates.datasets import generate

    manifest = data / "manifest.parquet"
    if manifest.is_file():
        import pyarrow.parquet as pq

        if pq.read_metadata(manifest).num_rows >= requests:
            return
    print(f"generating {requests} {SIZE} px plates of {PRESET} into {data} (once)", flush=True)
    generate(PRESET, data, limit=requests, size=SIZE, progress=False)


def _client(data: str, requests: int, concurrency: int, url: str, out: str, conn) -> None:
    """One measured run in this (spawned) process; sends its figures back through ``conn``."""
    import plates.models.openai_compat  # noqa: F401 - imported before the clock starts, as in a long run
    from plates.datasets import load_dataset
    from plates.runs.experiment import parse_experiment
    from plates.runs.runner import run_experiment

    items = load_dataset(data, limit=requests)
    exp = parse_experiment({"dataset": data, "prompts": [PRESET], "out": out, "models": [
        {"backend": "openai", "model": "bench", "base_url": url, "api_key_env": False,
         "concurrency": concurrency, "timeout": 60}]})
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    summary = run_experiment(exp, items=items, progress=False)
    elapsed, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    conn.send({"elapsed": elapsed, "cpu": cpu, "rss_mb": after.ru_maxrss / 1024, "written": summary.written,
               "errors": summary.errors})


def _server_cpu(pid: int) -> float:
    import psutil

    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--delay", type=float, default=0.2, help="server latency in seconds")
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "plates-bench-openai-512",
                        help="where the generated set is kept between runs")
    args = parser.parse_args()

    from loopback import LoopbackServer

    _ensure_set(args.data, args.requests)
    ctx = multiprocessing.get_context("spawn")
    print(f"{args.requests} stored {SIZE} px PNGs of {PRESET} ({args.data}), server latency "
          f"{args.delay * 1000:.0f} ms, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start")
    ok = True
    with LoopbackServer(delay=args.delay) as server:
        for concurrency in args.concurrency:
            with tempfile.TemporaryDirectory() as out:
                ours, theirs = ctx.Pipe()
                server_before = _server_cpu(server.pid)
                client = ctx.Process(target=_client, args=(str(args.data), args.requests, concurrency,
                                                           server.base_url, out, theirs))
                client.start()
                got = ours.recv()
                client.join()
                server_cpu = _server_cpu(server.pid) - server_before
            ideal = args.requests * args.delay / concurrency
            efficiency = ideal / got["elapsed"]
            cpu_ms = got["cpu"] / args.requests * 1000
            target = TARGET_EFFICIENCY.get(concurrency)
            verdicts = [
                f"efficiency {efficiency:.2f}" + ("" if target is None else
                                                   f" (target >= {target}: {'PASS' if efficiency >= target else 'MISS'})"),
                f"client CPU {cpu_ms:.2f} ms/request (target <= {TARGET_CPU_MS}: "
                f"{'PASS' if cpu_ms <= TARGET_CPU_MS else 'MISS'})",
                f"client peak RSS {got['rss_mb']:.0f} MB (target <= {TARGET_RSS_MB:.0f}: "
                f"{'PASS' if got['rss_mb'] <= TARGET_RSS_MB else 'MISS'})",
            ]
            print(f"concurrency {concurrency}: {got['written']} rows, {got['errors']} errors, "
                  f"{got['elapsed']:.2f} s vs ideal {ideal:.2f} s; server CPU "
                  f"{server_cpu / args.requests * 1000:.2f} ms/request; load {os.getloadavg()[0]:.1f}")
            for line in verdicts:
                print(f"  {line}")
            ok = ok and got["written"] == args.requests and got["errors"] == 0
    print(f"server: {server.count} requests, at most {server.max_in_flight} in flight")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
