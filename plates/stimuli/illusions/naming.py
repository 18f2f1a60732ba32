"""Basic colour names for the filter illusion's open answers: name an sRGB colour, and find names in a reply.

RCID §3.3 checks filter answers "against lists of colour names" (a pixel answer list and a human answer);
its lists are not printed, so these are ours: the eleven basic colour terms of Berlin & Kay (1969, Basic
Color Terms, University of California Press), each with common synonyms a model may use.

`colour_name` assigns one basic term from CIELAB (D65, 2°) lightness, chroma and hue angle. The boundaries are
ours, set by eye on sRGB colours: approximate, not a standard, and only used for colours the filter kind draws
(targets, their originals behind the cast). Input colours are sRGB 0-255.
"""

from __future__ import annotations

import re
from types import MappingProxyType

import numpy as np

from plates import colour as C

__all__ = ["BASIC_NAMES", "SYNONYMS", "colour_name", "names_in"]

BASIC_NAMES = (
    "black",
    "white",
    "grey",
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "purple",
    "pink",
    "brown",
)

#: basic term -> words that count as that term in a reply (lower case; wording is ours).
SYNONYMS = MappingProxyType(
    {
        "black": ("black", "jet black", "ebony"),
        "white": ("white", "off-white", "ivory", "cream"),
        "grey": ("grey", "gray", "silver", "greyish", "grayish", "ash", "charcoal", "slate"),
        "red": ("red", "reddish", "crimson", "scarlet", "maroon", "burgundy", "ruby", "cherry", "vermilion"),
        "orange": ("orange", "orangish", "amber", "tangerine", "coral", "apricot"),
        "yellow": ("yellow", "yellowish", "golden", "gold", "lemon", "mustard"),
        "green": ("green", "greenish", "lime", "olive", "emerald", "forest green", "mint", "jade"),
        "blue": (
            "blue",
            "bluish",
            "navy",
            "azure",
            "cyan",
            "teal",
            "turquoise",
            "cobalt",
            "sky blue",
            "aqua",
        ),
        "purple": ("purple", "purplish", "violet", "lavender", "magenta", "lilac", "indigo", "mauve", "plum"),
        "pink": ("pink", "pinkish", "rose", "salmon", "fuchsia"),
        "brown": ("brown", "brownish", "tan", "beige", "chocolate", "khaki", "tawny", "bronze"),
    }
)

_WORD = {w: name for name, words in SYNONYMS.items() for w in words}
# Longest first, so "sky blue" is one word and "jet black" is not also "black" twice; whole words only, so
# "redundant" holds no "red" and "tangerine" no "tan" (the trap in substring matching). The "(?=[a-z])" guard
# tries the alternation only where a word starts, so a reply of digits or symbols is scanned in one pass.
_PATTERN = re.compile(
    r"(?<![a-z])(?=[a-z])(" + "|".join(re.escape(w) for w in sorted(_WORD, key=len, reverse=True)) + r")(?![a-z])"
)


def colour_name(rgb) -> str:
    """The basic colour term of one colour (boundaries ours, see the module docstring).

    Parameters
    ----------
    rgb : array_like, shape (3,)
        sRGB 0-255.

    Returns
    -------
    str
        One of `BASIC_NAMES`.

    References
    ----------
    Berlin & Kay (1969), Basic Color Terms, University of California Press (the eleven terms; the boundaries
    are ours).

    Examples
    --------
    >>> colour_name((128, 128, 128)), colour_name((200, 30, 30))
    ('grey', 'red')
    """
    lab = C.srgb255_to_lab(np.asarray(rgb, dtype=float))
    L, a, b = (float(v) for v in lab)
    chroma = float(np.hypot(a, b))
    hue = float(np.degrees(np.arctan2(b, a)) % 360.0)
    if chroma < 12.0:
        return "black" if L < 22 else "white" if L > 90 else "grey"
    if hue < 45.0 or hue >= 345.0:
        return "pink" if L > 68 and chroma < 50 else "brown" if L < 35 and chroma < 40 else "red"
    if hue < 70.0:
        return "brown" if L < 58 else "orange"
    if hue < 105.0:
        return "brown" if L < 55 else "yellow"
    if hue < 195.0:
        return "green"
    if hue < 290.0:
        return "blue"
    return "pink" if L > 68 else "purple"


def names_in(reply: str) -> tuple[str, ...]:
    """The basic colour terms a reply names, in order of first mention, without repeats.

    Synonyms map to their term ("gray" -> "grey", "crimson" -> "red"); whole words only; case-insensitive.
    A negated mention still counts ("not red"): callers treat two or more names as ambiguous.

    Parameters
    ----------
    reply : str
        A model's reply.

    Returns
    -------
    tuple of str
        Terms of `BASIC_NAMES`.

    Raises
    ------
    ValueError
        When ``reply`` is not a str.

    Examples
    --------
    >>> names_in("It looks Gray, maybe crimson; not gray")
    ('grey', 'red')
    """
    if not isinstance(reply, str):
        raise ValueError(f"reply must be a str, got {type(reply).__name__}")
    found: list[str] = []
    for m in _PATTERN.finditer(reply.lower()):
        name = _WORD[m.group(1)]
        if name not in found:
            found.append(name)
    return tuple(found)
