"""Torch's antialiased resize of 8-bit images, in numpy: what transformers' torchvision-backed ("fast") image
processors run.

A fast processor resizes the uint8 tensor with ``torchvision.transforms.v2.functional.resize(..., antialias=True)``
(``transformers.image_processing_backends.TorchvisionBackend.resize``). On CPU, torchvision keeps uint8 for
bicubic and Lanczos (and for bilinear where the CPU has AVX2) and calls ``torch.nn.functional.interpolate``
(``_upsample_bicubic2d_aa`` and friends; bilinear without AVX2 goes through float32 and rounds, within one
level of this), whose uint8 kernel is Pillow-SIMD's separable convolution with one
difference that matters: the filter weights are fixed-point int16 with a per-axis precision (14-17 bits for
the views' sizes, the most that keeps the largest weight below 2**15) where Pillow uses 22 bits. So the two agree on the filter,
the support and the rounding of the box, and differ by a level wherever a sum lands near a half level.

The steps, per axis (horizontal first, into an 8-bit buffer, then vertical; an axis whose size does not change is
not resampled):

- ``scale = in / out``, ``support = r * max(scale, 1)`` (r = 1 bilinear, 2 bicubic, 3 Lanczos);
- output pixel ``i``: ``center = scale * (i + 0.5)``, inputs ``xmin = max(int(center - support + 0.5), 0)`` up
  to ``min(int(center + support + 0.5), in)``, weights ``filter((j + xmin - center + 0.5) / max(scale, 1))``
  normalised to sum 1 (float64);
- precision ``p``: the first ``p`` (0-21) with ``int(0.5 + w_max * 2**(p + 1)) >= 2**15``, else 22; weights
  ``int(w * 2**p ± 0.5)`` (rounded half away from zero);
- ``out = clip((2**(p - 1) + sum(src * w)) >> p, 0, 255)``.

Filters: bilinear ``max(0, 1 - |x|)``; bicubic Keys with a = -0.5 (torch's antialiased bicubic, as Pillow's);
Lanczos ``sinc(x) sinc(x / 3)`` for ``|x| < 3``.

References
----------
PyTorch ``aten/src/ATen/native/cpu/UpSampleKernel.cpp`` (``_compute_index_ranges_int16_weights``,
``HelperInterpCubic::aa_filter``) and ``UpSampleKernelAVXAntialias.h``; torchvision 0.29
``transforms/v2/functional/_geometry.py`` (``resize_image``, ``_do_native_uint8_resize_on_cpu``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["TV_FILTERS", "axis_weights", "resize_uint8"]


def _bilinear(x: np.ndarray) -> np.ndarray:
    return np.maximum(0.0, 1.0 - np.abs(x))


def _bicubic(x: np.ndarray, a: float = -0.5) -> np.ndarray:
    x = np.abs(x)
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def _lanczos(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < 3.0, np.sinc(x) * np.sinc(x / 3.0), 0.0)


#: filter name -> (function, support radius in input pixels at scale 1)
TV_FILTERS = {"bilinear": (_bilinear, 1.0), "bicubic": (_bicubic, 2.0), "lanczos": (_lanczos, 3.0)}


def axis_weights(n_in: int, n_out: int, name: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Torch's int16 antialiasing weights for resampling one axis from ``n_in`` to ``n_out`` pixels.

    Parameters
    ----------
    n_in, n_out : int
        Pixels before and after (>= 1).
    name : str
        A filter in `TV_FILTERS`.

    Returns
    -------
    index : numpy.ndarray
        (n_out, k) int64 input positions (clipped into range where a row has fewer than k taps; their weight is 0).
    weight : numpy.ndarray
        (n_out, k) int64 fixed-point weights.
    precision : int
        Fractional bits of the weights.

    Raises
    ------
    ValueError
        An unknown filter name (the error lists the known ones), or a size below 1.
    """
    if name not in TV_FILTERS:
        raise ValueError(f"filter {name!r} is not valid; allowed: {', '.join(TV_FILTERS)}")
    if n_in < 1 or n_out < 1:
        raise ValueError(f"sizes {n_in} -> {n_out} are not valid; allowed: integers >= 1 (pixels)")
    fn, radius = TV_FILTERS[name]
    scale = n_in / n_out
    support = radius * scale if scale >= 1.0 else radius
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    center = scale * (np.arange(n_out) + 0.5)
    xmin = np.maximum((center - support + 0.5).astype(np.int64), 0)  # C cast: truncation toward zero
    xmax = np.minimum((center + support + 0.5).astype(np.int64), n_in)
    k = int((xmax - xmin).max())
    j = np.arange(k)
    taps = j[None, :] < (xmax - xmin)[:, None]
    w = np.where(taps, fn((j[None, :] + xmin[:, None] - center[:, None] + 0.5) * invscale), 0.0)
    total = w.sum(axis=1, keepdims=True)
    w = np.divide(w, total, out=np.zeros_like(w), where=total != 0)
    w_max = float(w.max())
    precision = 0
    while precision < 22 and int(0.5 + w_max * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    v = w * (1 << precision)
    w16 = np.where(v < 0, np.trunc(v - 0.5), np.trunc(v + 0.5)).astype(np.int64)
    index = np.minimum(xmin[:, None] + j[None, :], n_in - 1)
    return index, w16, precision


def _resample_axis(arr: np.ndarray, n_out: int, name: str, axis: int) -> np.ndarray:
    index, weight, precision = axis_weights(arr.shape[axis], n_out, name)
    src = np.moveaxis(arr, axis, 0).astype(np.int64)  # (n_in, other, channels)
    acc = np.full((n_out,) + src.shape[1:], 1 << (precision - 1) if precision else 0, dtype=np.int64)
    extra = (slice(None),) + (None,) * (src.ndim - 1)
    for t in range(index.shape[1]):
        acc += src[index[:, t]] * weight[:, t][extra]
    out = np.clip(acc >> precision, 0, 255).astype(np.uint8)
    return np.moveaxis(out, 0, axis)


def resize_uint8(image: np.ndarray, size: tuple[int, int], name: str) -> np.ndarray:
    """Resize an (height, width, channels) uint8 image as torch's antialiased uint8 kernel does.

    Parameters
    ----------
    image : numpy.ndarray
        (height, width, channels) uint8, e.g. sRGB 0-255.
    size : tuple of int
        (width, height) of the result, each >= 1.
    name : str
        ``"bilinear"``, ``"bicubic"`` or ``"lanczos"``.

    Returns
    -------
    numpy.ndarray
        (height, width, channels) uint8.

    Raises
    ------
    ValueError
        An image that is not (height, width, channels) uint8, or a bad size or filter name.

    Examples
    --------
    >>> ramp = np.arange(0, 256, 32, dtype=np.uint8).reshape(1, 8, 1).repeat(2, axis=0)
    >>> resize_uint8(ramp, (4, 1), "bilinear")[..., 0].tolist()
    [[23, 80, 144, 201]]
    """
    arr = np.asarray(image)
    if arr.ndim != 3 or arr.dtype != np.uint8:
        raise ValueError(f"image {arr.shape} {arr.dtype} is not valid; allowed: (height, width, channels) uint8")
    w, h = (int(v) for v in size)
    if w < 1 or h < 1:
        raise ValueError(f"size {size!r} is not valid; allowed: (width, height), each an integer >= 1")
    if w != arr.shape[1]:
        arr = _resample_axis(arr, w, name, axis=1)
    if h != arr.shape[0]:
        arr = _resample_axis(arr, h, name, axis=0)
    return arr
