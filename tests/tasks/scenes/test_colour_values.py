"""Colour codes and distractor colours (`plates.tasks.scenes.colour_values`), checked with colour-science."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from plates.tasks.scenes.colour_values import distractor_colours, format_code

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*Matplotlib.*")
    import colour


def _lab(rgb) -> np.ndarray:
    return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(np.asarray(rgb, dtype=float) / 255.0))


@pytest.mark.parametrize("delta_e", [0.5, 3.0, 20.0, 60.0])
def test_distractor_colours_sit_at_the_asked_difference(delta_e):
    rng = np.random.default_rng(7)
    made = 0
    for rgb in rng.integers(0, 256, (12, 3)):
        rgb = tuple(int(v) for v in rgb)
        try:
            colours = distractor_colours(rgb, delta_e, 3, np.random.default_rng(made), fmt="hex")
        except ValueError:  # a colour at the gamut's edge reaches delta_e in too few directions: refused
            continue
        made += 1
        lab = _lab(np.array([rgb, *colours]))
        de = colour.delta_E(lab[0], lab[1:], method="CIE 2000")
        assert np.all(np.abs(de - delta_e) <= 1.0), de
        apart = colour.delta_E(lab[1:, None], lab[None, 1:], method="CIE 2000")[np.triu_indices(3, 1)]
        assert np.all(apart >= delta_e / 2)
        assert len({format_code(c, "hex") for c in [rgb, *colours]}) == 4
    assert made >= 6
