"""How fast a newcomer's first pages come, measured as a person meets them: a real headless Chromium (Debian's)
opening freshly started apps.

Figures, each against its target (ratio <= 1 meets it):

* explorer first page, cold: ``python -m plates.explorer`` started in a new process (the first start of this
  bench: imports, fonts and workers from cold Python caches as far as the OS allows) until the page shows the
  drawn plate; target <= 8 s;
* explorer first page, warm: the same again right after (the OS file cache now holds the imports); <= 4 s;
* the first ΔE2000 sweep: on that page, the Model tab's "Run sweep" (its defaults: 0.25-16, 8 points, the
  bundled reader) pressed until its coarse pass (4 points by ratio) is shown; <= 2 s; printed beside it, with
  no target, the whole sweep: until the fine pass inside the bracket is done (the range boxes show it);
* dashboard first page: ``plates dashboard results/runs`` (the shipped runs) started in a new process until
  the Overview's chart is drawn; <= 3 s.

The machine may be shared: the figures are wall-clock; ``uptime``'s load is printed beside them. Rerun on a
quiet machine for figures to quote. Nothing is downloaded; the apps bind 127.0.0.1 on free ports.

    python3 bench/bench_starts.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TARGETS_S = {"explorer cold": 8.0, "explorer warm": 4.0, "first sweep": 2.0, "dashboard first page": 3.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(command: list[str], env: dict) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def until_page(page, url: str, selector_js: str, started: float, timeout_s: float = 180.0) -> float:
    """Seconds from ``started`` until ``url`` answers in the browser and ``selector_js`` holds."""
    deadline = started + timeout_s
    while True:
        try:
            page.goto(url, timeout=5_000)
            break
        except Exception:  # noqa: BLE001 - not listening yet
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer within {timeout_s:g} s") from None
            time.sleep(0.05)
    page.wait_for_function(selector_js, timeout=timeout_s * 1000)
    return time.monotonic() - started


def explorer(browser, *, sweep: bool) -> tuple[float, tuple[float, float] | None]:
    port = free_port()
    env = {"GRADIO_SERVER_PORT": str(port), "GRADIO_ANALYTICS_ENABLED": "False"}
    started = time.monotonic()
    proc = start([sys.executable, "-m", "plates.explorer"], env)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        first = until_page(page, f"http://127.0.0.1:{port}/",
                           "() => (document.querySelector('#view-plate img')?.src || '') !== ''", started)
        swept = None
        if sweep:
            page.get_by_role("tab", name="Model").click()
            button = page.get_by_role("button", name="Run sweep")
            button.scroll_into_view_if_needed()
            t0 = time.monotonic()
            button.click()
            page.wait_for_function(
                "() => (document.querySelector('#reply textarea')?.value || '').split('\\n').length >= 4",
                timeout=120_000)
            swept = time.monotonic() - t0
            # then the fine pass inside the bracket: done when the range boxes show the bracket
            page.wait_for_function("() => document.querySelector('#sweep-lo input')?.value !== '0.25'"
                                   " || document.querySelector('#sweep-hi input')?.value !== '16'", timeout=120_000)
            whole = time.monotonic() - t0
            return first, (swept, whole)
        return first, swept
    finally:
        page.close()
        stop(proc)


def dashboard(browser) -> float:
    port = free_port()
    env = {"STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    started = time.monotonic()
    proc = start([sys.executable, "-m", "plates.cli", "dashboard", str(ROOT / "results" / "runs"), "--port",
                  str(port), "--address", "127.0.0.1"], env)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        return until_page(page, f"http://127.0.0.1:{port}/",
                          "() => !!document.querySelector('.js-plotly-plot .main-svg')", started)
    finally:
        page.close()
        stop(proc)


def main() -> None:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--repeat", type=int, default=1, help="warm starts and dashboard starts to time (median)")
    args = cli.parse_args()
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()
    figures: dict[str, list[float]] = {name: [] for name in TARGETS_S}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        cold, (swept, whole) = explorer(browser, sweep=True)
        figures["explorer cold"].append(cold)
        figures["first sweep"].append(swept)
        for _ in range(args.repeat):
            figures["explorer warm"].append(explorer(browser, sweep=False)[0])
            figures["dashboard first page"].append(dashboard(browser))
        browser.close()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; after: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f"; {os.cpu_count()} CPUs")
    for name, values in figures.items():
        value = sorted(values)[len(values) // 2]
        target = TARGETS_S[name]
        print(f"{name:>22}: {value:6.2f} s   target <= {target:g} s   ratio {value / target:5.2f}"
              + ("" if value <= target else "   MISSED"))
    print(f"{'whole sweep':>22}: {whole:6.2f} s   (the coarse pass and the fine pass inside its bracket; no target)")


if __name__ == "__main__":
    main()
