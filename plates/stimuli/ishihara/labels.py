"""The papers' label spaces (the strings drawn on the plates).

* ``cbe``: ColorBlindnessEval §2.1 — numbers 0-99 ("0".."99", 100 labels).
* ``huemanity-numeric``: HueManity §4 and App. B.1 — two-digit numbers without a leading zero, "10".."99" (90).
* ``huemanity-alnum``: HueManity App. B.1 — ordered pairs over 58 symbols: digits, upper- and lowercase
  letters without lowercase "l" and uppercase "I", "J", "O" (58 x 58 = 3,364 labels).
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from plates.validation import check_choice

__all__ = [
    "CBE_NUMBERS",
    "HUEMANITY_NUMERIC",
    "HUEMANITY_SYMBOLS",
    "HUEMANITY_ALNUM",
    "LABEL_SPACES",
    "LABEL_SPACE_NAMES",
    "HUEMANITY_DATASET",
    "random_label",
]

CBE_NUMBERS: tuple[str, ...] = tuple(str(i) for i in range(100))
HUEMANITY_NUMERIC: tuple[str, ...] = tuple(str(i) for i in range(10, 100))
_EXCLUDED = set("lIJO")  # HueManity App. B.1: visually ambiguous characters
HUEMANITY_SYMBOLS: str = "".join(
    c for c in string.digits + string.ascii_uppercase + string.ascii_lowercase if c not in _EXCLUDED
)
HUEMANITY_ALNUM: tuple[str, ...] = tuple(a + b for a in HUEMANITY_SYMBOLS for b in HUEMANITY_SYMBOLS)
# HueManity §3's full dataset: 83,850 images = 25 pairs x 3,354 strings, i.e. the 3,364 alphanumeric labels
# without the leading-zero numbers "00".."09" (§4 excludes those; the numeric labels "10".."99" are a subset)
HUEMANITY_DATASET: tuple[str, ...] = tuple(s for s in HUEMANITY_ALNUM if not (s[0] == "0" and s[1].isdigit()))
#: Name -> labels (read-only). "any" (no list: any printable text) is the fourth name a prompt may use.
LABEL_SPACES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "cbe": CBE_NUMBERS,
    "huemanity-numeric": HUEMANITY_NUMERIC,
    "huemanity-alnum": HUEMANITY_ALNUM,
})
#: Every label-space name a prompt, a task or the scorer accepts, declared once.
LABEL_SPACE_NAMES: tuple[str, ...] = (*LABEL_SPACES, "any")


def random_label(space: str, rng: np.random.Generator) -> str:
    """One label drawn uniformly from the label space ``space`` with the numpy Generator ``rng``.

    Parameters
    ----------
    space : str
        A name in `LABEL_SPACES`.
    rng : numpy.random.Generator
        Draws one integer.

    Returns
    -------
    str
        A label of that space.

    Raises
    ------
    ValueError
        When ``space`` is not a name in `LABEL_SPACES`.
    """
    check_choice("label space", space, LABEL_SPACES)
    labels = LABEL_SPACES[space]
    return labels[int(rng.integers(len(labels)))]
