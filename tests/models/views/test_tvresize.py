"""Torch's antialiased uint8 resize in numpy (`plates.models.views.tvresize`): bit for bit against torchvision's
stored outputs, against Pillow's float kernel within a level, the fixed-point weights, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from plates.models.views.tvresize import TV_FILTERS, axis_weights, resize_uint8
from tests.support import ROOT

DATA = ROOT / "tests" / "data" / "views-fast"
PIL_FILTERS = {
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos": Image.Resampling.LANCZOS,
}


def test_resize_is_torchvisions_bit_for_bit_on_noise():
    """Every level, overshoot and clipping: torchvision 0.29's antialiased uint8 resize of seeded noise, up and
    down, per filter (``resize.npz``, made on CPU with torch's AVX2 kernels)."""
    with np.load(DATA / "resize.npz") as npz:
        noise = npz["noise"]
        keys = [k for k in npz.files if k != "noise"]
        assert len(keys) == 15
        for key in keys:
            name, size = key.split("|")
            w, h = (int(v) for v in size.split("x"))
            ours = resize_uint8(noise, (w, h), name)
            assert ours.shape == npz[key].shape and (ours == npz[key]).all(), key


def test_resize_keeps_a_flat_image_flat_and_skips_unchanged_axes():
    flat = np.full((50, 80, 3), 137, np.uint8)
    for name in ("bilinear", "bicubic", "lanczos"):
        assert (resize_uint8(flat, (33, 71), name) == 137).all()
    rng = np.random.default_rng(1)
    noise = rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)
    assert (resize_uint8(noise, (60, 40), "bicubic") == noise).all()
    assert (
        resize_uint8(noise, (60, 17), "bicubic")[:, :, 0]
        != resize_uint8(noise, (61, 17), "bicubic")[:, :60, 0]
    ).any()


def test_weights_are_int16_fixed_point_summing_to_one():
    for n_in, n_out in ((1200, 336), (97, 1456), (517, 448)):
        index, weight, precision = axis_weights(n_in, n_out, "bicubic")
        assert np.abs(weight).max() < 2**15 and 12 <= precision <= 22
        assert np.all(np.abs(weight.sum(axis=1) - 2**precision) <= weight.shape[1])
        assert index.min() >= 0 and index.max() < n_in


@pytest.mark.parametrize("bad", [{"name": "hamming"}, {"size": (0, 4)}])
def test_bad_input_is_refused_with_what_is_allowed(bad):
    img = np.zeros((4, 4, 3), np.uint8)
    with pytest.raises(ValueError, match="allowed"):
        resize_uint8(img, bad.get("size", (2, 2)), bad.get("name", "bicubic"))


@pytest.mark.parametrize("name", sorted(TV_FILTERS))
@pytest.mark.parametrize("size", [(37, 50), (160, 50), (80, 23), (37, 23), (160, 90)])
def test_resize_is_pillows_filter_within_a_level_per_pass(name, size):
    """Same filter, support and box rounding as Pillow; only the weights' fixed-point precision differs (14-17
    bits here against Pillow's 22), so a sum near a half level lands one level apart. One axis resampled: at most
    one level. Both axes: the first pass's level passes through the second filter (Lanczos' lobes amplify it), so
    at most two."""
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (50, 80, 3), dtype=np.uint8)
    ours = resize_uint8(img, size, name).astype(int)
    pillow = np.asarray(Image.fromarray(img).resize(size, PIL_FILTERS[name])).astype(int)
    passes = (size[0] != 80) + (size[1] != 50)
    assert ours.shape == pillow.shape
    assert np.abs(ours - pillow).max() <= passes
    assert (ours == pillow).mean() > 0.9
