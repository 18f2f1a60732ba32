"""bench/bench_baseline.py's helpers: the foreign plates are seeded by variant name and index alone, and the
contact sheet of misses holds every tile with its caption."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_baseline  # noqa: E402  (bench/ is not a package)
import foreign_plates  # noqa: E402


def test_a_foreign_plate_depends_on_its_variant_and_index_only():
    names = list(foreign_plates.VARIANTS)
    image, label, space = bench_baseline.foreign_plate("alnum", 3)
    i = names.index("alnum")
    expected, expected_label = foreign_plates.make_plate(foreign_plates.VARIANTS["alnum"],
                                                         bench_baseline.FOREIGN_SEED + 10_000 * i + 3)
    assert label == expected_label and space == "huemanity-alnum"
    assert np.array_equal(np.asarray(image), np.asarray(expected))
    assert bench_baseline.foreign_plate("classic-800", 3)[2] == "cbe"
    assert bench_baseline.foreign_plate("alnum", 4)[1] != label or not np.array_equal(
        np.asarray(bench_baseline.foreign_plate("alnum", 4)[0]), np.asarray(image))


def test_the_contact_sheet_lays_out_every_tile_with_its_caption(tmp_path):
    tiles = [(Image.new("RGB", (50, 50), (255, 0, 0)), f"plate {i}: 12 -> 13") for i in range(7)]
    path = bench_baseline.contact_sheet(tiles, tmp_path / "sub" / "misses.png", side=40, columns=3)
    sheet = np.asarray(Image.open(path))
    assert sheet.shape == (3 * 64, 3 * 40, 3)
    assert tuple(sheet[20, 20]) == (255, 0, 0) and tuple(sheet[64 * 2 + 20, 20]) == (255, 0, 0)
    assert tuple(sheet[64 * 2 + 20, 60]) == (255, 255, 255)  # row 3 holds one tile only
    assert (sheet[40:64, :40] < 128).any()  # a caption is drawn under the first tile
