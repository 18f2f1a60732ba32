"""How long a figure download takes, measured as a person meets it: `plates dashboard results` (the shipped runs)
in a real headless Chromium (Debian's) at 1400×900, every page of the navigation opened, and on each page every
chart's "Figure as SVG / PDF / PNG" button clicked, timed from the click until the browser holds the file.

Figures, against the target of 2 s an export (ratio <= 1 meets it):

* the first export of the server (the export's own Chromium may still be starting: the dashboard warms it in a
  background thread from its first page, `plates.charts.export.warm`), stated apart;
* every later export, per page, chart and format, then per format the median and the largest.

The machine may be shared: the figures are wall-clock; the load average is printed beside them. Nothing is
downloaded from outside; the dashboard binds 127.0.0.1 on a free port.

    python3 bench/bench_exports.py [--pages "Overview,Illusions"]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from plates.charts.export import FORMATS  # noqa: E402 - after the checkout is on the path
from plates.dashboard.app import PAGES  # noqa: E402
from tests.dashboard.test_app_browser import CHROMIUM, serve  # noqa: E402
from tests.dashboard.test_shipped_browser import wait_for_page  # noqa: E402

TARGET_S = 2.0
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def export_once(page, button, out: Path) -> float:
    """Seconds from the click on ``button`` until its download is saved."""
    started = time.perf_counter()
    with page.expect_download(timeout=120_000) as download:
        button.click()
    download.value.save_as(out)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", default="", help="comma-separated page titles (default: every page)")
    args = parser.parse_args()
    chosen = [t for _, t, _, _ in PAGES if not args.pages or t in args.pages.split(",")]
    os.environ.setdefault("BROWSER_PATH", CHROMIUM)  # the export's Chromium (plates.charts.export)
    from playwright.sync_api import sync_playwright

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; target {TARGET_S:g} s an export")
    times: dict[str, list[float]] = {fmt: [] for fmt in FORMATS}
    first = None
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"plates-bench-exports-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    with serve(ROOT / "results") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("text=Accuracy by model and condition", timeout=120_000)
        for title in chosen:
            wait_for_page(page, title)
            for fmt in FORMATS:
                buttons = page.get_by_role("button", name=f"Figure as {fmt.upper()}")
                for i in range(buttons.count()):
                    seconds = export_once(page, buttons.nth(i), work / f"export.{fmt}")
                    if first is None:
                        first = (title, fmt, seconds)
                        print(f"first export ({title}, chart {i + 1}, {fmt}): {seconds:.2f} s "
                              f"(ratio {seconds / TARGET_S:.2f}; not counted below)")
                        continue
                    times[fmt].append(seconds)
                    print(f"{title:28s} chart {i + 1} {fmt}: {seconds:5.2f} s (ratio {seconds / TARGET_S:.2f})")
        browser.close()
    print(f"load average {os.getloadavg()[0]:.1f} after the exports")
    for fmt, values in times.items():
        if values:
            print(f"{fmt}: {len(values)} exports after the first, median {statistics.median(values):.2f} s, "
                  f"largest {max(values):.2f} s (target {TARGET_S:g} s: ratio {max(values) / TARGET_S:.2f})")


if __name__ == "__main__":
    main()
