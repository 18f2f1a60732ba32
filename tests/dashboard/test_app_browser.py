"""The real dashboard in a real browser: `plates dashboard PATH --port P` in a subprocess, opened by
Playwright with Debian's headless Chromium; a plotly chart must render, and a screenshot lands in the
test's tmp_path. Every check waits for the very thing it asserts on (plotly draws its bars a moment after the
page's text appears), so the test does not race the browser."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
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


@contextlib.contextmanager
def serve(results: Path, address: str = "127.0.0.1"):
    """`plates dashboard RESULTS --port P --address ADDRESS` in a subprocess; yields its URL once healthy;
    stops the process it started."""
    port = free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "plates.cli", "dashboard", str(results), "--port", str(port), "--address", address],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://{address}:{port}"
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


@contextlib.contextmanager
def chromium_page():
    """A page of Debian's headless Chromium (closed on exit)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield browser.new_page(viewport={"width": 1500, "height": 1100})
        finally:
            browser.close()


@pytest.fixture
def dashboard(tmp_path):
    """`plates dashboard` on a folder of two runs; yields its URL."""
    results = tmp_path / "results"
    write_part(
        results / "run-1" / "part-0.parquet",
        concat(
            outcomes("model-a", 7, 10, colour_set="colorblindnesseval-1"),
            outcomes("model-b", 5, 10, colour_set="colorblindnesseval-1"),
            outcomes("model-b", 3, 10, colour_set="colorblindnesseval-3", grayscale=True),
        ),
    )
    with serve(results) as url:
        yield url


@pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (scripts/test.sh installs it)"
)
def test_the_running_dashboard_renders_a_plotly_chart(dashboard, tmp_path):
    with chromium_page() as page:
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


@pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (scripts/test.sh installs it)"
)
def test_a_crafted_upload_is_refused_by_name_in_a_real_browser(tmp_path):
    """A small file of a million rows of one dictionary-encoded 1,000-character reply (it took the People page
    from 400 MB to 1.9 GB), uploaded through the page's own file picker to a dashboard served to other
    machines (bound to 127.0.0.2: loopback, but not an address `views.is_local` trusts): refused before it
    loads, named as the visitor named it, and no absolute server path on the page."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    results = tmp_path / "results"
    write_part(results / "run-1" / "part-0.parquet", outcomes("model-a", 7, 10))
    n, crafted = 1_000_000, tmp_path / "picked" / "crafted.parquet"
    crafted.parent.mkdir()
    pq.write_table(pa.table({"reply": pa.DictionaryArray.from_arrays(pa.array([0] * n, pa.int32()),
                                                                     pa.array(["x" * 1000])),
                             "model": pa.array(["m"] * n)}), crafted, compression="zstd")
    assert crafted.stat().st_size < 1_000_000  # small on disk; a gigabyte of text once decoded
    with serve(results, "127.0.0.2") as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("text=Accuracy by model and condition", timeout=60_000)
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(crafted))
        refusal = page.locator('[data-testid="stAlertContentError"]', has_text="crafted.parquet")
        refusal.wait_for(timeout=60_000)
        assert "more than 20,000 rows ('crafted.parquet' brings them to 1,000,000)" in refusal.inner_text()
        shot = tmp_path / "dashboard-crafted-upload.png"
        page.screenshot(path=str(shot), full_page=True)
        shown = page.inner_text("body")
        boxes = page.locator("input").evaluate_all("els => els.map(e => e.value)")  # text boxes' values too
        assert "." in boxes  # the path box starts at the served folder, by a name that tells nothing
        for server_path in (str(tmp_path), tempfile.gettempdir() + "/", str(Path.home())):
            assert server_path not in shown and not any(server_path in box for box in boxes)
        assert page.locator(".js-plotly-plot").count() == 0  # nothing of the crafted file was drawn
