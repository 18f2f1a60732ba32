"""Colour maths: thin wrappers over colour-science, one module per concept.

* `plates.colour.spaces`: sRGB 0-255 <-> CIELAB (D65, 2°), CIEDE2000, parsing and hex.
* `plates.colour.transfer`: the sRGB transfer function, sRGB 0-255 <-> linear RGB 0-1 (numpy).
* `plates.colour.gamut`: the colour at a given CIEDE2000 from another, inside sRGB.
* `plates.colour.cvd`: Machado 2009 colour-vision-deficiency views.
"""

from plates.colour.cvd import CVD_KINDS, CVD_VIEWS, simulate_cvd
from plates.colour.gamut import background_at_delta_e, colour_at_delta_e, max_delta_e_along
from plates.colour.spaces import (
    RGB,
    delta_e2000,
    delta_e2000_lab,
    lab_to_srgb255,
    parse_colour,
    srgb255_to_lab,
    to_hex,
)

__all__ = [
    "RGB", "CVD_KINDS", "CVD_VIEWS", "srgb255_to_lab", "lab_to_srgb255", "delta_e2000", "delta_e2000_lab", "parse_colour", "to_hex",
    "background_at_delta_e", "colour_at_delta_e", "max_delta_e_along", "simulate_cvd",
]
