"""A scripted illusion observer for tests that reads the image it is sent, never the generator's bookkeeping.

Simultaneous contrast draws targets A and B at the centres of the image's left and right halves: the observer
takes the pixels there (sRGB 0-255), their CIEDE2000 (CIELAB D65 2°) with a sign (+ when A is lighter) and
answers RCID's options: "II" (B darker) above ``pse + band``, "I" (A darker) below ``pse - band``, else "III"
(the same): a point of subjective equality at ``pse``."""

from __future__ import annotations

import numpy as np

from plates.colour import delta_e2000, srgb255_to_lab
from plates.models.base import Backend, Reply


def targets_difference(image) -> float:
    """The signed CIEDE2000 between the pixels at the centres of the left (A) and right (B) halves."""
    pixels = np.asarray(image).astype(float)
    h, w, _ = pixels.shape
    a, b = pixels[h // 2, w // 4], pixels[h // 2, 3 * w // 4]
    return float(delta_e2000(a, b)) * (1 if srgb255_to_lab(a)[0] > srgb255_to_lab(b)[0] else -1)


def option_for(x: float, pse: float, band: float) -> str:
    """The RCID option numeral an observer with this PSE and "same" half-band gives at difference ``x``."""
    return "II" if x > pse + band else "I" if x < pse - band else "III"


class ComparingObserver(Backend):
    """The observer as a backend (module docstring); ``seen`` keeps the differences it read, in order."""

    kind, model = "scripted", "comparer"

    def __init__(self, pse: float, band: float = 0.5) -> None:
        self.pse, self.band, self.seen = pse, band, []

    def ask(self, queries):
        for i, q in enumerate(queries):
            x = targets_difference(q.turns[-1].images[-1])
            self.seen.append(x)
            yield i, Reply(option_for(x, self.pse, self.band))
