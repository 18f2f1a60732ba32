"""Observers written in Python for the ``python`` backend (`plates.models.python_observer`): an ideal observer
that reads a plate's pixels, and simulated observers whose discrimination ellipse is known.

Both are callables ``(image, question) -> reply text`` (``image``: PIL RGB, sRGB 0-255). They read a plate as
drawn by `plates.stimuli.ishihara` in the ``dense`` style with the default font (DejaVu Sans Bold Oblique):

* the **canvas** is the colour of the image's corner pixel; the **ground** the commonest other colour; every
  other pixel is **figure** (so a figure drawn in the ground's own 8-bit colour is invisible to them, as it is
  on the screen);
* the label is the one of the question's label space (`plates.models.baseline.label_space_for`) whose text
  mask (`plates.stimuli.ishihara.glyphs.text_mask` at the image's size, margin = the dense style's largest dot
  radius) overlaps the figure pixels best (cosine of the two masks); the reply is written in the form the
  question asks (`plates.models.baseline.format_answer`);
* the **figure colour** is the figure's mean over its area, in linear light: the ground plus the summed
  differences of the figure pixels from it, divided by the figure's area in pixels: the larger of the pixels
  that differ and the disc pixels inside that label's mask (the plate makes a dot figure when its centre lies in
  the mask, so figure dots cover about that many pixels: 1.005 ± 0.017 times, over 36 plates at 192-512 px).
  This is the quantity the runs measure as the level shown (the dots' area-weighted mean); the reading's d is
  0.7% below the level shown's on average (192 px, 8-bit and dithered alike). A dithered figure (`plates.runs.ellipses`, ``dither``) draws some of its dots in the
  ground's own 8-bit colour at levels under one code step: they count as figure of the ground's colour. An
  earlier reading averaged only the pixels that differ, so it saw a whole code step where the figure's mean
  moved a fraction of one; its accuracy at sub-step levels followed no ellipse, and the dithered bench's
  areas came out 5-13% large with single directions 35% short.

`ideal` answers that label whenever any figure pixel differs from the ground, else guesses: its threshold is
one 8-bit code step (the reference for quantisation). An `EllipseObserver` sees the figure with probability
ψ(d) = γ + (1 − γ − λ) F(d; 1, β) (`plates.analysis.psychometric`, logistic; γ = 1 / labels), d the
Mahalanobis distance in CIE 1931 xy from the ground's chromaticity to the figure's (the mean of the figure
pixels in linear light) under its ellipse: d = 1 on the ellipse, so the ellipse IS its threshold contour at
the staircase's criterion (halfway between guess and ceiling). When it misses it answers a uniformly drawn
other label. Its draws come from SHA-256 of (its seed, the image's bytes): the same trial, the same answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image

from plates.analysis.psychometric import psychometric
from plates.colour.chromaticity import srgb255_to_xyY
from plates.colour.transfer import linear_to_srgb255, srgb255_to_linear
from plates.models.baseline import format_answer, label_space_for
from plates.stimuli.ishihara.glyphs import TEXT_SCALE, text_mask
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.styles import STYLES

__all__ = ["EllipseObserver", "PlateReading", "ideal", "macadam_x3", "read_plate"]

FONT = "dejavu-sans-bold-oblique"


@dataclass(frozen=True)
class PlateReading:
    """What the pixels of a plate say: ``ground`` and ``figure`` sRGB 0-255 (figure: the figure's mean colour
    in linear light over the matched label's glyph area, re-encoded (module docstring); None when no pixel
    differs from the ground), ``figure_share`` (pixels that differ from the ground / disc pixels), and ``label``
    (the best matching label; None without figure pixels).

    Attributes
    ----------
    ground : tuple of 3 float
        sRGB 0-255.
    figure : tuple of 3 float or None
        sRGB 0-255 (the figure's mean colour in linear light over the matched label's glyph area, re-encoded).
    figure_share : float
        Pixels that differ from the ground / disc pixels.
    label : str or None
        The best matching label.
    """

    ground: tuple[float, float, float]
    figure: tuple[float, float, float] | None
    figure_share: float
    label: str | None


@lru_cache(maxsize=512)
def _mask(label: str, size: int) -> np.ndarray:
    margin = STYLES["dense"].max_radius_900 * size / 900
    return text_mask(label, FONT, size, margin, TEXT_SCALE)


def read_plate(image: Image.Image, labels: tuple[str, ...]) -> PlateReading:
    """Read ``image`` (PIL RGB, a square plate) as the module docstring says, choosing among ``labels``.

    Parameters
    ----------
    image : PIL.Image.Image
        A square plate, RGB, sRGB 0-255.
    labels : tuple of str
        The labels to choose among.

    Returns
    -------
    PlateReading
        What the pixels say.

    Raises
    ------
    ValueError
        When the image holds only its canvas colour.
    """
    px = np.asarray(image.convert("RGB"))
    size = px.shape[0]
    flat = px.reshape(-1, 3)
    canvas = flat[0]
    codes = flat.astype(np.int64) @ np.array([65536, 256, 1])
    disc = codes != int(canvas.astype(np.int64) @ np.array([65536, 256, 1]))
    values, counts = np.unique(codes[disc], return_counts=True)
    if values.size == 0:
        raise ValueError("the image holds only its canvas colour; allowed: a plate with dots")
    ground_code = values[np.argmax(counts)]
    ground = flat[codes == ground_code][0].astype(float)
    fig = disc & (codes != ground_code)
    share = float(fig.sum() / max(disc.sum(), 1))
    if not fig.any():
        return PlateReading(tuple(ground), None, share, None)
    fmask = fig.reshape(size, size)
    best, label = -1.0, None
    for candidate in labels:
        ink = _mask(candidate, size)
        score = float((ink & fmask).sum()) / np.sqrt(float(ink.sum()) * float(fmask.sum()) or 1.0)
        if score > best:
            best, label = score, candidate
    # The figure's mean colour over its area (module docstring): a dithered figure draws some of its dots in the
    # ground's own colour, and they are figure too.
    area = max(int((_mask(label, size).ravel() & disc).sum()), int(fig.sum()))
    ground_lin = srgb255_to_linear(ground)
    figure = linear_to_srgb255(ground_lin + (srgb255_to_linear(flat[fig]) - ground_lin).sum(axis=0) / area)
    return PlateReading(tuple(ground), tuple(float(v) for v in figure), share, label)


def _labels(question: str) -> tuple[str, ...]:
    space = LABEL_SPACES.get(label_space_for(question))
    if not space:
        raise ValueError(f"the question names no finite label space ({label_space_for(question)!r}); allowed: a "
                         "plate question over a label space (e.g. the huemanity-numeric or cbe prompts)")
    return space


def _draw(seed: int, image: Image.Image) -> np.random.Generator:
    digest = hashlib.sha256(str(seed).encode() + b"\x1f" + np.asarray(image).tobytes()).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "big")))


def ideal(image: Image.Image, question: str) -> str:
    """The ideal observer (module docstring): the label when any pixel differs from the ground, else a guess.

    Parameters
    ----------
    image : PIL.Image.Image
        A plate, RGB.
    question : str
        The question's text.

    Returns
    -------
    str
        The reply.

    Raises
    ------
    ValueError
        When the question names no finite label space, or the image holds only its canvas colour.
    """
    labels = _labels(question)
    reading = read_plate(image, labels)
    label = reading.label
    if label is None:
        label = labels[int(_draw(0, image).integers(len(labels)))]
    return format_answer(question, label)


@dataclass(frozen=True)
class EllipseObserver:
    """A simulated observer with a known threshold ellipse (module docstring).

    ``ellipse``: xy -> (a, b, theta_deg), semi-axes a >= b in CIE 1931 xy units and the orientation of a from
    the x axis (degrees), at the chromaticity of the ground; ``slope``: logistic slope β per unit of d;
    ``lapse``: λ; ``seed``: its draws' seed.

    Parameters
    ----------
    ellipse : callable
        xy -> (a, b, theta_deg).
    slope : float, optional
        β.
    lapse : float, optional
        λ.
    seed : int, optional
        Its draws' seed.
    """

    ellipse: Callable[[np.ndarray], tuple[float, float, float]]
    slope: float = 6.0
    lapse: float = 0.02
    seed: int = 0

    def distance(self, ground: tuple[float, ...], figure: tuple[float, ...]) -> float:
        """d: the Mahalanobis distance in xy between two sRGB 0-255 colours under the ellipse at ``ground``.

        Parameters
        ----------
        ground, figure : tuple of float
            sRGB 0-255.

        Returns
        -------
        float
            d.
        """
        (g, f), _ = srgb255_to_xyY(np.array([ground, figure], dtype=float))
        a, b, theta = self.ellipse(g)
        t = np.radians(theta)
        rot = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
        u = rot @ (f - g)
        return float(np.hypot(u[0] / a, u[1] / b))

    def __call__(self, image: Image.Image, question: str) -> str:
        labels = _labels(question)
        reading = read_plate(image, labels)
        rng = _draw(self.seed, image)
        d = 0.0 if reading.figure is None else self.distance(reading.ground, reading.figure)
        guess = 1.0 / len(labels)
        p_seen = float((psychometric(d, 1.0, self.slope, guess=guess, lapse=self.lapse) - guess) / (1 - guess))
        if reading.label is not None and rng.random() < p_seen:
            return format_answer(question, reading.label)
        return format_answer(question, labels[int(rng.integers(len(labels)))])


def fixed_ellipse(a: float, b: float, theta_deg: float) -> Callable[[np.ndarray], tuple[float, float, float]]:
    """The same ellipse (xy units, degrees) at every centre.

    Parameters
    ----------
    a, b : float
        Semi-axes, CIE 1931 xy units.
    theta_deg : float
        The orientation, degrees.

    Returns
    -------
    callable
        xy -> (a, b, theta_deg).
    """
    return lambda xy: (a, b, theta_deg)


def _macadam_nearest(factor: float) -> Callable[[np.ndarray], tuple[float, float, float]]:
    from plates.analysis.ellipses import macadam_ellipses

    table = macadam_ellipses()

    def at(xy: np.ndarray) -> tuple[float, float, float]:
        i = int(np.argmin(np.hypot(table["x"] - xy[0], table["y"] - xy[1])))
        return factor * table["a"][i], factor * table["b"][i], table["theta_deg"][i]
    return at


#: MacAdam's (1942) ellipse of the nearest of his 25 centres, 3 times its size (`plates.analysis.ellipses`).
macadam_x3 = EllipseObserver(_macadam_nearest(3.0))
