"""Letter marks on targets: "A" and "B" drawn on the targets themselves, as in Adelson's checker-shadow figure.

Adelson (1995) prints the letters A and B on the two checks; without them a viewer cannot tell which of many
equal checks the question means. The letters are drawn in the final frame (after mirroring and transposing,
so they read normally), centred on each target's bounding box, in black (sRGB 0-255 (0, 0, 0)), bold DejaVu
Sans (`plates.stimuli.ishihara.glyphs.FONT_DIR`: the same pixels on any machine) at a cap height of a third of
the target's smaller side. Letter pixels leave the target masks, so the masks stay exactly the target's own
colour.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from plates.stimuli.ishihara.glyphs import FONT_DIR, FONTS

__all__ = ["LETTER_RGB", "mark_letters"]

LETTER_RGB = (0, 0, 0)
_SHARE = 1 / 3  # cap height / the target's smaller side
_FONT = str(FONT_DIR / FONTS["dejavu-sans-bold"])


@lru_cache(maxsize=64)
def _ink(letter: str, height: int) -> np.ndarray:
    """The letter's ink (bool, cropped to its box) with a cap height of about ``height`` px (read-only)."""
    font = ImageFont.truetype(_FONT, max(6, round(height / 0.73)), layout_engine=ImageFont.Layout.BASIC)
    left, top, right, bottom = font.getbbox(letter)
    img = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(img).text((2 - left, 2 - top), letter, font=font, fill=255)
    a = np.asarray(img) >= 128
    rows, cols = np.flatnonzero(a.any(axis=1)), np.flatnonzero(a.any(axis=0))
    ink = a[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    ink.setflags(write=False)
    return ink


def mark_letters(px: np.ndarray, masks: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Draw "A" / "B" on ``px`` ((H, W, 3) uint8 sRGB 0-255, changed in place) at the centre of each target's
    bounding box; returns the masks without the letter pixels. Both letters share one cap height (from the
    smaller target), so neither target loses more of its area to its letter by design.

    Parameters
    ----------
    px : numpy.ndarray of uint8, shape (H, W, 3)
        sRGB 0-255, changed in place.
    masks : dict of str to numpy.ndarray of bool, shape (H, W)
        The targets' masks, keyed by the letter each gets ("A", "B").

    Returns
    -------
    dict of str to numpy.ndarray of bool
        The same keys, each mask without its letter's pixels.
    """
    boxes = {}
    for name, mask in masks.items():
        ys, xs = np.nonzero(mask)
        boxes[name] = (ys.min(), ys.max() + 1, xs.min(), xs.max() + 1)
    side = min(min(y1 - y0, x1 - x0) for y0, y1, x0, x1 in boxes.values())
    out = {}
    for name, mask in masks.items():
        ink = _ink(name, max(4, round(side * _SHARE)))
        y0, y1, x0, x1 = boxes[name]
        top, left = (y0 + y1 - ink.shape[0]) // 2, (x0 + x1 - ink.shape[1]) // 2
        full = np.zeros(mask.shape, dtype=bool)
        full[top : top + ink.shape[0], left : left + ink.shape[1]] = ink
        full &= mask
        px[full] = LETTER_RGB
        out[name] = mask & ~full
    return out
