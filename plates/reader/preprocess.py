"""Image preprocessing of the baseline reader, in numpy/PIL only (shared by training and ONNX inference).

A plate is read from its colour *contrast*, not its absolute hues: the same network must read HueManity's 25
foreground/background pairs (HueManity §3, App. D Table 7), ColorBlindnessEval's five multi-colour sets
(CBE App. D) and random pairs. So each image is normalised on its own:

1. resize to ``size`` x ``size`` (PIL box filter: an area average, so a 900 px plate and a 128 px plate of the
   same spec look alike);
2. convert sRGB 0-255 -> CIELAB (D65, colour-science);
3. take the pixels of the plate's disc (centre 90% of the radius), subtract their median colour (the
   dominant, background colour) and project onto the principal axes of their CIELAB covariance (PCA);
4. whiten each axis by its standard deviation (with a floor of 10% of the largest axis, so an axis holding
   only noise, e.g. a and b of a grayscale plate, is not blown up) and orient it so that its skewness is
   positive: the minority colour (usually the figure) then points the same way on every plate;
5. clip to [-4, 4] and zero everything outside the disc.

Output: float32 (3, size, size), channels = the three principal colour axes, strongest first.

The alternative mode ``"rgb"`` (sRGB 0-255 scaled to about -2..2, no per-image normalisation) is kept for the
experiment that decided between the two (see plates/assets/baseline/MODEL_CARD.md).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image

from plates.colour.spaces import colour_science
from plates.validation import check_choice

#: Side in pixels of the network input.
INPUT_SIZE = 96
#: Radius of the disc used for statistics, as a fraction of half the side.
DISC_FRACTION = 0.9
#: Floor on each axis' standard deviation, as a fraction of the largest one.
STD_FLOOR = 0.1
#: Absolute floor (CIELAB units) on each axis' standard deviation (a flat image stays flat).
STD_MIN = 1.0
CLIP = 4.0


def _srgb255_to_lab(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) sRGB 0-255 -> (..., 3) CIELAB (D65) via colour-science."""
    colour = colour_science()
    return colour.XYZ_to_Lab(colour.sRGB_to_XYZ(rgb / 255.0))


@lru_cache(maxsize=16)
def _disc(size: int, fraction: float) -> np.ndarray:
    """(size, size) bool: inside the centred disc of radius fraction * size / 2 (read-only)."""
    yy, xx = np.mgrid[0:size, 0:size]
    c = (size - 1) / 2.0
    disc = (xx - c) ** 2 + (yy - c) ** 2 <= (fraction * size / 2.0) ** 2
    disc.setflags(write=False)
    return disc


def resize(image: Image.Image, size: int = INPUT_SIZE) -> np.ndarray:
    """PIL image (any mode, any size) -> (size, size, 3) float64 sRGB 0-255 (box-filtered resize)."""
    if not isinstance(image, Image.Image):
        raise ValueError(f"expected a PIL image, got {type(image).__name__}")
    if not 16 <= size <= 1024:
        raise ValueError(f"input size {size} is outside the allowed 16-1024 px")
    rgb = image.convert("RGB")
    if rgb.size != (size, size):
        rgb = rgb.resize((size, size), Image.Resampling.BOX)
    return np.asarray(rgb, dtype=np.float64)


def normalise(rgb: np.ndarray) -> np.ndarray:
    """(S, S, 3) sRGB 0-255 -> (3, S, S) float32 contrast-normalised CIELAB principal axes (module doc)."""
    rgb = np.asarray(rgb, dtype=np.float64)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.shape[0] != rgb.shape[1]:
        raise ValueError(f"expected a square (S, S, 3) sRGB 0-255 array, got shape {rgb.shape}")
    size = rgb.shape[0]
    lab = _srgb255_to_lab(rgb)
    inside = lab[_disc(size, DISC_FRACTION)]  # (n, 3) CIELAB
    centre = np.median(inside, axis=0)
    cov = np.cov((inside - centre).T)
    eigval, eigvec = np.linalg.eigh(cov)  # ascending
    order = np.argsort(eigval)[::-1]
    eigval, eigvec = eigval[order], eigvec[:, order]
    std = np.sqrt(np.maximum(eigval, 0.0))
    std = np.maximum(std, max(STD_FLOOR * std[0], STD_MIN))
    proj = ((lab - centre) @ eigvec) / std  # (S, S, 3)
    inside_proj = proj[_disc(size, DISC_FRACTION)]
    skew = np.mean((inside_proj - inside_proj.mean(axis=0)) ** 3, axis=0)
    proj = proj * np.where(skew < 0, -1.0, 1.0)
    proj = np.clip(proj, -CLIP, CLIP)
    proj[~_disc(size, 1.0)] = 0.0
    return np.ascontiguousarray(proj.transpose(2, 0, 1), dtype=np.float32)


#: Preprocessing modes: per-image contrast normalisation (default) or plain scaled sRGB.
MODES = ("contrast", "rgb")


def scale_rgb(rgb: np.ndarray) -> np.ndarray:
    """(S, S, 3) sRGB 0-255 -> (3, S, S) float32 (rgb - 127.5) / 64 (the "rgb" mode)."""
    rgb = np.asarray(rgb, dtype=np.float32)
    return np.ascontiguousarray(((rgb - 127.5) / 64.0).transpose(2, 0, 1))


def preprocess(image: Image.Image, size: int = INPUT_SIZE, mode: str = "contrast") -> np.ndarray:
    """PIL plate image (sRGB 0-255) -> (3, size, size) float32 network input (see module doc)."""
    check_choice("preprocessing mode", mode, MODES)
    rgb = resize(image, size)
    return normalise(rgb) if mode == "contrast" else scale_rgb(rgb)
