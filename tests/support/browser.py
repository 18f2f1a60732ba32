"""Debian's headless Chromium for the explorer's browser tests, and the waits they share on the explorer's page
(the plate image, the stats line under it)."""

from __future__ import annotations

#: Debian's Chromium and the flags every browser test launches it with (no sandbox in the container, no GPU,
#: nothing fetched in the background).
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
STATS = "#plate-stats [data-testid=markdown]"  # the text itself, without the progress timer around it


def plate_src(page) -> str:
    return page.locator("#view-plate img").first.get_attribute("src") or ""


def wait_for_plate(page, other_than: str = "") -> str:
    page.wait_for_function(
        "old => { const i = document.querySelector('#view-plate img'); return i && i.src && i.src !== old; }",
        arg=other_than, timeout=60_000)
    return plate_src(page)


def stats_text(page) -> str:
    return page.locator(STATS).inner_text().strip()


def wait_for_stats(page, other_than: str) -> str:
    """The stats line once it differs from ``other_than`` and no render is in progress."""
    page.wait_for_function(
        """old => { const s = document.querySelector('#plate-stats [data-testid=markdown]');
                    const busy = document.querySelector('#plate-stats [data-testid=status-tracker]:not(.hide)');
                    return s && !busy && s.innerText.trim() !== old; }""", arg=other_than, timeout=60_000)
    return stats_text(page)
