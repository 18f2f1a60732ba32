"""Viewing conditions applied to any image (plates or not). Images in and out are PIL RGB, sRGB 0-255.

* `resize`: HueManity §5 resolution ablation (300-1300 px); Lanczos resampling, longest side -> N px.
* `grayscale`: ColorBench §3.2 (Finding 4) / App. M.2 grey-scale inputs; ITU-R BT.601 luma (Pillow's ``convert("L")``),
  returned as RGB with three equal channels.
* `hue_shift`: ColorBench §2.2 / App. C colour robustness rotates hue by 90/180/270 degrees **in HSV**
  (``hue_space="hsv"``, the default, as in the paper); ``hue_space="cielab"`` rotates ``a*b*`` about the ``L*`` axis
  in CIELAB (D65), which keeps lightness and chroma (perceptual), with out-of-gamut colours clipped to sRGB.
* `cvd_view`: protan / deutan / tritan at severity 0-1, Machado et al. (2009) via colour-science, applied in
  linear RGB (`plates.colour.simulate_cvd`).
* `text_only`: ColorBench App. J's text-only control: the image replaced by a black image of the same size
  (sRGB 0-255 (0, 0, 0)), so a model answers from the question and options alone.

`apply_condition` runs them in a fixed order: hue shift, CVD view, grayscale, resize; a text-only condition
returns the black image of the size the others would have produced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image

from plates import colour as C
from plates.colour.spaces import colour_science
from plates.validation import check_choice, check_number, check_size

__all__ = [
    "Condition",
    "CVD_VIEWS",
    "HUE_SPACES",
    "apply_condition",
    "resize",
    "grayscale",
    "hue_shift",
    "cvd_view",
    "text_only",
]

CVD_VIEWS = ("none", "protan", "deutan", "tritan")
HUE_SPACES = ("hsv", "cielab")


@dataclass(frozen=True)
class Condition:
    """A viewing condition: how an image is changed before a model sees it (`apply_condition`).

    Parameters
    ----------
    size : int or None
        Longest side in px, 16-4096 (HueManity §5's resolution ablation), or None to keep the image's own.
    grayscale : bool
        BT.601 luma grey (ColorBench §3.2, App. M.2).
    hue_shift : float
        Hue rotation in degrees, any finite number (ColorBench §2.2, App. C: 90/180/270).
    cvd : str
        Simulated colour-vision deficiency, one of `CVD_VIEWS` (Machado et al. 2009).
    cvd_severity : float
        Severity of ``cvd``, 0-1.
    hue_space : str
        Where hue is rotated, one of `HUE_SPACES`: ``"hsv"`` (ColorBench) or ``"cielab"`` (``a*b*`` about
        ``L*``, D65).
    text_only : bool
        Replace the image by a black one (sRGB 0-255 (0, 0, 0)) of the same size (ColorBench App. J).

    Raises
    ------
    ValueError
        A field out of its range or of the wrong type (``size`` 8, ``grayscale`` 1, ``hue_shift`` NaN,
        ``cvd_severity`` 2, ``cvd`` or ``hue_space`` not known); the message names the value and what is
        allowed.

    References
    ----------
    HueManity (§5); ColorBench (Liang et al.) §2.2, §3.2, App. C, App. J, App. M.2; Machado, Oliveira and
    Fernandes (2009), *IEEE TVCG* 15(6).

    Examples
    --------
    >>> Condition(size=256, cvd="deutan").is_identity, Condition(hue_shift=360).is_identity
    (False, True)
    """

    size: int | None = None
    grayscale: bool = False
    hue_shift: float = 0.0
    cvd: str = "none"
    cvd_severity: float = 1.0
    hue_space: str = "hsv"
    text_only: bool = False

    def __post_init__(self) -> None:
        check_size("size", self.size, none_ok=True)
        if not isinstance(self.grayscale, bool):
            raise ValueError(f"grayscale={self.grayscale!r} is not valid; allowed: True or False")
        check_number("hue_shift", self.hue_shift, note=" (degrees)")
        check_choice("cvd", self.cvd, CVD_VIEWS)
        check_number("cvd_severity", self.cvd_severity, 0, 1)
        check_choice("hue_space", self.hue_space, HUE_SPACES)
        if not isinstance(self.text_only, bool):
            raise ValueError(f"text_only={self.text_only!r} is not valid; allowed: True or False")

    @property
    def is_identity(self) -> bool:
        """Whether the condition changes nothing whatever the image: no size, no grey, a hue shift that is a
        multiple of 360°, no CVD view (or severity 0) and not text-only."""
        return (
            self.size is None
            and not self.grayscale
            and self.hue_shift % 360 == 0
            and (self.cvd == "none" or self.cvd_severity == 0)
            and not self.text_only
        )


def _rgb(image: Image.Image) -> Image.Image:
    if not isinstance(image, Image.Image):
        raise ValueError(f"image {type(image).__name__} is not valid; allowed: a PIL.Image.Image")
    return image if image.mode == "RGB" else image.convert("RGB")


def resize(image: Image.Image, size: int) -> Image.Image:
    """Scale so the longest side is ``size`` px (aspect kept), Lanczos (HueManity §5's resolution ablation).

    Parameters
    ----------
    image : PIL.Image.Image
        Any mode; read as RGB (sRGB 0-255).
    size : int
        Longest side in px, 16-4096.

    Returns
    -------
    PIL.Image.Image
        RGB, sRGB 0-255; the image itself when its longest side is already ``size``.

    Raises
    ------
    ValueError
        ``size`` is not an integer 16-4096, or ``image`` is not a PIL image.
    """
    check_size("size", size)
    im = _rgb(image)
    new = _fit(im.size, size)
    return im if new == im.size else im.resize(new, Image.Resampling.LANCZOS)


def grayscale(image: Image.Image) -> Image.Image:
    """BT.601 luma grey (Pillow ``convert("L")``) as an RGB image (ColorBench §3.2, App. M.2).

    Parameters
    ----------
    image : PIL.Image.Image
        Any mode; read as RGB (sRGB 0-255).

    Returns
    -------
    PIL.Image.Image
        RGB with three equal channels, sRGB 0-255.

    Raises
    ------
    ValueError
        ``image`` is not a PIL image.
    """
    return _rgb(image).convert("L").convert("RGB")


_SAMPLE = 4096  # pixels looked at to guess an image's distinct colours


def _per_colour(image: Image.Image, fn) -> Image.Image:
    """Apply ``fn`` ((k, 3) float sRGB 0-255 -> (k, 3) float sRGB 0-255, row by row) to every pixel.

    A plate has a handful of colours: ``fn`` then runs once per distinct colour, found as 24-bit RGB ints
    (Pillow's RGBX bytes viewed as little-endian uint32) in a sample of the pixels and looked up with
    ``np.searchsorted``; only when the sample missed a colour are all pixels sorted (``np.unique``). An
    image of many colours (a photo) goes through ``fn`` pixel by pixel. Every path gives the same pixels,
    since ``fn`` treats each row alone.
    """
    im = _rgb(image)
    w, h = im.size
    packed = np.asarray(im.convert("RGBX")).view("<u4").reshape(-1) & np.uint32(0xFFFFFF)
    uniq = np.unique(packed[:: max(1, packed.size // _SAMPLE)])
    if uniq.size > _SAMPLE // 4:  # many colours: deduplicating would not pay
        flat = np.asarray(im, dtype=np.float64).reshape(-1, 3)
        return Image.fromarray(np.clip(np.rint(fn(flat)), 0, 255).astype(np.uint8).reshape(h, w, 3), "RGB")
    index = np.minimum(np.searchsorted(uniq, packed), uniq.size - 1)
    if not np.array_equal(uniq[index], packed):  # colours the sample missed
        uniq = np.unique(packed)
        index = np.searchsorted(uniq, packed)
    cols = np.stack([uniq & 255, (uniq >> 8) & 255, (uniq >> 16) & 255], axis=1).astype(np.float64)
    out = np.clip(np.rint(fn(cols)), 0, 255).astype(np.uint8)
    return Image.fromarray(np.take(out, index, axis=0).reshape(h, w, 3), "RGB")


def hue_shift(image: Image.Image, degrees: float, space: str = "hsv") -> Image.Image:
    """Rotate hue by ``degrees`` in HSV (ColorBench §2.2, App. C) or in CIELAB's ``a*b*`` plane.

    Parameters
    ----------
    image : PIL.Image.Image
        Any mode; read as RGB (sRGB 0-255).
    degrees : float
        Rotation in degrees; a multiple of 360 returns a copy.
    space : str
        ``"hsv"`` (as the paper) or ``"cielab"`` (about the ``L*`` axis, D65: lightness and chroma kept,
        out-of-gamut colours clipped to sRGB).

    Returns
    -------
    PIL.Image.Image
        RGB, sRGB 0-255.

    Raises
    ------
    ValueError
        ``space`` is not one of `HUE_SPACES`, or ``image`` is not a PIL image.
    """
    check_choice("hue space", space, HUE_SPACES)
    if degrees % 360 == 0:
        return _rgb(image).copy()

    def hsv(cols: np.ndarray) -> np.ndarray:
        cs = colour_science()
        h = cs.RGB_to_HSV(cols / 255.0)
        h[:, 0] = (h[:, 0] + degrees / 360.0) % 1.0
        return cs.HSV_to_RGB(h) * 255.0

    def lab(cols: np.ndarray) -> np.ndarray:
        L = C.srgb255_to_lab(cols)
        t = math.radians(degrees)
        a, b = L[:, 1].copy(), L[:, 2].copy()
        L[:, 1] = a * math.cos(t) - b * math.sin(t)
        L[:, 2] = a * math.sin(t) + b * math.cos(t)
        return C.lab_to_srgb255(L)

    return _per_colour(image, hsv if space == "hsv" else lab)


def cvd_view(image: Image.Image, kind: str, severity: float = 1.0) -> Image.Image:
    """What a protan, deutan or tritan observer sees: Machado et al. (2009) via colour-science, in linear RGB
    (`plates.colour.simulate_cvd`).

    Parameters
    ----------
    image : PIL.Image.Image
        Any mode; read as RGB (sRGB 0-255).
    kind : str
        One of `CVD_VIEWS` (``"none"`` returns the same pixels).
    severity : float
        0-1.

    Returns
    -------
    PIL.Image.Image
        RGB, sRGB 0-255.

    Raises
    ------
    ValueError
        ``kind`` is not known, ``severity`` is outside 0-1, or ``image`` is not a PIL image.

    References
    ----------
    Machado, Oliveira and Fernandes (2009), *IEEE TVCG* 15(6): 1291-1298.
    """
    return Image.fromarray(C.simulate_cvd(np.asarray(_rgb(image)), kind, severity), "RGB")


def text_only(image: Image.Image, size: int | None = None) -> Image.Image:
    """ColorBench App. J's text-only control: a black image of ``image``'s size, or of the size `resize` to
    ``size`` px (longest side) would give it.

    Parameters
    ----------
    image : PIL.Image.Image
        Any mode; read as RGB (sRGB 0-255).
    size : int, optional
        Longest side in px (16-4096) the black image takes, as `resize` would give ``image``; None: its own size.

    Returns
    -------
    PIL.Image.Image
        RGB, every pixel sRGB 0-255 (0, 0, 0).

    Raises
    ------
    ValueError
        ``image`` is not a PIL image.
    """
    im = _rgb(image)
    return Image.new("RGB", im.size if size is None else _fit(im.size, size), (0, 0, 0))


def changes_pixels(image: Image.Image, condition: Condition) -> bool:
    """Whether `apply_condition` would give other pixels than ``image``'s own.

    False for an RGB image under no hue shift, no CVD view, no grey, no text-only and a size that is the
    image's own (or None). Reads the size and mode only, so a stored PNG is not decoded to answer
    (`plates.images.StoredPng`).

    Parameters
    ----------
    image : PIL.Image.Image
        The image (RGB, sRGB 0-255, or any mode: another mode always changes).
    condition : Condition

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        ``condition`` is not a `Condition`.
    """
    if not isinstance(condition, Condition):
        raise ValueError(f"condition {condition!r} is not valid; allowed: a plates.conditions.Condition")
    return (image.mode != "RGB" or condition.text_only or condition.hue_shift % 360 != 0 or condition.grayscale
            or (condition.cvd != "none" and condition.cvd_severity > 0)
            or (condition.size is not None and _fit(image.size, condition.size) != image.size))


def _fit(size: tuple[int, int], longest: int) -> tuple[int, int]:
    """(width, height) scaled so the longest side is ``longest`` px, aspect kept."""
    w, h = size
    s = longest / max(w, h)
    return max(1, round(w * s)), max(1, round(h * s))


def apply_condition(image: Image.Image, condition: Condition) -> Image.Image:
    """An image seen under a viewing condition: hue shift, CVD view, grayscale, then resize.

    Parameters
    ----------
    image : PIL.Image.Image
        Any mode; read as RGB (sRGB 0-255).
    condition : Condition

    Returns
    -------
    PIL.Image.Image
        A new RGB image (sRGB 0-255). A text-only condition gives a black image of the size the resize would
        give (nothing else is computed; ColorBench App. J).

    Raises
    ------
    ValueError
        ``condition`` is not a `Condition`.

    References
    ----------
    ColorBench §2.3 (hue rotation in HSV) and App. J (text only); Machado et al. (2009) (CVD views); ITU-R
    BT.601 (grayscale).
    """
    if not isinstance(condition, Condition):
        raise ValueError(f"condition {condition!r} is not valid; allowed: a plates.conditions.Condition")
    im = _rgb(image)
    if condition.text_only:
        return text_only(im, condition.size)
    if condition.hue_shift % 360 != 0:
        im = hue_shift(im, condition.hue_shift, condition.hue_space)
    if condition.cvd != "none" and condition.cvd_severity > 0:
        im = cvd_view(im, condition.cvd, condition.cvd_severity)
    if condition.grayscale:
        im = grayscale(im)
    if condition.size is not None:
        im = resize(im, condition.size)
    return im.copy() if im is image else im
