"""Ishihara-style plates: the first stimulus family (ColorBlindnessEval App. D-E, HueManity §3).

`plate` (PlateSpec, render, Plate), `styles` (the papers' plate styles: dense, cbe, huemanity), `packing` (the
dense packing), `packing_mc` (the papers' Monte Carlo packings), `paint` (hard-edged and anti-aliased dots),
`jitter` (HueManity's colour jitter, ours and its released code's), `glyphs` (bundled fonts, text masks),
`palettes` (the papers' colour sets), `labels` (label spaces).
"""

from plates.stimuli.base import Family
from plates.stimuli.ishihara.plate import VARIANTS, Plate, PlateSpec, render

__all__ = ["FAMILY", "PlateSpec", "Plate", "render"]

FAMILY = Family(
    name="ishihara", spec_type=PlateSpec, render=render, variants=VARIANTS,
    source="ColorBlindnessEval App. D-E (Algorithm 1); HueManity §3, Table 7",
)
