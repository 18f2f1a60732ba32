"""Pixel helpers for the scene tests: an image's distinct colours and a stimulus's PNG digest."""

from __future__ import annotations

import hashlib

import numpy as np

from plates.images import encode_png
from plates.stimuli.base import Stimulus


def unique_colours(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sRGB 0-255 colours of an (h, w, 3) image and how many pixels have each."""
    return np.unique(pixels.reshape(-1, 3), axis=0, return_counts=True)


def png_digest(stim: Stimulus) -> str:
    """SHA-256 of the stimulus image's PNG bytes (`plates.images.encode_png`)."""
    return hashlib.sha256(encode_png(stim.image)).hexdigest()
