"""The papers' named colour sets, sRGB 0-255.

* ``colorblindnesseval-1`` .. ``colorblindnesseval-5``: ColorBlindnessEval App. D.1 (colours sampled from the
  Ishihara test's numeral plates; several foreground and background colours per set).
* ``huemanity-01`` .. ``huemanity-25``: HueManity App. D, Table 7 (one foreground and one background colour
  per pair, CSS/X11 colour names), in table order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from plates.colour import RGB
from plates.validation import lookup

__all__ = ["CBE_SETS", "HUEMANITY_PAIRS", "Palette", "PALETTES", "get_palette"]


@dataclass(frozen=True)
class Palette:
    """A named colour set: foreground (figure) and background colours, each sRGB 0-255.

    Attributes
    ----------
    name : str
        The registry name (``"huemanity-01"``).
    foreground, background : tuple of (tuple of 3 int)
        The figure's and the field's colours, sRGB 0-255.
    source : str
        Where the colours come from (paper, section, table).
    label : str
        A short name for menus and charts.
    """

    name: str
    foreground: tuple[RGB, ...]
    background: tuple[RGB, ...]
    source: str
    label: str


_CBE = {
    1: (
        [(245, 97, 60), (242, 85, 45)],
        [(106, 124, 115)],
    ),
    2: (
        [(238, 91, 59), (242, 180, 154), (240, 146, 114), (242, 118, 94)],
        [(180, 158, 83), (91, 88, 62), (132, 123, 73), (115, 109, 66)],
    ),
    3: (
        [(192, 179, 108), (107, 122, 91), (207, 201, 161), (99, 93, 56), (167, 144, 84), (158, 159, 131)],
        [(248, 175, 96), (249, 113, 71), (244, 80, 51), (228, 87, 62)],
    ),
    4: (
        [(244, 160, 96), (245, 112, 66), (206, 84, 55)],
        [(226, 199, 102), (108, 101, 56), (250, 241, 199), (122, 114, 70), (148, 132, 69), (170, 161, 117),
         (242, 224, 167), (230, 205, 136), (98, 119, 120)],
    ),
    5: (
        [(244, 94, 86), (243, 50, 55), (137, 41, 60), (163, 62, 78), (228, 123, 113), (239, 157, 144),
         (248, 195, 175)],
        [(130, 112, 94), (57, 50, 51), (80, 70, 66), (41, 35, 35), (113, 98, 82), (144, 127, 110)],
    ),
}

# HueManity Table 7, in table order: (foreground name, background name, foreground RGB, background RGB)
_HUEMANITY = [
    ("Firebrick", "PaleTurquoise", (178, 34, 34), (175, 238, 238)),
    ("Sienna", "SkyBlue", (160, 82, 45), (135, 206, 235)),
    ("OliveDrab", "Thistle", (107, 142, 35), (216, 191, 216)),
    ("DarkOrchid", "PaleGreen", (153, 50, 204), (152, 251, 152)),
    ("SteelBlue", "SandyBrown", (70, 130, 180), (244, 164, 96)),
    ("MediumSeaGreen", "LightCoral", (60, 179, 113), (240, 128, 128)),
    ("Chocolate", "LightGreen", (210, 105, 30), (144, 238, 144)),
    ("Khaki", "Orchid", (240, 230, 140), (218, 112, 214)),
    ("DarkKhaki", "Plum", (189, 183, 107), (221, 160, 221)),
    ("Orchid", "Khaki", (218, 112, 214), (240, 230, 140)),
    ("IndianRed", "Aquamarine", (205, 92, 92), (127, 255, 212)),
    ("PaleGreen", "SandyBrown", (152, 251, 152), (244, 164, 96)),
    ("Brown", "Indigo", (165, 42, 42), (75, 0, 130)),
    ("CadetBlue", "DarkOrchid", (95, 158, 160), (153, 50, 204)),
    ("PaleGoldenrod", "Orchid", (238, 232, 170), (218, 112, 214)),
    ("MediumTurquoise", "Grey", (72, 209, 204), (128, 128, 128)),
    ("SlateGrey", "LightGreen", (112, 128, 144), (144, 238, 144)),
    ("MediumSlateBlue", "Wheat", (123, 104, 238), (245, 222, 179)),
    ("MediumTurquoise", "LightPink", (72, 209, 204), (255, 182, 193)),
    ("DarkSalmon", "LightGreen", (233, 150, 122), (144, 238, 144)),
    ("Tan", "MediumPurple", (210, 180, 140), (147, 112, 219)),
    ("MediumPurple", "PaleGoldenrod", (147, 112, 219), (238, 232, 170)),
    ("SlateGray", "BlanchedAlmond", (112, 128, 144), (255, 235, 205)),
    ("CadetBlue", "Thistle", (95, 158, 160), (216, 191, 216)),
    ("DarkKhaki", "LightSteelBlue", (189, 183, 107), (176, 196, 222)),
]


#: ColorBlindnessEval's colour sets by name ("colorblindnesseval-1" ... "-5"), in order: the one place these
#: names are made.
CBE_SETS: tuple[str, ...] = tuple(f"colorblindnesseval-{k}" for k in _CBE)
#: HueManity's colour pairs by name ("huemanity-01" ... "-25"), in its Table 7's order.
HUEMANITY_PAIRS: tuple[str, ...] = tuple(f"huemanity-{i:02d}" for i in range(1, len(_HUEMANITY) + 1))


def _build() -> dict[str, Palette]:
    out: dict[str, Palette] = {}
    for name, (k, (fg, bg)) in zip(CBE_SETS, _CBE.items(), strict=True):
        out[name] = Palette(name, tuple(fg), tuple(bg), "ColorBlindnessEval App. D.1", f"Color Set {k}")
    for name, (fn, bn, fg, bg) in zip(HUEMANITY_PAIRS, _HUEMANITY, strict=True):
        out[name] = Palette(name, (fg,), (bg,), "HueManity App. D, Table 7", f"{fn} on {bn}")
    return out


#: Name -> palette (read-only): ColorBlindnessEval's five colour sets, then HueManity's 25 pairs.
PALETTES: Mapping[str, Palette] = MappingProxyType(_build())


def get_palette(name: str) -> Palette:
    """The palette called ``name``; ValueError listing the names otherwise.

    Parameters
    ----------
    name : str
        A name in `PALETTES`.

    Returns
    -------
    Palette
        The palette.

    Raises
    ------
    ValueError
        When ``name`` is not in `PALETTES` (the message lists the names).
    """
    return lookup(PALETTES, name, "palette")
