"""The Resolution page against the pixels the model saw, in the real dashboard and a real Chromium (Debian's):
rows that record a view draw one line per model and family; a screenshot lands in the test's tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboard.test_app_browser import CHROMIUM, chromium_page, serve
from tests.support.dashboard_rows import concat, outcomes, write_part

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_resolution_by_pixels_seen_draws_each_model_and_family(tmp_path):
    results = tmp_path / "results"
    frames = []
    for model, family, (w, h), k in (("model-a", "llava-1.5", (336, 336), 6), ("model-a", "llava-1.5", (336, 336), 8),
                                     ("model-b", "qwen2-vl", (308, 308), 5), ("model-b", "qwen2-vl", (896, 896), 9)):
        size = 300 if k < 7 else 900
        frames.append(outcomes(model, k, 10, size=size, view_family=family, view_seen_width=w, view_seen_height=h,
                               view_tiles=1, view_cropped_fraction=0.0, view_figure_cut=False))
    write_part(results / "run-1" / "part-0.parquet", concat(*frames))
    with serve(results) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_selector("text=Accuracy by model and condition", timeout=60_000)
        page.get_by_role("link", name="Resolution").click()
        page.wait_for_selector("text=Pixels the model saw", timeout=30_000)
        page.get_by_text("pixels the model saw (its view)").click()
        page.wait_for_selector("text=Resolution as the model saw it", timeout=30_000)
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .scatterlayer .trace').length === 2",
                               timeout=30_000)
        legend = page.locator(".js-plotly-plot .legendtext").evaluate_all("els => els.map(e => e.textContent)")
        assert sorted(legend) == ["model-a · llava-1.5", "model-b · qwen2-vl"]
        page.screenshot(path=str(tmp_path / "dashboard-resolution-seen.png"), full_page=True)
        assert (tmp_path / "dashboard-resolution-seen.png").stat().st_size > 10_000
