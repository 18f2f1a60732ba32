"""Procedurally drawn colour illusions with exact target masks and pixel truth (issue 13).

A frozen `IllusionSpec` (kind, size, seed, inducer strength, signed target ΔE2000, CIELAB colours, layout)
renders (`render`) to a `plates.stimuli.base.Stimulus`: the image (PIL RGB, sRGB 0-255), masks {"A", "B"}
covering exactly the two targets, the pixel truth measured on those masks plus the perceptual answer the
illusion predicts (with its literature source), and stats. `ILLUSION_TYPES` lists the kinds (RCID's contrast,
stripe and filter; simultaneous contrast, White's, Munker-White, checker-shadow, Cornsweet, Chevreul, Koffka
ring, neon spreading) with their descriptions and sources. The geometry is ours (numpy); no GPL code is used.
"""

from plates.stimuli.illusions.kinds import DIRECTIONS, ILLUSION_TYPES, KINDS, LAYOUTS, IllusionType
from plates.stimuli.illusions.render import POSITIONS, render
from plates.stimuli.illusions.spec import FAMILY, IllusionSpec, lab

__all__ = [
    "DIRECTIONS",
    "FAMILY",
    "ILLUSION_TYPES",
    "KINDS",
    "LAYOUTS",
    "POSITIONS",
    "IllusionSpec",
    "IllusionType",
    "lab",
    "render",
]
