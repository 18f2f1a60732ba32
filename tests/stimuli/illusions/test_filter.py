"""rcid-filter (`plates.stimuli.illusions.filter`): the cast half, the targets' originals, the Mondrian's
palette rule, measured on the drawing and the rendered image."""

from __future__ import annotations

import numpy as np
import pytest

from plates import colour as C
from plates.stimuli.illusions import IllusionSpec, render
from plates.stimuli.illusions.colours import CAST_ALPHA, cast, rgb8, uncast
from plates.stimuli.illusions.filter import SCENE_PALETTE, draw_filter
from plates.stimuli.illusions.naming import colour_name
from plates.stimuli.illusions.render import canonical_job


def _de(a, b) -> float:
    return float(C.delta_e2000(np.asarray(a, dtype=float), np.asarray(b, dtype=float)))


def test_filter_cast_leaves_no_pixel_of_the_original_colour_in_its_half():
    """RCID §3.2: under the filter no pixel stays in the original colour's range."""
    stim = render(IllusionSpec("rcid-filter", seed=3))
    names = stim.truth["colour_names"]
    assert names["A"]["pixel"] == "grey" and names["A"]["perceived"] == "red"
    assert names["B"]["pixel"] == names["B"]["perceived"] == "grey"
    px = np.asarray(stim.image)
    half = px[:, : stim.spec.size // 2].reshape(-1, 3)
    distinct = np.unique(half, axis=0)
    assert all(colour_name(c) != "red" for c in distinct)
    right = np.unique(px[:, stim.spec.size // 2 :].reshape(-1, 3), axis=0)
    cast = np.asarray(stim.stats["cast_srgb"])
    assert np.mean([_de(c, cast) for c in distinct]) < np.mean([_de(c, cast) for c in right])


def test_the_left_target_original_is_the_inverse_blend_of_its_pixels():
    spec = IllusionSpec("rcid-filter", size=128, seed=2)
    job = canonical_job(spec)
    d = draw_filter(job)
    cast_rgb = rgb8(spec.resolved_inducers[0])
    alpha = CAST_ALPHA * spec.strength
    original = d.per_target["left"]["original_srgb"]
    assert np.allclose(cast(np.asarray(original, dtype=float), cast_rgb, alpha), job.left, atol=1.0)
    assert original == np.clip(np.rint(uncast(np.asarray(job.left, float), cast_rgb, alpha)), 0, 255).tolist()
    assert d.per_target["right"]["original_srgb"] == list(job.right)  # the uncast half: pixels are the original
    assert d.per_target["left"]["original_name"] == colour_name(original)
    assert d.stats["cast_alpha"] == pytest.approx(alpha, abs=1e-4) and d.stats["cast_srgb"] == cast_rgb.tolist()
    assert d.lighter is None  # a colour-constancy scene makes no lightness prediction


def test_cast_pixels_are_the_palette_blended_and_the_right_half_is_unblended():
    spec = IllusionSpec("rcid-filter", size=128, seed=5)
    d = draw_filter(canonical_job(spec))
    cast_rgb = rgb8(spec.resolved_inducers[0])
    alpha = CAST_ALPHA * spec.strength
    palette = np.asarray(SCENE_PALETTE + ((20, 20, 20),), dtype=np.uint8)
    blended = cast(palette, cast_rgb, alpha)
    left = {tuple(c) for c in np.unique(d.pixels[d.context_left], axis=0)}
    right = {tuple(c) for c in np.unique(d.pixels[d.context_right], axis=0)}
    assert left <= {tuple(c) for c in blended} and right <= {tuple(c) for c in palette}
    assert len(right) >= 4  # a Mondrian, not a flat field
    assert not (d.context_left & d.left).any() and d.context_left[:, 64:].sum() == 0
    de = [_de(p, b) for p, b in zip(palette, blended, strict=True)]
    assert min(de) <= d.stats["cast_delta_e2000_mean"] <= max(de)


def test_scene_colours_near_a_target_or_its_original_are_left_out():
    spec = IllusionSpec("rcid-filter", size=128, seed=1)
    d = draw_filter(canonical_job(spec))
    targets = [d.per_target["left"]["original_srgb"], list(canonical_job(spec).right)]
    right_scene = np.unique(d.pixels[d.context_right], axis=0)
    for colour in right_scene:
        if tuple(colour) != (20, 20, 20):  # the disc outlines
            assert min(_de(colour, t) for t in targets) >= 15.0


def test_the_mondrian_and_discs_follow_the_seed():
    a, b, c = (draw_filter(canonical_job(IllusionSpec("rcid-filter", size=96, seed=s))) for s in (7, 7, 8))
    assert np.array_equal(a.pixels, b.pixels) and not np.array_equal(a.pixels, c.pixels)
    assert np.array_equal(a.left, c.left) and np.array_equal(a.right, a.left[:, ::-1])  # discs stay put
    ys, xs = np.nonzero(a.left)
    assert abs(xs.mean() + 0.5 - 24) < 0.5 and abs(ys.mean() + 0.5 - 48) < 0.5
    assert a.left.sum() == pytest.approx(np.pi * (0.14 * 96) ** 2, rel=0.05)
