"""Plate styles: how the dots of a plate are packed and painted, one per source.

``STYLES`` (read-only) maps a name to a `Style`:

* ``dense`` -- this project's packing (`plates.stimuli.ishihara.packing`): the disc filled until ~74% is
  covered, radii 3-15 px and a 0.6 px gap at 900 px, hard-edged dots. The default (the pixels of every plate
  made before styles existed).
* ``cbe`` -- ColorBlindnessEval App. E, Algorithm 1 with the layers of IshiharaMC (the code CBE §2.1 footnote
  1 names): 180,000 tries in four layers (1 : 2 : 5 : 10, IshiharaMC's 1e4, 2e4, 5e4, 1e5), each layer three
  discrete radii, six radii in all from 0.01 to 0.06 of the plate radius (4.5-27 px at 900 px), a gap of 0.01
  of the plate radius (4.5 px) kept around every dot, hard-edged dots (matplotlib circles). Large dots with
  white gaps of several pixels; about 650 dots, 57% of the disc covered.
* ``huemanity`` -- HueManity §3 as its released generator packs: 30,000 tries, each a random pixel of the
  900 x 900 canvas getting the largest whole-pixel radius in 4-15 px that fits (no gap beyond the truncation),
  anti-aliased dots (pygame ``aacircle``). About 2,030 dots, 76% of the disc's pixels covered.

At any other size the ``cbe`` and ``huemanity`` geometry is the 900 px plate's, scaled (HueManity's tries are
pixels of a 900 x 900 lattice whatever the image size). Radii and gap default to the style's values at 900 px
scaled with the size; a spec may set them (``min_radius``, ``max_radius``, ``gap``) and, for the Monte Carlo
styles, the number of ``tries``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from plates.stimuli.ishihara.packing import Packing, pack_circles
from plates.stimuli.ishihara.packing_mc import (
    largest_tries,
    layer_sizes,
    layer_tries,
    pack_largest,
    pack_layers,
)
from plates.validation import lookup

__all__ = ["HUEMANITY_LATTICE", "STYLES", "Style", "get_style", "pack_style"]

#: HueManity's canvas side: its tries are pixels of this lattice, whatever the image size.
HUEMANITY_LATTICE = 900


@dataclass(frozen=True)
class Style:
    """A packing-and-painting style. Radii and gap in px at 900 px (scaled with the plate size); ``tries`` the
    default number of Monte Carlo tries (None: not a Monte Carlo style) and ``tries_range`` the allowed ones.

    Attributes
    ----------
    name : str
        The registry name (``"dense"``, ``"cbe"``, ``"huemanity"``).
    source : str
        The paper and section the style follows.
    min_radius_900, max_radius_900 : float
        The dot radius range, px at a 900 px plate.
    gap_900 : float
        The least gap between dots, px at a 900 px plate.
    tries : int or None
        The default number of Monte Carlo tries; None: not a Monte Carlo style.
    tries_range : (int, int) or None
        The allowed tries, inclusive.
    antialias : bool
        Whether the style paints anti-aliased dots by default.
    """

    name: str
    source: str
    min_radius_900: float
    max_radius_900: float
    gap_900: float
    tries: int | None
    tries_range: tuple[int, int] | None
    antialias: bool


STYLES = MappingProxyType({
    "dense": Style("dense", "this project: HueManity-like dense packing", 3.0, 15.0, 0.6, None, None, False),
    "cbe": Style("cbe", "ColorBlindnessEval App. E Algorithm 1 + IshiharaMC layers", 4.5, 27.0, 4.5, 180_000,
                 (1_000, 2_000_000), False),
    "huemanity": Style("huemanity", "HueManity §3, released generator", 4.0, 15.0, 0.0, 30_000, (1_000, 1_000_000),
                       True),
})


def get_style(name: str) -> Style:
    """The `Style` called ``name``; ValueError listing the names otherwise.

    Parameters
    ----------
    name : str
        A name in `STYLES`.

    Returns
    -------
    Style
        The style.

    Raises
    ------
    ValueError
        When ``name`` is not in `STYLES` (the message lists the names).
    """
    return lookup(STYLES, name, "style")


def pack_style(style: str, size: int, min_r: float, max_r: float, gap: float, tries: int | None, density: float,
               rng: np.random.Generator) -> Packing:
    """Pack the dots of a ``size`` px plate in ``style`` (radii and gap in px) with the numpy Generator ``rng``.

    Parameters
    ----------
    style : str
        A name in `STYLES`.
    size : int
        The plate's side, px (the disc's diameter).
    min_r, max_r : float
        The dot radius range, px.
    gap : float
        The least gap between dots, px.
    tries : int or None
        Monte Carlo tries (styles "cbe" and "huemanity"; ignored by "dense").
    density : float
        The coverage "dense" stops at (0-1; ignored by the others).
    rng : numpy.random.Generator
        Every random number.

    Returns
    -------
    Packing
        The dots, in acceptance order.

    Raises
    ------
    ValueError
        When ``style`` is not in `STYLES`, or the radii or gap are not valid for its packer.

    References
    ----------
    ColorBlindnessEval App. E, Algorithm 1 ("cbe"); HueManity §3 ("huemanity").
    """
    R = size / 2.0
    style = get_style(style).name
    if style == "dense":
        return pack_circles(R, min_r, max_r, gap, rng, target_coverage=density)
    if style == "cbe":
        return pack_layers(R, layer_sizes(min_r, max_r), layer_tries(int(tries)), gap, rng)
    u = size / HUEMANITY_LATTICE  # huemanity
    cx, cy = largest_tries(rng, int(tries), HUEMANITY_LATTICE)
    return pack_largest(cx, cy, HUEMANITY_LATTICE / 2, min_r / u, max_r / u, gap / u, scale=u)
