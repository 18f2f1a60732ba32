"""Named colour palettes for scenes whose questions name colours (Colour Recognition, Object Counting,
Colour Proportion; ColorBench Table 7). Colours are sRGB 0-255.

The names are the eleven basic colour terms of English (Berlin & Kay 1969, *Basic Color Terms*). Two
published sets of sRGB values for them:

* ``xkcd-basic-11`` (the default): the colours the xkcd colour survey's ~222,500 participants named with each
  term (R. Munroe 2010, https://xkcd.com/color/rgb/, released CC0; the same values as matplotlib's
  ``xkcd:`` colours). Minimum pairwise CIEDE2000: **17.96** (blue #0343df vs purple #7e1e9c).
* ``css-basic-11``: CSS Color Module Level 4 named colours (W3C; "gray" spelt "grey" here). Minimum pairwise
  CIEDE2000: **18.93** (red #ff0000 vs brown #a52a2a).

`tests/stimuli/scenes/test_render.py` recomputes both minima with colour-science, so the figures above cannot drift. A scene
excludes every palette colour closer than its ``min_delta_e`` to its background (on white: white, and with a
larger ``min_delta_e`` also yellow, pink, grey), so a name never points at the background.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from plates.colour import RGB, delta_e2000, parse_colour
from plates.validation import lookup

__all__ = ["SCENE_PALETTES", "ScenePalette", "get_scene_palette"]


@dataclass(frozen=True)
class ScenePalette:
    """A named palette: ``colours`` maps a colour name to its sRGB 0-255 value; ``min_delta_e`` is the
    smallest CIEDE2000 between two of its colours (as printed in the source note).

    Attributes
    ----------
    name : str
        The registry name.
    colours : mapping of str to (tuple of 3 int)
        Colour name to sRGB 0-255, read-only.
    source : str
        Where the colours come from.
    min_delta_e : float
        The smallest CIEDE2000 between two of its colours.
    """

    name: str
    colours: MappingProxyType
    source: str
    min_delta_e: float

    def name_of(self, rgb: RGB, tolerance: float = 0.0) -> str | None:
        """The name of the palette colour nearest ``rgb`` (sRGB 0-255) when within CIEDE2000 ``tolerance``
        (0: exactly that colour), else None.

        Parameters
        ----------
        rgb : tuple of 3 int
            sRGB 0-255.
        tolerance : float, optional
            The largest CIEDE2000 accepted (default 0: exactly a palette colour).

        Returns
        -------
        str or None
            The colour's name, or None.
        """
        rgb = tuple(int(v) for v in rgb)
        for name, value in self.colours.items():
            if value == rgb:
                return name
        if tolerance <= 0:
            return None
        names = list(self.colours)
        d = delta_e2000(np.array(rgb), np.array([self.colours[k] for k in names]))
        i = int(np.argmin(d))
        return names[i] if d[i] <= tolerance else None


def _palette(name: str, hexes: dict[str, str], source: str, min_de: float) -> ScenePalette:
    return ScenePalette(name, MappingProxyType({k: parse_colour(v) for k, v in hexes.items()}), source, min_de)


SCENE_PALETTES: MappingProxyType = MappingProxyType({
    "xkcd-basic-11": _palette(
        "xkcd-basic-11",
        {"red": "#e50000", "orange": "#f97306", "yellow": "#ffff14", "green": "#15b01a", "blue": "#0343df",
         "purple": "#7e1e9c", "pink": "#ff81c0", "brown": "#653700", "black": "#000000", "white": "#ffffff",
         "grey": "#929591"},
        "Berlin & Kay (1969) basic colour terms; sRGB values from the xkcd colour survey (Munroe 2010, CC0)",
        17.96,
    ),
    "css-basic-11": _palette(
        "css-basic-11",
        {"red": "#ff0000", "orange": "#ffa500", "yellow": "#ffff00", "green": "#008000", "blue": "#0000ff",
         "purple": "#800080", "pink": "#ffc0cb", "brown": "#a52a2a", "black": "#000000", "white": "#ffffff",
         "grey": "#808080"},
        "Berlin & Kay (1969) basic colour terms; sRGB values from CSS Color Module Level 4 named colours (W3C)",
        18.93,
    ),
})


def get_scene_palette(name: str) -> ScenePalette:
    """The palette called ``name``; ValueError listing the names.

    Parameters
    ----------
    name : str
        A name in `SCENE_PALETTES`.

    Returns
    -------
    ScenePalette
        The palette.

    Raises
    ------
    ValueError
        When ``name`` is not in `SCENE_PALETTES` (the message lists the names).
    """
    return lookup(SCENE_PALETTES, name, "scene palette")
