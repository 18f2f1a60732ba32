"""The reader's training plates: the figure changes and scenes that widen the mix are what they say."""

from __future__ import annotations

import numpy as np
import pytest

from plates.reader import data
from plates.stimuli.ishihara.plate import PlateSpec, render


@pytest.fixture(scope="module")
def spec():
    return PlateSpec(text="48", size=300, seed=4_300_000, palette="huemanity-03")


def test_outline_keeps_only_the_edges_of_each_stroke(spec):
    full = data.figure_mask(spec, None)
    ring = data.figure_mask(spec, ("outline", 3))
    assert ring.any() and not (ring & ~full).any()  # inside the strokes
    assert 0.1 < ring.sum() / full.sum() < 0.9  # the strokes' middles are gone


def test_rim_is_a_hollow_figure_drawn_around_the_strokes(spec):
    """A ring from 1 px inside each stroke's edge to k px outside it: the strokes' middles empty, the ring reaching
    k px beyond the glyph (where "outline" stays inside it), nothing farther out."""
    from scipy import ndimage

    full = data.figure_mask(spec, None)
    rim = data.figure_mask(spec, ("rim", 4))
    outside = ndimage.distance_transform_edt(~full)
    assert rim[(outside > 3) & (outside <= 4)].all() and not rim[outside > 4.5].any()
    assert not rim[ndimage.distance_transform_edt(full) > 1.5].any()  # hollow: only 1 px kept inside the edge
    assert rim[full].any()


def test_rim_share_changes_only_the_figure_of_free_plates():
    """rim 0 is the mix without rims, seed for seed; at 1 every free plate's figure is a rim whose width lies in
    RIM_WIDTH of its side, drawn in dots no wider than the ring; paper plates and every other choice of the seed
    stay as they were."""
    kinds = set()
    for i in range(60):
        seed = data.TRAIN_SEED_BASE + i
        base = data.sample_plate(seed, 300, extra_fonts=0.5)
        assert data.sample_plate(seed, 300, extra_fonts=0.5, rim=0.0) == base
        rimmed = data.sample_plate(seed, 300, extra_fonts=0.5, rim=1.0)
        assert rimmed[1:3] == base[1:3] and rimmed[4] == base[4]
        if base[1].endswith("-free"):
            kind, width = rimmed[3]
            assert kind == "rim" and 300 * data.RIM_WIDTH[0] - 1 <= width <= 300 * data.RIM_WIDTH[1] + 1
            spec = rimmed[0]
            assert 2 * spec.max_radius <= width + 1 and spec.min_radius <= spec.max_radius
            assert spec.replace(min_radius=base[0].min_radius, max_radius=base[0].max_radius,
                                gap=base[0].gap) == base[0]
            kinds.add(None if base[3] is None else base[3][0])
        else:
            assert rimmed == base
    assert len(kinds) >= 3  # replaces whatever change (or none) the seed drew


def test_stretch_scales_the_glyphs_width_within_the_disc_and_keeps_them_centred(spec):
    """Width x factor, but never wider than 80% of the plate (the figure stays on the disc)."""
    for s in (spec, spec.replace(text="7")):
        full = data.figure_mask(s, None)
        for factor in (0.6, 1.4):
            out = data.figure_mask(s, ("stretch", factor))
            w0, w1 = np.ptp(np.nonzero(full)[1]) + 1, np.ptp(np.nonzero(out)[1]) + 1
            assert abs(w1 - min(w0 * factor, 0.8 * s.size)) <= 2
            assert abs(np.nonzero(out)[1].mean() - s.size / 2) < 0.08 * s.size


def test_a_page_scene_sets_the_disc_in_a_larger_image_and_square_cuts_the_edge_away(spec):
    image = render(spec).image
    page = data.place(image, ("page", 0.7, "rectangles"), spec.canvas, seed=1)
    assert page.width == round(300 / 0.7)
    o = (page.width - 300) // 2
    assert np.array_equal(np.asarray(page)[o + 150, o + 150], np.asarray(image)[150, 150])
    square = data.place(image, ("square", 0.0, ""), spec.canvas, seed=1)
    assert square.size == (216, 216)
    assert data.place(image, None, spec.canvas, seed=1) is image


def test_unknown_mask_changes_are_refused(spec):
    with pytest.raises(ValueError, match="allowed"):
        data.figure_mask(spec, ("smear", 2))


def test_shear_slants_the_figure_about_its_centre_row(spec):
    full = data.figure_mask(spec, None)
    slanted = data.figure_mask(spec, ("shear", 0.3))
    rows = np.nonzero(full.any(axis=1))[0]
    top, bottom = rows[len(rows) // 8], rows[-len(rows) // 8]
    shift = [np.nonzero(slanted[r])[0].mean() - np.nonzero(full[r])[0].mean() for r in (top, bottom)]
    c = (spec.size - 1) / 2
    assert shift[0] == pytest.approx(-0.3 * (top - c), abs=4)  # x moves by -f (y - centre): tops lean right
    assert shift[1] == pytest.approx(-0.3 * (bottom - c), abs=4)
    assert abs(slanted.sum() / full.sum() - 1) < 0.05  # a shear keeps the area


def test_warp_moves_the_strokes_smoothly_and_by_at_most_its_amplitude(spec):
    full = data.figure_mask(spec, None)
    warped = data.figure_mask(spec, ("warp", 0.03))
    assert warped.any() and not np.array_equal(warped, full)
    assert abs(warped.sum() / full.sum() - 1) < 0.25
    from scipy import ndimage

    # every warped pixel lies within the amplitude (3% of the side) of the original figure
    assert ndimage.distance_transform_edt(~full)[warped].max() <= 0.03 * spec.size + 1.5
    assert np.array_equal(warped, data.figure_mask(spec, ("warp", 0.03)))  # seeded by the plate


@pytest.mark.parametrize("size", [192, 300, 512])
def test_the_warp_field_is_scipys_cubic_zoom_of_the_grid(size):
    """The field enlarged as E @ G @ E.T is what ``ndimage.zoom(order=3)`` computes point by point (the training
    plates did not change when the matrix form replaced it)."""
    from scipy import ndimage

    grid = np.random.default_rng(size).normal(0.0, 1.0, (2, data.WARP_GRID, data.WARP_GRID))
    enlarge = data.enlarge_matrix(size)
    expected = ndimage.zoom(grid, (1, size / data.WARP_GRID, size / data.WARP_GRID), order=3)
    assert expected.shape == (2, size, size)
    np.testing.assert_allclose(enlarge @ grid @ enlarge.T, expected, rtol=0, atol=1e-12)


def test_chained_changes_apply_in_order(spec):
    chained = data.figure_mask(spec, (("shear", 0.2), ("outline", 3)))
    sheared = data.figure_mask(spec, ("shear", 0.2))
    assert chained.any() and not (chained & ~sheared).any()  # the outline of the sheared figure
    blocky = data.figure_mask(spec, (("bitmap", 60), ("warp", 0.02)))
    assert blocky.any()


def test_training_examples_cover_the_new_changes_and_scenes():
    """Over 400 seeds every mask change and scene kind occurs (the mix is what the recipe says)."""
    changes, scenes = set(), set()
    for i in range(400):
        _spec, _group, _variant, change, scene = data.sample_plate(data.TRAIN_SEED_BASE + i, render_size=96)
        steps = () if change is None else change if isinstance(change[0], tuple) else (change,)
        changes.update(step[0] for step in steps)
        if not steps:
            changes.add(None)
        scenes.add(scene[0] if scene else None)
    assert changes == {None, *data.MASK_CHANGES}
    assert scenes == {None, "page", "square"}


def test_extra_fonts_change_only_the_font_of_free_plates():
    """extra_fonts 0 is the mix without extra faces, seed for seed; at 1 every free plate takes one of the reader's extra
    faces and every paper plate keeps its paper's font; each extra face draws every symbol a plate can show."""
    from plates.reader.coding import SYMBOLS
    from plates.stimuli.ishihara.glyphs import check_text

    assert len(data.EXTRA_FONTS) >= 10
    for path in data.EXTRA_FONTS:
        check_text("".join(SYMBOLS), path)
    seen = set()
    for i in range(60):
        seed = data.TRAIN_SEED_BASE + i
        base, group, *rest = data.sample_plate(seed, render_size=96)
        assert data.sample_plate(seed, 96, extra_fonts=0.0)[0] == base
        extra, group2, *rest2 = data.sample_plate(seed, 96, extra_fonts=1.0)
        assert (group2, rest2) == (group, rest)
        if group.endswith("-free"):
            assert extra.font in data.EXTRA_FONTS and extra.replace(font=base.font) == base
            seen.add(extra.font)
        else:
            assert extra == base
    assert len(seen) >= 5


def test_a_glyph_card_is_its_text_alone_preprocessed_as_a_plate_is():
    """A card: the label's classes, the network's input shape, the same card for the same seed, and the figure
    (the minority colour, oriented positive by normalise) where the text is: brighter inside the text's box."""
    from plates.reader.coding import CLASSES

    x, y, group = data.glyph_card(7, 64, extra_fonts=0.8, rim=0.0)
    assert group == "card" and x.shape == (3, 64, 64) and x.dtype == np.float32
    text = "".join(CLASSES[c] for c in y).strip()
    assert text and all(c in CLASSES for c in text)
    again, y2, _ = data.glyph_card(7, 64, extra_fonts=0.8, rim=0.0)
    assert np.array_equal(x, again) and np.array_equal(y, y2)
    assert not np.array_equal(x, data.glyph_card(8, 64, extra_fonts=0.8, rim=0.0)[0])
    # the text sits in the middle (text scale 0.5-0.68 of the side): the figure channel is higher there
    middle, edge = x[0, 24:40, 12:52].mean(), np.concatenate([x[0, 8:14, 20:44].ravel(), x[0, 50:56, 20:44].ravel()])
    assert middle > edge.mean() + 0.3
    assert data.glyph_card(7, 96)[0].shape == (3, 96, 96)
    rgb = data.glyph_card(7, 64, extra_fonts=0.8, rim=0.0, mode="rgb")[0]  # the "rgb" mode reads scaled sRGB
    assert rgb.shape == (3, 64, 64) and -2.1 <= rgb.min() and rgb.max() <= 2.1 and not np.array_equal(rgb, x)
    with pytest.raises(ValueError, match="preprocessing mode"):
        data.glyph_card(7, 64, mode="lab")


def test_glyph_cards_draw_the_free_plates_labels_fonts_and_changes():
    from plates.reader.coding import CLASSES

    texts = ["".join(CLASSES[c] for c in data.glyph_card(s, 64, 0.8, 0.35)[1]).strip() for s in range(60)]
    assert any(len(t) == 2 and t.isdigit() for t in texts)  # numbers
    assert any(any(c.isalpha() for c in t) for t in texts)  # and alphanumerics
    assert len(set(texts)) > 40
