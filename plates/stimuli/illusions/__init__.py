"""Procedurally drawn colour illusions with exact target masks and pixel truth (issue 13).

A frozen `IllusionSpec` (kind, size, seed, inducer strength, signed target ΔE2000, CIELAB colours, layout)
renders (`render`) to a `plates.stimuli.base.Stimulus`: the image (PIL RGB, sRGB 0-255), masks {"A", "B"}
covering exactly the two targets, the pixel truth measured on those masks plus the perceptual answer the
illusion predicts (with its literature source), and stats. `ILLUSION_TYPES` lists the kinds (RCID's contrast,
stripe and filter; simultaneous contrast, White's, Munker-White, checker-shadow, Cornsweet, Chevreul, Koffka
ring, neon spreading) with their descriptions and sources. The geometry is ours (numpy); no GPL code is used.

``FAMILY`` is this family's `plates.stimuli.base.Family` entry (name "illusion", as ``IllusionSpec.FAMILY``
and the ``{"family": "illusion"}`` tag of its JSON), ready for the ``STIMULI`` registry.
"""

from plates.stimuli.base import Family
from plates.stimuli.illusions.kinds import DIRECTIONS, ILLUSION_TYPES, KINDS, LAYOUTS, IllusionType
from plates.stimuli.illusions.render import POSITIONS, VARIANTS, render
from plates.stimuli.illusions.spec import FAMILY_NAME, IllusionSpec, lab

FAMILY = Family(
    name=FAMILY_NAME,
    spec_type=IllusionSpec,
    render=render,
    variants=VARIANTS,
    source="RCID (Mao et al. 2025) §3.1-3.3; IllusionBench+ (Zhang et al. 2025) App. A; classic illusions "
    "after White 1979, Munker 1970, Adelson 1995, Cornsweet 1970, Chevreul 1839, Koffka 1935, van Tuijl 1975",
)

__all__ = [
    "DIRECTIONS",
    "FAMILY",
    "FAMILY_NAME",
    "ILLUSION_TYPES",
    "KINDS",
    "LAYOUTS",
    "POSITIONS",
    "VARIANTS",
    "IllusionSpec",
    "IllusionType",
    "lab",
    "render",
]
