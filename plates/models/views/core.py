"""The geometry of a view: what an image processor does to an image's pixels, as a plan of plain operations.

A `ViewPlan` is computed from the input's size alone (no pixels): one `Tile` per image the model's encoder
receives, in the processor's order, each a short chain of operations on the input (resize with a named Pillow
filter, crop, pad onto a canvas). `ViewPlan.apply` runs the chains on the pixels (sRGB 0-255, uint8) and
`ViewPlan.apply_mask` runs the same geometry on a boolean mask (nearest neighbour, padding False), so a
stimulus's figure and ground masks follow its pixels into the view.

Every resize is Pillow's ``Image.resize`` on 8-bit RGB, which is what transformers' PIL-backed image processors
run before they rescale to 0-1 and normalise (``transformers.image_transforms.resize``): a view de-normalised
back to 8 bits is these pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from plates.models.views.tvresize import resize_uint8

__all__ = ["FILTERS", "Tile", "ViewPlan", "apply_op", "as_rgb", "union_area"]

#: Resampling filter name -> Pillow filter (the codes a ``preprocessor_config.json`` stores as ``resample``).
FILTERS: dict[str, Image.Resampling] = {
    "nearest": Image.Resampling.NEAREST,  # 0
    "lanczos": Image.Resampling.LANCZOS,  # 1
    "bilinear": Image.Resampling.BILINEAR,  # 2
    "bicubic": Image.Resampling.BICUBIC,  # 3
}

Box = tuple[float, float, float, float]  # (left, top, right, bottom), input pixels


@dataclass(frozen=True)
class Tile:
    """One image the encoder receives.

    ops: the chain from the input, each ``("resize", width, height, filter)``, ``("crop", left, top, right,
    bottom)`` (integer pixels of the image at that step) or ``("pad", width, height, x, y, (r, g, b))`` (the
    image placed at (x, y) on a canvas of that size filled with an sRGB 0-255 colour). size: (width, height)
    of the result. box: (left, top, right, bottom), the part of the input this tile shows, in input pixels.

    Attributes
    ----------
    ops : tuple of tuple
        The chain from the input (above).
    size : (int, int)
        (width, height) of the result.
    box : (float, float, float, float)
        (left, top, right, bottom): the part of the input this tile shows, input px.
    """

    ops: tuple[tuple, ...]
    size: tuple[int, int]
    box: Box


@dataclass(frozen=True)
class ViewPlan:
    """What a family's processor makes of an image of ``input_size`` (width, height).

    tiles: the encoder's images, in the processor's order. seen_size: (width, height) of the finest image of
    the input content the model receives (padding excluded; for tiling families the canvas the tiles are cut
    from). processor: what this geometry reproduces (class and configuration, or a provider's published rule).
    exact: True when it reproduces the processor's pixels; False when a provider publishes only the geometry
    (its resampling filter is then Pillow's bicubic, an assumption). note: anything a reader must know.

    Attributes
    ----------
    family : str
        The view family.
    input_size : (int, int)
        (width, height) of the input.
    tiles : tuple of Tile
        The encoder's images, in the processor's order.
    seen_size : (int, int)
        (width, height) of the finest image of the input content the model receives.
    processor : str
        What this geometry reproduces.
    exact : bool
        Whether it reproduces the processor's pixels.
    note : str
        Anything a reader must know.
    extra : dict
        Family-specific values (a provider's tile count).
    """

    family: str
    input_size: tuple[int, int]
    tiles: tuple[Tile, ...]
    seen_size: tuple[int, int]
    processor: str
    exact: bool = True
    note: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def seen_pixels(self) -> int:
        """Pixels of the input's content the model sees at its finest scale (`seen_size` width x height)."""
        return int(self.seen_size[0] * self.seen_size[1])

    @property
    def boxes(self) -> tuple[Box, ...]:
        """Each tile's (left, top, right, bottom) in input pixels."""
        return tuple(t.box for t in self.tiles)

    @property
    def cropped_fraction(self) -> float:
        """Share (0-1) of the input's area that no tile shows (a centre crop's cut-off margins)."""
        w, h = self.input_size
        return max(0.0, 1.0 - union_area(self.boxes, w, h) / float(w * h))

    def apply(self, image) -> tuple[np.ndarray, ...]:
        """The tiles' pixels: one (height, width, 3) uint8 sRGB 0-255 array per tile, in order.

        Parameters
        ----------
        image : PIL.Image.Image or numpy.ndarray
            The input, of `input_size`; an array is (height, width, 3) uint8 sRGB 0-255.

        Raises
        ------
        ValueError
            When the image's size is not the plan's `input_size`.
        """
        rgb = as_rgb(image)
        self._check_size(rgb.size)
        return tuple(np.asarray(img) for img in self._run(rgb, mask=False))

    def apply_mask(self, mask) -> tuple[np.ndarray, ...]:
        """A (height, width) boolean mask of the input carried through the same geometry: one boolean array per
        tile (nearest-neighbour resampling; padding is False).

        Parameters
        ----------
        mask : array_like of bool, shape (height, width)
            A mask of the input.

        Returns
        -------
        tuple of numpy.ndarray of bool
            One per tile.

        Raises
        ------
        ValueError
            For a mask that is not 2-D or not the plan's input size.
        """
        arr = np.asarray(mask)
        if arr.ndim != 2:
            raise ValueError(f"mask of shape {arr.shape} is not valid; allowed: (height, width) booleans")
        self._check_size((arr.shape[1], arr.shape[0]))
        img = Image.fromarray(np.where(arr.astype(bool), 255, 0).astype(np.uint8), mode="L")
        return tuple(np.asarray(t) > 127 for t in self._run(img, mask=True))

    def _check_size(self, size) -> None:
        if tuple(size) != tuple(self.input_size):
            raise ValueError(f"image of size {tuple(size)} is not valid for this plan; allowed: "
                             f"{tuple(self.input_size)} (width, height)")

    def _run(self, img: Image.Image, *, mask: bool) -> list[Image.Image]:
        memo: dict[tuple, Image.Image] = {(): img}
        out = []
        for tile in self.tiles:
            for i in range(1, len(tile.ops) + 1):
                key = tile.ops[:i]
                if key not in memo:
                    memo[key] = apply_op(memo[tile.ops[: i - 1]], tile.ops[i - 1], mask=mask)
            out.append(memo[tile.ops])
        return out


def apply_op(img: Image.Image, op: tuple, *, mask: bool) -> Image.Image:
    """One operation of a `Tile` chain on a Pillow image (``mask``: nearest neighbour, padding 0). A resize filter
    named ``tv-<filter>`` is torch's antialiased uint8 resize (`plates.models.views.tvresize`), the others Pillow's.

    Parameters
    ----------
    img : PIL.Image.Image
        The image at this step.
    op : tuple
        One operation of a `Tile` chain.
    mask : bool
        Whether ``img`` is a mask.

    Returns
    -------
    PIL.Image.Image
        The result.

    Raises
    ------
    ValueError
        For an unknown operation or a crop outside the image.
    """
    kind = op[0]
    if kind == "resize":
        _, w, h, name = op
        if img.size == (w, h) and mask:
            return img
        if name.startswith("tv-") and not mask:  # torch's antialiased uint8 kernel (a fast processor's resize)
            return Image.fromarray(resize_uint8(np.asarray(img), (w, h), name[3:]), mode=img.mode)
        return img.resize((w, h), resample=Image.Resampling.NEAREST if mask else FILTERS[name])
    if kind == "crop":
        _, left, top, right, bottom = op
        if left < 0 or top < 0 or right > img.size[0] or bottom > img.size[1]:
            raise ValueError(f"crop {op[1:]} falls outside an image of size {img.size}")
        return img.crop((left, top, right, bottom))
    if kind == "pad":
        _, w, h, x, y, fill = op
        canvas = Image.new(img.mode, (w, h), 0 if mask else tuple(fill))
        canvas.paste(img, (x, y))
        return canvas
    raise ValueError(f"operation {kind!r} is not valid; allowed: resize, crop, pad")


def as_rgb(image) -> Image.Image:
    """An RGB Pillow image from a Pillow image or an (height, width, 3) uint8 sRGB 0-255 array.

    Transparency is composited onto white, as transformers' ``convert_to_rgb`` does; grey and palette images are
    converted to RGB.

    Parameters
    ----------
    image : PIL.Image.Image or numpy.ndarray
        sRGB 0-255.

    Returns
    -------
    PIL.Image.Image
        RGB.

    Raises
    ------
    ValueError
        For an array that is not (height, width, 3) uint8.
    """
    if isinstance(image, Image.Image):
        if "A" in image.getbands() or image.info.get("transparency") is not None:
            rgba = image.convert("RGBA")
            return Image.alpha_composite(Image.new("RGBA", rgba.size, (255, 255, 255, 255)), rgba).convert("RGB")
        return image.convert("RGB")
    arr = np.asarray(image)
    if arr.ndim != 3 or arr.shape[2] != 3 or arr.dtype != np.uint8:
        raise ValueError(f"image array {arr.shape} {arr.dtype} is not valid; allowed: (height, width, 3) uint8 "
                         "sRGB 0-255 or a PIL image")
    return Image.fromarray(arr, mode="RGB")


def union_area(boxes, width: int, height: int) -> float:
    """Area of the union of (left, top, right, bottom) boxes clipped to a ``width`` x ``height`` image.

    Parameters
    ----------
    boxes : iterable of (float, float, float, float)
        (left, top, right, bottom), px.
    width, height : int
        The image's size, px.

    Returns
    -------
    float
        px².

    Examples
    --------
    >>> union_area([(0, 0, 10, 10), (5, 0, 15, 10)], 20, 20)
    150.0
    """
    clipped = [(max(0.0, a), max(0.0, b), min(float(width), c), min(float(height), d)) for a, b, c, d in boxes]
    clipped = [b for b in clipped if b[2] > b[0] and b[3] > b[1]]
    xs = sorted({v for b in clipped for v in (b[0], b[2])})
    area = 0.0
    for x0, x1 in zip(xs, xs[1:]):
        spans = sorted((b[1], b[3]) for b in clipped if b[0] <= x0 and b[2] >= x1)
        covered, end = 0.0, -1.0
        for top, bottom in spans:
            if bottom > end:
                covered += bottom - max(top, end)
                end = bottom
        area += covered * (x1 - x0)
    return float(area)
