"""`plates.stimuli.ishihara.jitter`: HueManity §3's per-dot jitter under the project's keep-hue rule and the
released generator's rule; float sRGB 0-255 in, uint8 sRGB 0-255 out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from plates.stimuli.ishihara.jitter import (
    EXTREME_HI,
    EXTREME_LO,
    HUEMANITY_JITTER,
    JITTER_RULES,
    huemanity_jitter,
    jitter,
)

N = 4000


def _colours(rgb, n=N):
    return np.tile(np.asarray(rgb, dtype=float), (n, 1))


def test_huemanity_jitter_scales_the_papers_ranges():
    assert huemanity_jitter(1) == HUEMANITY_JITTER
    assert HUEMANITY_JITTER["jitter_lightness"] == pytest.approx(math.log(1.5))
    assert huemanity_jitter(0) == {"jitter_shift": 0.0, "jitter_rgb": 0.0, "jitter_lightness": 0.0}
    assert huemanity_jitter(0.5)["jitter_rgb"] == pytest.approx(15.0)


@pytest.mark.parametrize("amount", [-0.1, 1.5, float("nan")])
def test_huemanity_jitter_refuses_amounts_outside_0_1(amount):
    with pytest.raises(ValueError, match=r"allowed: a number in \[0, 1\]"):
        huemanity_jitter(amount)


def test_an_unknown_rule_names_the_rules():
    with pytest.raises(ValueError, match="jitter rule 'x' is not known; allowed: keep-hue, released-code"):
        jitter(_colours((100, 100, 100), 2), _colours((0, 0, 0), 2), np.random.default_rng(0), shift=0, rgb=0,
               lightness=0, rule="x")
    assert JITTER_RULES == ("keep-hue", "released-code")


@pytest.mark.parametrize("rule", JITTER_RULES)
def test_no_jitter_leaves_every_dot_its_colour(rule):
    base = _colours((120, 60, 30), 10)
    out = jitter(base, _colours((10, 200, 10), 10), np.random.default_rng(1), shift=0.0, rgb=0.0, lightness=0.0,
                 rule=rule)
    assert out.dtype == np.uint8 and out.shape == (10, 3) and (out == [120, 60, 30]).all()


@pytest.mark.parametrize("rule", JITTER_RULES)
def test_same_rng_same_dots(rule):
    args = dict(shift=0.3, rgb=30.0, lightness=math.log(1.5), rule=rule)
    base, other = _colours((120, 60, 30), 50), _colours((10, 200, 10), 50)
    a = jitter(base, other, np.random.default_rng(7), **args)
    b = jitter(base, other, np.random.default_rng(7), **args)
    c = jitter(base, other, np.random.default_rng(8), **args)
    assert (a == b).all() and not (a == c).all()


def test_keep_hue_shift_moves_dots_towards_the_other_colour_only():
    base, other = _colours((200, 50, 50)), _colours((50, 50, 200))
    out = jitter(base, other, np.random.default_rng(2), shift=0.3, rgb=0.0, lightness=0.0).astype(int)
    assert (out[:, 0] <= 200).all() and (out[:, 0] >= 200 - 0.3 * 150 - 1).all()  # at most 0.3 of the way
    assert (out[:, 1] == 50).all() and (out[:, 0] + out[:, 2]).max() - (out[:, 0] + out[:, 2]).min() <= 2


def test_keep_hue_brightening_never_clips_and_stays_within_the_extremes():
    base = _colours((240, 120, 60))
    out = jitter(base, base, np.random.default_rng(3), shift=0.0, rgb=0.0, lightness=math.log(1.5)).astype(int)
    assert out.max() <= EXTREME_HI and out.min() >= EXTREME_LO
    ratio = out[:, 1] / out[:, 0]
    assert np.abs(ratio - 0.5).max() < 0.02  # the hue (channel ratios) kept


def test_allow_extremes_lets_channels_reach_0_and_255_and_a_palette_colour_keeps_its_own():
    base = _colours((20, 128, 235))
    kept = jitter(base, base, np.random.default_rng(4), shift=0.0, rgb=30.0, lightness=0.0).astype(int)
    assert kept.min() >= EXTREME_LO and kept.max() <= EXTREME_HI
    free = jitter(base, base, np.random.default_rng(4), shift=0.0, rgb=30.0, lightness=0.0,
                  allow_extremes=True).astype(int)
    assert free.min() < EXTREME_LO and free.max() > EXTREME_HI
    dark = jitter(_colours((2, 2, 2)), _colours((2, 2, 2)), np.random.default_rng(5), shift=0.0, rgb=0.0,
                  lightness=0.0)
    assert (dark == 2).all()  # already outside 8-247: not pushed in


def test_released_code_draws_integer_shifts_and_saturates_bright_dots():
    base = _colours((230, 230, 100))
    out = jitter(base, base, np.random.default_rng(6), shift=0.0, rgb=30.0, lightness=math.log(1.5),
                 rule="released-code", allow_extremes=True).astype(int)
    assert (out == 255).any(axis=1).mean() > 0.2  # clipped at 255: the hue changes (HueManity's plates: 26%)
    plain = jitter(base, base, np.random.default_rng(6), shift=0.0, rgb=30.0, lightness=0.0,
                   rule="released-code", allow_extremes=True).astype(int)
    assert (np.abs(plain - base.astype(int)) <= 30).all()  # integer shifts in [-30, 30], lightness 1
    assert set(np.unique(plain[:, 2])) == set(range(70, 131))  # every whole shift drawn, none between
