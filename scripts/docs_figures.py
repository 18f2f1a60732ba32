"""Make the documentation's figures (docs/img/) from the specs and the shipped results, never by hand.

    python3 scripts/docs_figures.py             # every figure
    python3 scripts/docs_figures.py --only plates

* ``plates.png``: ColorBlindnessEval colour set 1 (App. D) as a standard and a clear plate, and HueManity
  colour pair 6 (Table 7) with its jitter (§3): the plate and its text mask. Drawn from the presets' specs
  (`plates.datasets.presets.make_spec`), 256 px each, so the picture is the same on every machine.
* ``resolution.svg``, ``delta-e.svg``: the dashboard's Resolution and ΔE2000 pages
  (`plates.dashboard.pages`) over the shipped runs in ``results/runs`` (the bundled reader's runs,
  `scripts/make_shipped_results.sh`), exported through plotly's static export (`plates.charts.export`; the
  ``export`` extra, kaleido, driving the Chromium named by ``BROWSER_PATH``, ``/usr/bin/chromium`` by default).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
RESULTS = ROOT / "results" / "runs"
#: One tile's side in px; the picture is four tiles and three gaps wide.
TILE, GAP = 256, 8


def plates_picture() -> Image.Image:
    """Four tiles, sRGB 0-255 on white: CBE set 1 standard, CBE set 1 clear, HueManity pair 6, its text mask."""
    from plates.datasets.presets import make_spec
    from plates.stimuli.ishihara.plate import render

    cbe = render(make_spec("colorblindnesseval", "74", "colorblindnesseval-1", size=TILE, seed=0))
    hm = render(make_spec("huemanity-numeric", "29", "huemanity-06", size=TILE, seed=0))
    tiles = [cbe.image, cbe.clear, hm.image, hm.mask.convert("RGB")]
    sheet = Image.new("RGB", (len(tiles) * TILE + (len(tiles) - 1) * GAP, TILE), "white")
    for i, tile in enumerate(tiles):
        sheet.paste(tile, (i * (TILE + GAP), 0))
    return sheet


def results_figures() -> dict[str, bytes]:
    """The dashboard's Resolution and ΔE2000 pages over ``results/runs``, as SVG bytes by file name."""
    from plates.charts.export import figure_bytes
    from plates.dashboard import pages
    from plates.dashboard.views import View, open_results

    view = View(open_results(RESULTS))
    return {
        "resolution.svg": figure_bytes(pages.resolution(view).figure, "svg"),
        "delta-e.svg": figure_bytes(pages.delta_e(view).figure, "svg"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["plates", "results"], help="make one group of figures only")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "plates"):
        plates_picture().save(OUT / "plates.png", optimize=True)
        print(OUT / "plates.png")
    if args.only in (None, "results"):
        os.environ.setdefault("BROWSER_PATH", "/usr/bin/chromium")
        for name, data in results_figures().items():
            (OUT / name).write_bytes(data)
            print(OUT / name, len(data), "bytes")


if __name__ == "__main__":
    main()
