"""The Python observers: the ideal one reads a plate's label whenever a pixel differs from the ground; the
simulated one sees a difference as far as its known ellipse says."""

from __future__ import annotations

import numpy as np
import pytest

from plates.colour.chromaticity import srgb255_to_xyY, xyY_to_srgb
from plates.models.simulated import EllipseObserver, fixed_ellipse, ideal, macadam_x3, read_plate
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec, render
from plates.tasks.prompts import PROMPTS

QUESTION = PROMPTS["huemanity-numeric"].template
GROUND = (150, 140, 130)


def _plate(figure, label="47", seed=3, size=256):
    return render(PlateSpec(text=label, size=size, palette=None, foreground=(figure,), background=(GROUND,),
                            seed=seed)).image


@pytest.mark.parametrize("label", ["47", "10", "88", "93"])
def test_ideal_reads_a_one_code_step_figure(label):
    assert ideal(_plate((151, 140, 130), label), QUESTION) == f"Answer: {label}"


def test_ideal_guesses_when_the_figure_is_the_ground_colour():
    reading = read_plate(_plate(GROUND), LABEL_SPACES["huemanity-numeric"])
    assert reading.figure is None and reading.label is None
    answers = {ideal(_plate(GROUND, seed=s), QUESTION) for s in range(12)}
    assert len(answers) > 3  # a guess per image, not one fixed label


def test_the_figure_colour_is_read_from_the_pixels():
    reading = read_plate(_plate((170, 140, 130)), LABEL_SPACES["huemanity-numeric"])
    assert reading.ground == GROUND
    assert np.allclose(reading.figure, (170, 140, 130), atol=1e-6)


def test_distance_is_in_units_of_the_ellipse():
    a, b, theta = 0.006, 0.002, 30.0
    obs = EllipseObserver(fixed_ellipse(a, b, theta))
    g, _ = srgb255_to_xyY(np.array(GROUND, dtype=float))
    Y = float(srgb255_to_xyY(np.array(GROUND, dtype=float))[1])
    for along, length, d in ((theta, a, 2.0), (theta + 90, b, 0.5)):  # 2a on the major axis, b/2 on the minor
        t = np.radians(along)
        figure = tuple(xyY_to_srgb(g + d * length * np.array([np.cos(t), np.sin(t)]), Y) * 255)
        # colour-science's sRGB encode and decode matrices differ by ~1e-6 xy (a thousandth of a code step)
        assert obs.distance(GROUND, figure) == pytest.approx(d, abs=0.01)


def test_simulated_accuracy_follows_its_ellipse():
    obs = EllipseObserver(fixed_ellipse(0.006, 0.002, 30.0), lapse=0.0)
    far, near = (200, 140, 130), (151, 140, 130)  # far: d >> 1; near: one code step, d << 1
    right_far = sum(obs(_plate(far, seed=s), QUESTION) == "Answer: 47" for s in range(20))
    right_near = sum(obs(_plate(near, seed=s), QUESTION) == "Answer: 47" for s in range(20))
    assert right_far == 20 and right_near <= 4
    # the same image, the same answer
    assert obs(_plate(near, seed=1), QUESTION) == obs(_plate(near, seed=1), QUESTION)


def test_macadam_x3_uses_the_nearest_centre():
    a, b, theta = macadam_x3.ellipse(np.array([0.305, 0.323]))
    assert (a, b, theta) == pytest.approx((3 * 0.0023, 3 * 0.0009, 58.0))


def test_a_dithered_figure_is_read_as_its_mean_over_all_its_dots():
    # Three of four figure colours are the ground's own (a dithered figure a quarter of a code step away): the
    # reading spreads the one that differs over the whole figure, as the run's level shown does, instead of
    # seeing a whole code step.
    step = (151, 140, 130)
    plate = render(PlateSpec(text="47", size=256, palette=None, foreground=(GROUND, GROUND, GROUND, step),
                             background=(GROUND,), seed=5))
    reading = read_plate(plate.image, LABEL_SPACES["huemanity-numeric"])
    fg = plate.is_fg
    shares = plate.r[fg] ** 2 / (plate.r[fg] ** 2).sum()
    want = float(shares @ (plate.dot_colours[fg][:, 0] == 151))  # the share of figure area in the step colour
    assert reading.label == "47" and 0.1 < want < 0.45
    g, f = srgb255_to_xyY(np.array([GROUND, reading.figure], dtype=float))[0]
    g1, f1 = srgb255_to_xyY(np.array([GROUND, step], dtype=float))[0]
    assert np.linalg.norm(f - g) == pytest.approx(want * np.linalg.norm(f1 - g1), rel=0.04)
