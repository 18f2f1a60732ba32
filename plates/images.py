"""PIL images <-> base64 PNG data URLs, the form OpenAI-compatible chat APIs take images in.

Images are PIL RGB (sRGB 0-255); PNG is lossless, so a plate arrives at the model pixel-exact. A stored PNG whose
pixels nothing changed travels as the bytes it was stored as (:class:`StoredPng`): decoding it and encoding the
same pixels again was half of an API client's CPU per request.
"""

from __future__ import annotations

import base64
import binascii
import io
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from isal import isal_zlib
from PIL import Image, PngImagePlugin

_PNG_PREFIX = "data:image/png;base64,"
#: zlib levels `encode_png` hands to ISA-L's deflate (``isal_zlib``, the same level number): 1-3. Level 0 (stored,
#: uncompressed) and 4-9 stay with the standard library's zlib.
ISAL_LEVELS = range(1, 4)
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: PNG chunks that make a decoder show other colours than the stored 8-bit samples (a palette, transparency,
#: gamma, chromaticities, an ICC profile, significant bits, HDR metadata): a file carrying one is not sent as is.
_COLOUR_CHUNKS = frozenset({b"PLTE", b"tRNS", b"gAMA", b"cHRM", b"iCCP", b"sBIT", b"cICP", b"mDCV", b"cLLI"})


def png_chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, ``kind`` (e.g. ``b"IDAT"``), ``data`` and the CRC-32 of kind and data (PNG
    specification, 3rd ed., §5.3).

    Nothing is checked: the caller passes a valid chunk type and data under 2**31 bytes.

    Parameters
    ----------
    kind : bytes
        The 4-byte chunk type, e.g. ``b"IHDR"``, ``b"IDAT"``, ``b"IEND"``.
    data : bytes
        The chunk's data (may be empty).

    Returns
    -------
    bytes
        The chunk: the data's length (4 bytes, big-endian), ``kind``, ``data``, then the CRC-32 of ``kind`` and
        ``data`` (4 bytes, big-endian).

    Examples
    --------
    >>> png_chunk(b"IEND", b"").hex()
    '0000000049454e44ae426082'
    """
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(image: Image.Image | np.ndarray, compress_level: int = 2) -> bytes:
    """An RGB image (PIL, or a (H, W, 3) uint8 array: sRGB 0-255) as PNG bytes: 8-bit sRGB (with an sRGB
    chunk), no row filters, deflate at ``compress_level`` (0-9).

    Pillow's encoder spends most of its time choosing row filters; Ishihara plates (flat dots, every jittered
    dot a different colour) gain nothing from them, so rows are left unfiltered. Levels 1-3 (`ISAL_LEVELS`:
    sets are written at 2, the explorer at 1) deflate with ISA-L (``isal_zlib``, Intel's assembly deflate),
    its bytes larger on jittered plates (HueManity style) and the same size on flat ones (CBE); the measured
    speeds and sizes are on docs/benchmarks.md ("Figures moved from docstrings"). Level 0 (stored) and 4-9 use the standard library's zlib. Either way the stream is standard zlib/deflate:
    any PNG reader decodes the same pixels; only the compressed bytes depend on the encoder (as they always
    did on the zlib build). An array is encoded as it is (no copy out of PIL): the same bytes as its PIL image.

    Parameters
    ----------
    image : PIL.Image.Image or numpy.ndarray
        RGB, or (H, W, 3) uint8 sRGB 0-255.
    compress_level : int, optional
        Deflate level, 0-9.

    Returns
    -------
    bytes
        The PNG file.

    Raises
    ------
    ValueError
        For an array of another shape or dtype.
    """
    if isinstance(image, np.ndarray):
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError(f"an array of shape {image.shape} and dtype {image.dtype} is not valid; allowed: "
                             "(H, W, 3) uint8 sRGB 0-255")
        pixels = image
    else:
        pixels = np.asarray(image if image.mode == "RGB" else image.convert("RGB"))
    h, w = pixels.shape[:2]
    rows = np.empty((h, 3 * w + 1), dtype=np.uint8)
    rows[:, 0] = 0  # filter type None
    rows[:, 1:] = pixels.reshape(h, 3 * w)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit truecolour, deflate, no interlace
    return b"".join((
        b"\x89PNG\r\n\x1a\n", png_chunk(b"IHDR", ihdr), png_chunk(b"sRGB", b"\x00"),
        png_chunk(b"IDAT", _deflate(rows, compress_level)), png_chunk(b"IEND", b""),
    ))


def _deflate(data: np.ndarray, level: int) -> bytes:
    """``data`` as a zlib stream at ``level``: ISA-L for `ISAL_LEVELS`, the standard library's zlib otherwise."""
    if level in ISAL_LEVELS:
        return isal_zlib.compress(data, level)
    return zlib.compress(data, level)


def plain_rgb_png(data: bytes) -> bool:
    """True when PNG ``data`` decodes to exactly its own 8-bit RGB samples, sRGB 0-255: 8-bit truecolour
    without alpha (IHDR bit depth 8, colour type 2) and no chunk of `_COLOUR_CHUNKS`. Walks the chunk headers
    only (no decompression, no CRC check: a corrupt file fails where it is decoded).

    Parameters
    ----------
    data : bytes
        A PNG file.

    Returns
    -------
    bool
        Whether its samples are plain 8-bit RGB.

    Examples
    --------
    >>> plain_rgb_png(encode_png(Image.new("RGB", (2, 2))))
    True
    >>> plain_rgb_png(image_to_png_bytes(Image.new("RGBA", (2, 2))))
    False
    """
    if not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR" or data[24:26] != b"\x08\x02":
        return False
    pos = len(_PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        if kind in _COLOUR_CHUNKS:
            return False
        if kind == b"IEND":
            return True
        pos += 12 + length
    return False


class StoredPng(PngImagePlugin.PngImageFile):
    """A PIL image (mode RGB, sRGB 0-255) that keeps the PNG bytes it was stored as, so they can be sent as
    they are (`image_to_png_bytes` returns them). It decodes lazily like any opened image: size and mode are
    known from the header, the pixels are decoded the first time something reads them, never to send them.

    ``stored`` holds the bytes while they describe the image: an in-place edit (``paste``, ``putpixel``,
    ``ImageDraw``: every edit that goes through Pillow's ``_ensure_mutable``) drops them, and the image is then
    encoded like any other. Operations that return a new image (``convert``, ``resize``, ``copy``) return plain
    PIL images. Pickled, it travels as its bytes.

    Parameters
    ----------
    data : bytes
        A plain 8-bit RGB PNG (`plain_rgb_png`).

    Raises
    ------
    ValueError
        For another PNG (palette, transparency or colour chunks).
    """

    def __init__(self, data: bytes) -> None:
        if not isinstance(data, bytes) or not plain_rgb_png(data):
            raise ValueError("StoredPng takes the bytes of an 8-bit RGB PNG without palette, transparency or colour "
                             "profile chunks; allowed: such bytes (other PNGs are decoded: see StoredPng.read)")
        super().__init__(io.BytesIO(data))
        self.stored: bytes | None = data

    @classmethod
    def read(cls, path: str | os.PathLike) -> Image.Image:
        """The image stored at ``path``: a :class:`StoredPng` when the file is a plain 8-bit RGB PNG
        (`plain_rgb_png`), else the file decoded and converted to RGB (any format Pillow reads).

        Parameters
        ----------
        path : str or os.PathLike
            An image file.

        Returns
        -------
        PIL.Image.Image
            RGB, sRGB 0-255.
        """
        with open(path, "rb") as fh:
            return cls.from_bytes(fh.read())

    @classmethod
    def from_bytes(cls, data: bytes) -> Image.Image:
        """Stored image bytes (a file's, a Parquet set's) as `read` makes them an image.

        Parameters
        ----------
        data : bytes
            An image file's bytes.

        Returns
        -------
        PIL.Image.Image
            RGB, sRGB 0-255.
        """
        if plain_rgb_png(data):
            return cls(data)
        with Image.open(io.BytesIO(data)) as im:
            return im.convert("RGB")

    @classmethod
    def of(cls, image: Image.Image, compress_level: int = 2) -> StoredPng:
        """``image`` (sRGB 0-255) encoded once (`image_to_png_bytes`), as a :class:`StoredPng`.

        Parameters
        ----------
        image : PIL.Image.Image
            sRGB 0-255.
        compress_level : int, optional
            Deflate level, 0-9.

        Returns
        -------
        StoredPng
            The image with its bytes.
        """
        if isinstance(image, StoredPng) and image.stored is not None:
            return image
        return cls(image_to_png_bytes(image.convert("RGB") if image.mode != "RGB" else image,
                                      compress_level=compress_level))

    def _ensure_mutable(self) -> None:  # Pillow calls it before every in-place edit
        self.stored = None
        super()._ensure_mutable()

    def __reduce__(self) -> tuple[Any, ...]:
        if self.stored is not None:
            return (StoredPng, (self.stored,))
        return self.copy().__reduce__()


def png_intact(path: str | os.PathLike, size: tuple[int, int]) -> bool:
    """Whether ``path`` is a whole PNG of ``size`` (width, height in pixels): the signature, every chunk's
    length and CRC-32, an IHDR of that size first and IEND last, nothing after it. Cheap (no inflate): what a
    resume uses to tell a finished image from an empty, truncated, damaged or foreign file with the right name.

    Parameters
    ----------
    path : str or os.PathLike
        A file.
    size : (int, int)
        (width, height), px.

    Returns
    -------
    bool
        Whether it is a whole PNG of that size.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> folder = Path(tempfile.mkdtemp())
    >>> n = (folder / "a.png").write_bytes(encode_png(Image.new("RGB", (4, 3))))
    >>> png_intact(folder / "a.png", (4, 3)), png_intact(folder / "a.png", (3, 3))
    (True, False)
    >>> _ = (folder / "a.png").write_bytes((folder / "a.png").read_bytes()[:-5])  # truncated
    >>> png_intact(folder / "a.png", (4, 3))
    False
    """
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return False
    at, first = 8, True
    while at + 12 <= len(data):
        (length,) = struct.unpack_from(">I", data, at)
        kind = data[at + 4:at + 8]
        end = at + 12 + length
        if end > len(data):
            return False
        body = data[at + 4:at + 8 + length]
        if struct.unpack_from(">I", data, at + 8 + length)[0] != zlib.crc32(body) & 0xFFFFFFFF:
            return False
        if first and (kind != b"IHDR" or length < 8 or struct.unpack_from(">II", data, at + 8) != tuple(size)):
            return False
        first, at = False, end
        if kind == b"IEND":
            return at == len(data)
    return False


def image_to_png_bytes(image: Image.Image, *, compress_level: int = 6) -> bytes:
    """Encode a PIL image (sRGB 0-255) as PNG bytes; modes other than RGB/RGBA/L/LA are converted to RGB.
    A :class:`StoredPng` gives its stored bytes as they are (``compress_level`` does not apply); other RGB
    images (every plate and condition) go through `encode_png`; the rest through Pillow.

    Parameters
    ----------
    image : PIL.Image.Image
        sRGB 0-255.
    compress_level : int, optional
        Deflate level, 0-9.

    Returns
    -------
    bytes
        The PNG file.

    Raises
    ------
    ValueError
        For something that is not a PIL image, or a level outside 0-9.
    """
    if not isinstance(image, Image.Image):
        raise ValueError(f"expected a PIL image, got {type(image).__name__}")
    if not 0 <= compress_level <= 9:
        raise ValueError(f"compress_level must be within 0-9, got {compress_level!r}")
    if isinstance(image, StoredPng) and image.stored is not None:
        return image.stored
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGB")
    if image.mode == "RGB":
        return encode_png(image, compress_level)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=compress_level)
    return buffer.getvalue()


def image_to_data_url(image: Image.Image, *, compress_level: int = 6) -> str:
    """A PIL image (sRGB 0-255) as a ``data:image/png;base64,...`` URL.

    Parameters
    ----------
    image : PIL.Image.Image
        sRGB 0-255.
    compress_level : int, optional
        Deflate level, 0-9.

    Returns
    -------
    str
        The URL.

    Raises
    ------
    ValueError
        As `image_to_png_bytes`.
    """
    return _PNG_PREFIX + base64.b64encode(image_to_png_bytes(image, compress_level=compress_level)).decode("ascii")


def data_url_to_image(url: str) -> Image.Image:
    """Decode a ``data:image/<type>;base64,...`` URL into a PIL image (loaded, in its stored mode).

    Parameters
    ----------
    url : str
        A ``data:image/<type>;base64,...`` URL.

    Returns
    -------
    PIL.Image.Image
        The image, in its stored mode.

    Raises
    ------
    ValueError
        For another URL or an invalid base64 payload.
    """
    if not isinstance(url, str) or not url.startswith("data:image/") or ";base64," not in url:
        shown = url[:40] + "..." if isinstance(url, str) and len(url) > 40 else url
        raise ValueError(f"not a base64 image data URL: {shown!r}; expected 'data:image/<type>;base64,<data>'")
    payload = url.split(";base64,", 1)[1]
    try:
        raw = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"the data URL's base64 payload is invalid: {exc}") from exc
    image = Image.open(io.BytesIO(raw))
    image.load()
    return image
