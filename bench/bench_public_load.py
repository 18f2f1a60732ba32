"""A public Space under load: 60 visitors against the explorer served as a hosted Space, on loopback only.

The explorer runs in its own process as a hosted Space would (``SYSTEM=spaces``: public mode, client addresses
from the proxy's ``X-Forwarded-For``), so its resident memory is measured alone. Each visitor is a fresh
gradio_client session from an address of its own (10.1.0.N in ``X-Forwarded-For``, as the Space's proxy would
write it) and does what a hostile visitor would do per session: starts a quiz (its first image drawn),
redraws a plate, runs a 4-point ΔE2000 sweep with the bundled reader, and uploads a 200 KB spec file to
Gradio's upload route. Visitors run ``--concurrency`` at a time. A sampler reads the server's RSS every 0.2 s.

Prints: visitors done and refused (by which limit), the server's RSS before, at its peak and after every
visitor's session has ended (clients closed, then ``--settle`` seconds), against the budget
(`plates.admission.MEMORY_BUDGET_BYTES`, 1.5 GB). Bounded: stops by itself after ``--deadline`` seconds
(default 170), whatever is left.

    python3 bench/bench_public_load.py [--visitors 60] [--concurrency 6] [--deadline 170] [--settle 10]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(port: int) -> subprocess.Popen:
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "SYSTEM": "spaces",
           "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port), "PYTHONPATH": str(ROOT)}
    env.pop("PLATES_PUBLIC", None)
    env.pop("PLATES_HUMAN_RESULTS", None)
    return subprocess.Popen([sys.executable, "-m", "plates.explorer"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_up(url: str, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the explorer exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the explorer did not answer at {url} within {timeout:.0f} s")


def _limit_of(message: str) -> str:
    for words, name in (("quiz starts", "quiz starts per address"), ("quizzes now", "live quizzes"),
                        ("memory budget", "memory budget"), ("uploads", "upload bytes"),
                        ("queue", "queue full")):
        if words in message:
            return name
    return "other: " + message[:80]


def visitor(url: str, n: int, outcome: Counter, lock: threading.Lock) -> None:
    import httpx
    from gradio_client import Client

    from plates.explorer import plate as ex

    address = f"10.1.{n // 250}.{n % 250 + 1}"
    headers = {"X-Forwarded-For": address}
    client = Client(url, verbose=False, download_files=False, headers=headers)
    controls = list({**ex.spec_to_controls(ex.default_spec()).__dict__, "delta_e": 6.0 + n % 10,
                     "seed": 5000 + n}.values())
    model = ["baseline", "", "", "", "cbe-open", None, 0, False, 0, "none", 1.0, "standard"]
    steps = (("quiz", lambda: client.predict(True, api_name="/quiz_start")),
             ("render", lambda: client.predict(*controls, api_name="/render")),
             ("sweep", lambda: list(client.submit(2.0, 20.0, 4, *model, *controls, api_name="/sweep"))),
             ("upload", lambda: _upload(httpx, url, headers)))
    try:
        for name, step in steps:
            try:
                step()
                result = f"{name}: done"
            except Exception as exc:  # noqa: BLE001 - a refusal is an outcome to count, not a crash
                result = f"{name}: refused ({_limit_of(str(exc))})"
            with lock:
                outcome[result] += 1
        with lock:
            outcome["visitors who went through every step"] += 1
    finally:
        client.close()


def _upload(httpx, url: str, headers: dict) -> None:
    spec = b"{" + b" " * 200_000 + b"}"
    answer = httpx.post(f"{url.rstrip('/')}/gradio_api/upload", files={"files": ("spec.json", spec)},
                        headers=headers, timeout=30)
    if answer.status_code != 200:
        raise RuntimeError(f"HTTP {answer.status_code}: {answer.text[:200]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=60)
    parser.add_argument("--concurrency", type=int, default=6)
    parser.add_argument("--deadline", type=float, default=170.0, help="seconds before it stops by itself")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds to wait after the last visitor")
    args = parser.parse_args(argv)

    import psutil

    from plates.admission import MEMORY_BUDGET_BYTES, process_rss

    started = time.monotonic()
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc = serve(port)
    samples: list[float] = []
    stop = threading.Event()
    try:
        wait_up(url, proc)
        before = process_rss(proc.pid)  # the server and its render workers

        def sample() -> None:
            while not stop.wait(0.2):
                try:
                    samples.append(process_rss(proc.pid))
                except psutil.Error:
                    return

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        outcome: Counter = Counter()
        lock = threading.Lock()
        load_start = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
            futures = [pool.submit(visitor, url, n, outcome, lock) for n in range(args.visitors)]
            left = args.deadline - (time.monotonic() - started) - args.settle
            done, pending = wait(futures, timeout=max(1.0, left))
            for f in pending:
                f.cancel()
        load_s = time.monotonic() - load_start
        time.sleep(args.settle)
        after = process_rss(proc.pid)
        stop.set()
        peak = max([before, after, *samples])
        budget = MEMORY_BUDGET_BYTES
        cancelled = sum(1 for f in pending if f.cancelled())
        print(f"public explorer under load (loopback, {args.visitors} visitors, {args.concurrency} at a time, "
              f"load {os.getloadavg()[0]:.1f}): {outcome['visitors who went through every step']} went through "
              f"every step in {load_s:.0f} s{f', {cancelled} not started before the deadline' if cancelled else ''}")
        for key in sorted(k for k in outcome if ":" in k):
            print(f"  {key}: {outcome[key]}")
        print(f"server RSS (with its render workers): {before / 1e6:.0f} MB at start, peak {peak / 1e6:.0f} MB, {after / 1e6:.0f} MB "
              f"{args.settle:.0f} s after the last visitor; budget <= {budget / 1e6:.0f} MB "
              f"(peak/budget {peak / budget:.2f}: {'inside' if peak <= budget else 'OVER'})")
    finally:
        stop.set()
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
