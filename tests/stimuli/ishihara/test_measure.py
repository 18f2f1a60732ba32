"""plates.stimuli.ishihara.measure: the ΔE2000 a plate draws, checked against its pixels.

Truth comes from the images, not the generator's bookkeeping: each dot's colour is the pixel at its centre in
the standard image, and its class is whether that pixel lies on the text in the ``mask`` image. Every
(foreground, background) pair is then compared by brute force."""

from __future__ import annotations

import numpy as np
import pytest

from plates import colour as C
from plates.stimuli.ishihara.measure import (
    EXACT_PAIRS,
    measure_dots,
    measure_plate,
    smallest_pair_delta_e,
    target_kind,
    target_smallest_pair,
)
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec, render


def pixel_truth(plate) -> tuple[np.ndarray, np.ndarray]:
    """(dot colours (n, 3) sRGB 0-255 read at each dot's centre pixel, is-foreground: the centre pixel lies on
    the text in the plate's ``mask`` image). Not the ``clear`` image: a jittered dot may be pure white, the
    canvas colour, and vanish from it."""
    row = np.minimum(plate.y.astype(int), plate.spec.size - 1)
    col = np.minimum(plate.x.astype(int), plate.spec.size - 1)
    colours = np.asarray(plate.image)[row, col]
    is_fg = np.asarray(plate.mask)[row, col] > 0
    return colours, is_fg


def all_pairs(colours: np.ndarray, is_fg: np.ndarray) -> np.ndarray:
    """CIEDE2000 of every (foreground dot, background dot) pair, by brute force."""
    fg = C.srgb255_to_lab(colours[is_fg].astype(float))
    bg = C.srgb255_to_lab(colours[~is_fg].astype(float))
    from plates.colour.spaces import colour_science

    return np.asarray(
        colour_science().delta_E(np.repeat(fg, len(bg), axis=0), np.tile(bg, (len(fg), 1)), method="CIE 2000")
    )


@pytest.fixture(scope="module")
def jittered():
    return render(
        PlateSpec(text="12", size=360, palette="huemanity-01", delta_e=2.0, seed=5, **HUEMANITY_JITTER)
    )


def test_jittered_plate_reports_the_pairs_on_its_pixels_not_the_nominal_two(jittered):
    colours, is_fg = pixel_truth(jittered)
    assert np.array_equal(is_fg, jittered.is_fg)  # the bookkeeping agrees with the pixels
    truth = all_pairs(colours, is_fg)
    drawn = jittered.stats.delta_e_drawn
    assert drawn.exact is False and drawn.pairs == truth.size
    assert (
        drawn.nominal == pytest.approx(2.0, abs=0.5) and drawn.target == 2.0 and drawn.target_kind == "pair"
    )
    assert drawn.min == pytest.approx(truth.min(), abs=1e-9)  # the smallest pair is found exactly
    for q, got in ((0.05, drawn.p05), (0.5, drawn.median), (0.95, drawn.p95)):
        assert got == pytest.approx(np.quantile(truth, q), abs=0.6)  # a 4,096-pair sample
    assert drawn.mean == pytest.approx(truth.mean(), abs=0.4)
    assert drawn.median > 8  # HueManity's jitter: nominal ΔE 2 is not what is drawn


@pytest.mark.parametrize("palette", ["colorblindnesseval-1", "colorblindnesseval-3", "colorblindnesseval-5"])
def test_unjittered_multi_colour_sets_are_exact_over_every_dot_pair(palette):
    plate = render(PlateSpec(text="7", size=300, palette=palette, delta_e=3.0, seed=2))
    colours, is_fg = pixel_truth(plate)
    truth = all_pairs(colours, is_fg)
    drawn = plate.stats.delta_e_drawn
    assert drawn.exact and drawn.target_kind == "foreground-mean"
    assert drawn.min == pytest.approx(truth.min(), abs=1e-9)
    for q, got in ((0.05, drawn.p05), (0.5, drawn.median), (0.95, drawn.p95)):
        assert got == pytest.approx(np.quantile(truth, q, method="inverted_cdf"), abs=1e-9)
    assert drawn.mean == pytest.approx(truth.mean(), abs=1e-9)


def test_colorblindnesseval_set_3_at_delta_e_3_draws_pairs_far_from_3():
    drawn = render(
        PlateSpec(text="7", size=300, palette="colorblindnesseval-3", delta_e=3.0, seed=2)
    ).stats.delta_e_drawn
    assert drawn.min > 3.5 and drawn.p95 > 15  # the request sets the foreground MEAN, never drawn


@pytest.mark.parametrize(
    ("palette", "delta_e"),
    [
        ("colorblindnesseval-1", 1.0),
        ("colorblindnesseval-3", 3.0),
        ("colorblindnesseval-4", 10.0),
        ("colorblindnesseval-2", 2.0),
    ],
)
def test_targeting_the_smallest_pair_puts_the_smallest_drawn_pair_at_the_request(palette, delta_e):
    spec = PlateSpec(text="7", size=300, palette=palette, seed=2)
    target = target_smallest_pair(spec, delta_e)
    assert target.delta_e is None and target_kind(target) == "none"
    assert smallest_pair_delta_e(*target.colours) == pytest.approx(delta_e, abs=0.5)
    colours, is_fg = pixel_truth(render(target))
    assert all_pairs(colours, is_fg).min() == pytest.approx(delta_e, abs=0.5)  # on the pixels


def test_targeting_the_smallest_pair_with_one_foreground_colour_is_the_plain_request():
    spec = PlateSpec(text="7", size=300, palette="huemanity-03", seed=2)
    assert target_smallest_pair(spec, 4.0) == spec.replace(delta_e=4.0)
    with pytest.raises(ValueError, match="allowed: a number > 0"):
        target_smallest_pair(spec, 0)


def test_an_unreachable_smallest_pair_names_the_largest_reachable_value():
    spec = PlateSpec(text="7", size=300, palette="colorblindnesseval-1", seed=2)
    with pytest.raises(ValueError, match=r"allowed: 0 < delta_e <= \d+\.\d\d"):
        target_smallest_pair(spec, 150.0)


def test_target_kind_says_what_the_request_sets():
    assert target_kind(PlateSpec(text="1", size=96, palette="huemanity-01")) == "none"
    assert target_kind(PlateSpec(text="1", size=96, palette="huemanity-01", delta_e=5.0)) == "pair"
    assert (
        target_kind(PlateSpec(text="1", size=96, palette="colorblindnesseval-2", delta_e=5.0))
        == "foreground-mean"
    )


def test_the_sample_is_seeded_by_the_spec_and_measure_plate_equals_the_stats(jittered):
    again = measure_plate(jittered)
    assert again == jittered.stats.delta_e_drawn  # byte-reproducible
    assert again.columns()["delta_e_drawn_median"] == again.median
    other = render(jittered.spec.replace(seed=6)).stats.delta_e_drawn
    assert other != again


def test_exact_weights_follow_dot_counts():
    colours = np.array([[200, 0, 0]] * 3 + [[0, 200, 0]] * 1 + [[0, 0, 200]] * 1)
    is_fg = np.array([True, True, True, False, False])
    drawn = measure_dots(colours, is_fg)
    assert drawn.exact and drawn.pairs == 6 and drawn.evaluated == 2
    de = all_pairs(colours.astype(np.uint8), is_fg)
    assert drawn.mean == pytest.approx(de.mean()) and drawn.min == pytest.approx(de.min())
    assert EXACT_PAIRS >= 4096


def test_bad_inputs_name_what_is_allowed():
    with pytest.raises(ValueError, match="at least one dot of each class"):
        measure_dots(np.zeros((3, 3)), np.ones(3, bool))
    with pytest.raises(ValueError, match=r"\(n, 3\) sRGB 0-255"):
        measure_dots(np.zeros((3, 4)), np.ones(3, bool))
    with pytest.raises(ValueError, match="sRGB 0-255"):
        measure_dots(np.full((2, 3), 300), np.array([True, False]))
    with pytest.raises(ValueError, match="allowed: none, pair, foreground-mean"):
        measure_dots(np.zeros((2, 3)), np.array([True, False]), target_kind="mean")
    with pytest.raises(ValueError, match="allowed: min, mean, max"):
        smallest_pair_delta_e([(0, 0, 0)], [(9, 9, 9)], reduce="median")


@pytest.mark.parametrize("preset", ["huemanity-numeric", "huemanity-numeric-dense"])
def test_the_manifest_reports_what_each_generated_plate_draws(tmp_path, preset):
    import pyarrow.parquet as pq
    from PIL import Image

    from plates.datasets import MANIFEST, generate, load_dataset

    # HueManity's own preset lets jitter clip dots to pure white, the canvas colour: pixel_truth
    # classifies dots by the text mask, so those count too
    generate(preset, tmp_path, limit=2, size=400, workers=1, progress=False)
    table = pq.read_table(tmp_path / MANIFEST).to_pandas()
    for item, row in zip(load_dataset(tmp_path), table.to_dict("records")):
        plate = render(item.spec)
        assert np.array_equal(
            np.asarray(Image.open(item.path).convert("RGB")), plate.pixels
        )  # the file drawn
        truth = all_pairs(*pixel_truth(plate))
        assert row["delta_e_drawn_min"] == pytest.approx(truth.min(), abs=1e-9)
        assert row["delta_e_drawn_median"] == pytest.approx(np.quantile(truth, 0.5), abs=0.8)
        assert row["delta_e_drawn_p05"] <= row["delta_e_drawn_median"] <= row["delta_e_drawn_p95"]
        assert row["delta_e_target_kind"] == target_kind(item.spec)
        assert (row["delta_e_target"] is None or np.isnan(row["delta_e_target"])) == (
            item.spec.delta_e is None
        )
        assert row["delta_e_drawn_p95"] > row["delta_e"]  # HueManity's jitter spreads the pairs


def test_a_plate_with_no_dot_of_one_class_reports_no_drawn_pairs():
    spec = PlateSpec(text="1", size=64, palette="huemanity-01", seed=0, min_radius=8.0, max_radius=8.0,
                     text_scale=0.1)
    plate = render(spec)  # six big dots, none on the tiny "1"
    assert not plate.is_fg.any() and plate.stats.delta_e_drawn is None and plate.stats.dot_count == 6
