"""The real dashboard in a real browser: `plates dashboard PATH --port P` in a subprocess, opened by
Playwright with Debian's headless Chromium; a plotly chart must render, and a screenshot lands in the
test's tmp_path. Every check waits for the very thing it asserts on (plotly draws its bars a moment after the
page's text appears), so the test does not race the browser."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.dashboard_rows import concat, outcomes, write_part

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dashboard(tmp_path):
    """`plates dashboard` on a folder of two runs; yields its URL; stops the process it started."""
    results = tmp_path / "results"
    write_part(
        results / "run-1" / "part-0.parquet",
        concat(
            outcomes("model-a", 7, 10, colour_set="colorblindnesseval-1"),
            outcomes("model-b", 5, 10, colour_set="colorblindnesseval-1"),
            outcomes("model-b", 3, 10, colour_set="colorblindnesseval-3", grayscale=True),
        ),
    )
    port = free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "plates.cli", "dashboard", str(results), "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"dashboard did not start: {proc.stdout.read() if proc.poll() is not None else 'timeout'}"
                )
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (scripts/test.sh installs it)"
)
def test_the_running_dashboard_renders_a_plotly_chart(dashboard, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.goto(f"{dashboard}/?model=model-a&model=model-b", wait_until="domcontentloaded")
            page.wait_for_selector("text=Accuracy by model and condition", timeout=60_000)
            # the heatmap's cells are drawn (an image layer or heatmap layer inside the plot), not only its axes
            page.wait_for_function(
                "document.querySelectorAll('.js-plotly-plot .heatmaplayer image, .js-plotly-plot .hm image')"
                ".length >= 1", timeout=30_000)
            assert "model=model-a" in page.url  # the filters stayed in the shareable URL
            page.wait_for_function(  # plotly's transition finished: every cell's text is in the DOM
                "document.querySelectorAll('.js-plotly-plot .heatmaplayer .textpoint, .js-plotly-plot text')"
                ".length > 4", timeout=30_000)
            shot = tmp_path / "dashboard-overview.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            # another page through the sidebar: the filter follows in the URL and its bars are drawn
            page.get_by_role("link", name="Colour sets").click()
            page.wait_for_selector("text=Accuracy per colour set", timeout=30_000)
            page.wait_for_function("location.search.includes('model=model-a')", timeout=30_000)
            # one bar per model in the condition shown (original @900px): wait until plotly has drawn both
            page.wait_for_function(
                "document.querySelectorAll('.js-plotly-plot .barlayer .point').length === 2", timeout=30_000)
            assert page.locator(".js-plotly-plot .barlayer .point").count() == 2
            assert page.locator("text=also in these results").count() >= 1  # the grayscale one is named
            page.screenshot(path=str(tmp_path / "dashboard-colour-sets.png"), full_page=True)
        finally:
            browser.close()
