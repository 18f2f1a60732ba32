"""The Plate tab's "as the model sees it": a plate run through a family's view (`plates.models.views`), laid out
for the page. Widget-free: the app only shows what `seen_by` returns.

The original gets each tile's box drawn on it (input pixels: a centre crop's window, or a tiling's grid), the
view's tiles are laid side by side in the processor's order (exact pixels, PNG), and a line of Markdown gives
the seen size, the tiles, the share cropped away, whether the figure was cut and the ΔE2000 after the view beside
the ΔE2000 as drawn (`plates.models.views.measure`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from plates.models.views import FAMILIES, see
from plates.models.views.measure import measure_view, plate_regions
from plates.stimuli.ishihara.plate import PlateSpec, render

__all__ = ["OFF", "Seen", "blank", "family_choices", "montage", "outlined", "seen_by"]

#: The dropdown's "no view" entry.
OFF = "(none)"
#: Colour of the boxes drawn on the original, sRGB 0-255 (magenta: far from every palette hue we draw).
OUTLINE = (255, 0, 255)
#: Tiles per row of the montage.
PER_ROW = 5


@dataclass(frozen=True)
class Seen:
    """A plate as a model family sees it, laid out for the page.

    Attributes
    ----------
    original : PIL.Image.Image
        The plate with each tile's box outlined (PIL RGB, sRGB 0-255).
    view : PIL.Image.Image
        The tiles side by side (PIL RGB, exact pixels).
    summary : str
        Markdown: seen size, tiles, share cropped away, figure cut, ΔE2000 after the view and as drawn.
    """

    original: Image.Image
    view: Image.Image
    summary: str


def family_choices() -> list[str]:
    """The dropdown's choices: `OFF`, then every view family."""
    return [OFF, *FAMILIES]


def outlined(image: Image.Image, boxes, width: int = 2) -> Image.Image:
    """A copy of ``image`` with each box outlined in `OUTLINE` (magenta).

    Parameters
    ----------
    image : PIL.Image.Image
        The plate (sRGB 0-255).
    boxes : iterable of (float, float, float, float)
        (left, top, right, bottom) in input pixels.
    width : int
        Line width, px.

    Returns
    -------
    PIL.Image.Image
        RGB.
    """
    out = image.convert("RGB").copy()
    draw = ImageDraw.Draw(out)
    for left, top, right, bottom in boxes:
        draw.rectangle((round(left), round(top), max(round(left), round(right) - 1),
                        max(round(top), round(bottom) - 1)), outline=OUTLINE, width=width)
    return out


def montage(tiles, gap: int = 6) -> Image.Image:
    """Tiles in order, `PER_ROW` per row on white, ``gap`` px apart.

    Parameters
    ----------
    tiles : sequence of numpy.ndarray
        (h, w, 3) uint8 sRGB 0-255 arrays.
    gap : int
        Space between tiles, px.

    Returns
    -------
    PIL.Image.Image
        RGB.
    """
    rows = [tiles[i:i + PER_ROW] for i in range(0, len(tiles), PER_ROW)]
    width = max(sum(t.shape[1] for t in row) + gap * (len(row) - 1) for row in rows)
    height = sum(max(t.shape[0] for t in row) for row in rows) + gap * (len(rows) - 1)
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    y = 0
    for row in rows:
        x = 0
        for t in row:
            canvas.paste(Image.fromarray(t, "RGB"), (x, y))
            x += t.shape[1] + gap
        y += max(t.shape[0] for t in row) + gap
    return canvas


def seen_by(spec: PlateSpec, family: str) -> Seen | None:
    """The plate of ``spec`` as ``family``'s model sees it.

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    family : str
        A view family (`plates.models.views.FAMILIES`), or `OFF` / "" / None for none.

    Returns
    -------
    Seen or None
        The outlined plate, the tiles and the summary (`plates.models.views.measure`); None for `OFF`.

    Raises
    ------
    ValueError
        An unknown family (listing the known ones) or a plate the family refuses.
    """
    if family in (None, "", OFF):
        return None
    plate = render(spec)
    view = see(plate.image, family)
    cols = measure_view(plate.image, family, plate_regions(plate), seed=spec.seed)
    drawn = plate.delta_e_drawn
    plan = view.plan
    cut = {True: "**yes**", False: "no", None: "n/a"}[cols["view_figure_cut"]]
    de, de05 = cols["view_delta_e_median"], cols["view_delta_e_p05"]
    lines = [
        f"**{family}** sees {plan.seen_size[0]} × {plan.seen_size[1]} px of this {spec.size} × {spec.size} px "
        f"plate in {cols['view_tiles']} image(s); cropped away: {cols['view_cropped_fraction']:.1%}; "
        f"figure cut: {cut}.",
        f"ΔE2000 figure vs ground (median / 5th percentile): after the view "
        f"{'n/a' if de is None else f'{de:.1f} / {de05:.1f}'}; as drawn "
        f"{'n/a' if drawn is None else f'{drawn.median:.1f} / {drawn.p05:.1f}'}.",
        f"Processor: {plan.processor}." + (f" {plan.note}." if plan.note else ""),
    ]
    return Seen(outlined(plate.image, plan.boxes), montage(list(view.images)), "\n\n".join(lines))


def blank() -> Image.Image:
    """A 1 x 1 white image (what the view's image boxes show when no family is chosen)."""
    return Image.fromarray(np.full((1, 1, 3), 255, np.uint8), "RGB")
