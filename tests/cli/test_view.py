"""``plates view`` (plates/cli/view.py): the PNGs and view.json a family's view writes."""

from __future__ import annotations

import json

import numpy as np
from PIL import Image

from plates.cli import main
from plates.models.views import see


def _png(tmp_path, w=1200, h=700):
    rng = np.random.default_rng(0)
    path = tmp_path / "in.png"
    Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(path)
    return path


def test_one_image_family_writes_view_png(tmp_path, capsys):
    src = _png(tmp_path)
    assert main(["view", str(src), "--as", "llava-1.5", "--out", str(tmp_path / "o")]) == 0
    meta = json.loads((tmp_path / "o" / "view.json").read_text())
    assert meta["family"] == "llava-1.5" and meta["input_size"] == [1200, 700] and meta["seen_size"] == [336, 336]
    assert meta["tiles"] == 1 and abs(meta["cropped_fraction"] - 0.4167) < 0.005 and "CLIP" in meta["processor"]
    written = np.asarray(Image.open(tmp_path / "o" / "view.png"))
    assert np.array_equal(written, see(Image.open(src), "llava-1.5").images[0])
    assert "41.7% cropped" in capsys.readouterr().out


def test_tiling_family_writes_tiles_in_order(tmp_path):
    src = _png(tmp_path)
    assert main(["view", str(src), "--as", "internvl", "--out", str(tmp_path / "o")]) == 0
    meta = json.loads((tmp_path / "o" / "view.json").read_text())
    assert meta["tiles"] == 7 and meta["files"] == [f"view-{i:02d}.png" for i in range(7)]
    ours = see(Image.open(src), "internvl").images
    for i, name in enumerate(meta["files"]):
        assert np.array_equal(np.asarray(Image.open(tmp_path / "o" / name)), ours[i])
    assert not (tmp_path / "o" / "view.png").exists()


def test_unknown_family_is_refused_with_the_known_ones(tmp_path, capsys):
    src = _png(tmp_path, 64, 64)
    assert main(["view", str(src), "--as", "gpt-5", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "gpt-5" in err and "qwen2-vl" in err and not (tmp_path / "o").exists()


def test_refused_image_says_why(tmp_path, capsys):
    src = _png(tmp_path, 402, 2)
    assert main(["view", str(src), "--as", "qwen2-vl", "--out", str(tmp_path / "o")]) == 2
    assert "aspect ratio" in capsys.readouterr().err
