"""Letter marks on targets (Adelson's checker-shadow figure letters its two checks A and B)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from plates.stimuli.illusions import IllusionSpec, render


@pytest.mark.parametrize(("layout", "swap"), [("left-right", False), ("up-down", True)])
@pytest.mark.parametrize("strength", [0.0, 1.0])
def test_checker_shadow_targets_carry_the_letters_a_and_b(strength, layout, swap):
    """Adelson's figure letters its two checks: otherwise no one can tell which of the equal checks are meant."""
    stim = render(IllusionSpec("checker-shadow", size=256, strength=strength, layout=layout, swap=swap))
    px = np.asarray(stim.image)
    inks = {}
    for name, mask in stim.masks.items():
        box = ndimage.find_objects(mask.astype(np.uint8))[0]  # the check: its mask's bounding box
        ink = np.all(px[box] == 0, axis=-1)
        assert np.array_equal(ink, ~mask[box])  # inside the check, what is not the target is the letter
        assert 20 < ink.sum() < 0.3 * ink.size, name
        inks[name] = ink
    # two different letters, each upright: A's ink is wider at the bottom than at the top, B's is not narrower
    for name, ink in inks.items():
        rows = np.flatnonzero(ink.any(axis=1))
        top, bottom = ink[rows[0] + 1].sum(), ink[rows[-1] - 1].sum()
        assert (bottom > top) if name == "A" else (bottom >= top - 1), (name, top, bottom)
    assert not np.array_equal(inks["A"], inks["B"])
