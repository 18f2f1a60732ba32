"""Every dashboard page at 1400×900 in Debian's headless Chromium, on the shipped results and on a run made here
with a long `--name`: each drawn chart's plot area (plotly's ``_fullLayout._size``, the area between the
margins) is at least `MIN_PLOT_PX` high and wide, its title (with any subtitle) and axis titles do not overlap,
a long category label is shortened on the axis with its full text in the hover, heatmap text is at least 11 px,
and every chart has its export buttons. Screenshots of every page land in the test's tmp_path (look at them)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from plates.charts.layout import LABEL_CHARS, LABEL_LINES
from plates.dashboard.app import PAGES
from tests.dashboard.test_app_browser import CHROMIUM, serve
from tests.dashboard.test_shipped_browser import DRAWN, SHIPPED

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]

MIN_PLOT_PX = 300
VIEWPORT = {"width": 1400, "height": 900}
#: JavaScript: per drawn chart (plotly graph div with traces, not an "empty" figure), its plot area, its title and
#: axis-title boxes (CSS px), its category tick labels as shown, and the export buttons after it.
MEASURE = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(p => p._fullLayout && p.data && p.data.length && !(p.layout.meta && p.layout.meta.empty))
  .map(p => {
    const box = el => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
    const titles = [...p.querySelectorAll('.infolayer > g[class^="g-"][class$="title"]')]
      .filter(g => g.getBoundingClientRect().width > 0).map(g => [g.getAttribute('class'), box(g)]);
    const ticks = [...p.querySelectorAll('.xtick text, .ytick text')].map(t => {
      const lines = [...t.querySelectorAll('tspan.line')].map(s => s.textContent);
      return lines.length ? lines : [t.textContent];
    });
    const categories = p.data.flatMap(d => [d.x, d.y].filter(Array.isArray).flat()).filter(v => typeof v === 'string');
    const cells = [...p.querySelectorAll('.heatmaplayer text')].map(t => parseFloat(getComputedStyle(t).fontSize));
    const chart = p.closest('[data-testid="stPlotlyChart"]') || p;
    let el = chart.closest('[data-testid="stElementContainer"], .element-container') || chart, exports = 0;
    for (let i = 0; i < 3 && el; i++) {  // the export buttons' row sits right after the chart
      el = el.nextElementSibling;
      if (el) exports += [...el.querySelectorAll('button')].filter(b => b.innerText.startsWith('Figure as')).length;
    }
    return {title: (p._fullLayout.title && p._fullLayout.title.text || '').slice(0, 60),
            w: p._fullLayout._size.w, h: p._fullLayout._size.h, titles, ticks, categories, cells, exports};
  })"""


def _overlaps(titles) -> list[tuple[str, str]]:
    """Pairs of title boxes that intersect by more than a pixel each way."""
    out = []
    for i, (a, (l1, t1, r1, b1)) in enumerate(titles):
        for b, (l2, t2, r2, b2) in titles[i + 1:]:
            if min(r1, r2) - max(l1, l2) > 1 and min(b1, b2) - max(t1, t2) > 1:
                out.append((a, b))
    return out


def settle(page, title: str, timeout_s: float = 240.0) -> None:
    """Open the page ``title`` from the navigation and wait until no spinner is left and what it shows (charts,
    tables, messages such as "no rows of this family") has stopped changing for two polls."""
    page.get_by_role("link", name=title, exact=True).click()
    page.wait_for_selector(f"h1:has-text('{title.split(' (')[0]}')", timeout=120_000)
    deadline, last = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:
        page.wait_for_timeout(1000)
        state = {**page.evaluate(DRAWN), "alerts": page.locator('[data-testid="stAlert"]').count()}
        busy = page.locator('[data-testid="stSpinner"]').count() > 0
        if not busy and state["drawn"] + state["tables"] + state["alerts"] > 0 and state == last:
            break
        last = state
    page.wait_for_timeout(1000)  # plotly's last traces


def walk(url: str, shots: Path) -> dict[str, list[dict]]:
    """Every page of the navigation at 1400×900: its charts' measures (`MEASURE`), a full-page screenshot each."""
    from playwright.sync_api import sync_playwright

    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(url, wait_until="domcontentloaded")
            page.wait_for_selector("text=Accuracy by model and condition", timeout=120_000)
            for _, title, _, _ in PAGES:
                settle(page, title)
                slug = "".join(c if c.isalnum() else "-" for c in title.lower())
                page.screenshot(path=str(shots / f"page-{slug}.png"), full_page=True)
                seen[title] = page.evaluate(MEASURE)
                plots = page.locator(".js-plotly-plot")
                for i in range(plots.count()):  # each chart whole (the page scrolls inside Streamlit's main area:
                    # a chart taller than the window is shot in a window as tall as it, the width unchanged)
                    tall = (plots.nth(i).bounding_box() or {}).get("height", 0)
                    if tall > VIEWPORT["height"] - 100:
                        page.set_viewport_size({**VIEWPORT, "height": int(tall) + 100})
                        page.wait_for_timeout(500)
                    plots.nth(i).screenshot(path=str(shots / f"chart-{slug}-{i}.png"))
                    page.set_viewport_size(VIEWPORT)
        finally:
            browser.close()
    return seen


def problems(seen: dict[str, list[dict]]) -> list[str]:
    out = []
    for title, charts in seen.items():
        for chart in charts:
            name = f"{title} / {chart['title']!r}"
            if chart["w"] < MIN_PLOT_PX or chart["h"] < MIN_PLOT_PX:
                out.append(f"{name}: plot area {chart['w']:.0f}×{chart['h']:.0f} px")
            for a, b in _overlaps(chart["titles"]):
                out.append(f"{name}: {a} overlaps {b}")
            # at most LABEL_LINES lines of LABEL_CHARS, or one turned line of as many characters in all
            long = [t for t in chart["ticks"] if len(t) > LABEL_LINES or sum(map(len, t)) > LABEL_CHARS * LABEL_LINES
                    or (len(t) > 1 and max(map(len, t)) > LABEL_CHARS)]
            if long:
                out.append(f"{name}: tick labels not shortened: {long[:3]}")
            if chart["cells"] and min(chart["cells"]) < 11:
                out.append(f"{name}: heatmap text {min(chart['cells'])} px")
            if chart["exports"] < 3:
                out.append(f"{name}: {chart['exports']} export buttons")
    return out


def test_every_page_is_legible_at_1400x900_on_the_shipped_results(tmp_path, monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", CHROMIUM)
    with serve(SHIPPED) as url:
        seen = walk(url, tmp_path)
    assert set(seen) == {t for _, t, _, _ in PAGES}
    assert sum(len(c) for c in seen.values()) >= len(PAGES)  # charts were measured, not skipped
    assert not problems(seen), "\n".join(problems(seen))


LONG_NAME = "my-own-model-under-test-with-a-long-descriptive-run-name"


def test_a_long_run_name_is_shortened_on_the_axes_and_whole_in_the_hover(tmp_path, monkeypatch):
    """A run made here (the bundled reader on 24 ColorBlindnessEval plates, named with a long `--name`) in a copy
    of the shipped results (the sidebar then shows the user's run alone): every page still meets the sizes, and
    the run's name is shortened on an axis, whole in the chart's data (what the hover shows)."""
    monkeypatch.setenv("BROWSER_PATH", CHROMIUM)
    results = tmp_path / "results"
    subprocess.run(["cp", "-r", str(SHIPPED), str(results)], check=True)
    done = subprocess.run([sys.executable, "-m", "plates.cli", "run", "--dataset", "colorblindnesseval", "--limit",
                           "24", "--prompt", "cbe-open", "--backend", "baseline", "--name", LONG_NAME, "--out",
                           str(results / "runs" / "mine"), "--no-progress"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    with serve(results) as url:
        seen = walk(url, tmp_path)
    assert not problems(seen), "\n".join(problems(seen))
    shortened = [c for charts in seen.values() for c in charts
                 if any(t[0].startswith(LONG_NAME[:12]) and "…" in t[-1] for t in c["ticks"])]
    assert shortened, "no axis shows the long run name shortened"
    assert all(any(str(v).startswith(LONG_NAME) for v in c["categories"]) for c in shortened)  # whole in the data
