"""PIL images <-> base64 PNG data URLs (plates/images.py): lossless, and bad input named; a stored PNG keeps its
bytes while they describe it, and only a plain 8-bit RGB PNG qualifies."""

from __future__ import annotations

import io
import pickle
import zlib

import numpy as np
import pytest
from isal import isal_zlib
from PIL import Image, ImageDraw

from plates.images import (
    ISAL_LEVELS,
    StoredPng,
    data_url_to_image,
    encode_png,
    image_to_data_url,
    image_to_png_bytes,
    plain_rgb_png,
    png_chunk,
)


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
def test_round_trip_is_pixel_exact(mode):
    pixels = np.random.default_rng(0).integers(0, 256, (17, 23, 3), dtype=np.uint8)  # sRGB 0-255
    image = Image.fromarray(pixels, "RGB").convert(mode)
    url = image_to_data_url(image)
    assert url.startswith("data:image/png;base64,")
    back = data_url_to_image(url)
    assert back.mode == mode and back.tobytes() == image.tobytes()


def test_other_modes_are_sent_as_rgb():
    image = Image.new("P", (4, 4))
    assert data_url_to_image(image_to_data_url(image)).mode == "RGB"


@pytest.mark.parametrize("bad", ["http://example.com/a.png", "data:image/png;base64,@@@", "data:text/plain,hi"])
def test_bad_data_urls_are_named(bad):
    with pytest.raises(ValueError, match="data URL|base64"):
        data_url_to_image(bad)


def test_not_an_image():
    with pytest.raises(ValueError, match="expected a PIL image, got str"):
        image_to_data_url("plate.png")
    with pytest.raises(ValueError, match="compress_level must be within 0-9"):
        image_to_data_url(Image.new("RGB", (2, 2)), compress_level=12)


def _pixels(seed: int = 0) -> Image.Image:
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (12, 20, 3), dtype=np.uint8), "RGB")


def _pillow_png(image: Image.Image, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", **options)
    return buffer.getvalue()


def test_a_stored_png_gives_back_its_own_bytes_and_decodes_to_the_same_pixels():
    image = _pixels()
    data = _pillow_png(image, compress_level=9)  # not what encode_png would write
    stored = StoredPng(data)
    assert stored.size == (20, 12) and stored.mode == "RGB"
    assert image_to_png_bytes(stored) is data
    assert data_url_to_image(image_to_data_url(stored)).tobytes() == image.tobytes()
    assert stored.tobytes() == image.tobytes()
    again = pickle.loads(pickle.dumps(stored))
    assert isinstance(again, StoredPng) and again.stored == data and again.tobytes() == image.tobytes()


@pytest.mark.parametrize("edit", ["paste", "putpixel", "draw"])
def test_an_in_place_edit_drops_the_stored_bytes(edit):
    stored = StoredPng(encode_png(_pixels()))
    if edit == "paste":
        stored.paste((255, 0, 0), (0, 0, 2, 2))
    elif edit == "putpixel":
        stored.putpixel((0, 0), (255, 0, 0))
    else:
        ImageDraw.Draw(stored).point((0, 0), fill=(255, 0, 0))
    assert stored.stored is None
    sent = Image.open(io.BytesIO(image_to_png_bytes(stored)))
    assert sent.getpixel((0, 0)) == (255, 0, 0) and sent.tobytes() == stored.tobytes()
    assert type(pickle.loads(pickle.dumps(stored))) is Image.Image


def test_only_plain_8_bit_rgb_pngs_travel_as_they_are(tmp_path):
    image = _pixels()
    plain = encode_png(image)
    assert plain_rgb_png(plain) and plain_rgb_png(_pillow_png(image))
    others = {
        "rgba": _pillow_png(image.convert("RGBA")),
        "palette": _pillow_png(image.quantize(16)),
        "grey": _pillow_png(image.convert("L")),
        "16-bit": plain[:24] + b"\x10" + plain[25:],  # IHDR bit depth 16 (checked before any CRC)
        "gamma": plain[:33] + png_chunk(b"gAMA", (45455).to_bytes(4, "big")) + plain[33:],  # after IHDR
        "icc": _pillow_png(image, icc_profile=b"\0" * 128),
        "transparency": _pillow_png(image, transparency=(0, 0, 0)),
        "not a png": b"GIF89a",
    }
    for name, data in others.items():
        assert not plain_rgb_png(data), name
    with pytest.raises(ValueError, match="8-bit RGB PNG"):
        StoredPng(others["rgba"])
    (tmp_path / "a.png").write_bytes(others["rgba"])
    read = StoredPng.read(tmp_path / "a.png")  # decoded and converted like before, never sent as stored
    assert type(read) is Image.Image and read.mode == "RGB"
    (tmp_path / "b.png").write_bytes(encode_png(image))
    assert StoredPng.read(tmp_path / "b.png").stored == encode_png(image)


def test_a_changed_image_is_encoded_once():
    image = _pixels()
    once = StoredPng.of(image)
    assert once.tobytes() == image.tobytes() and StoredPng.of(once) is once


def test_an_array_encodes_to_the_bytes_of_its_image():
    """encode_png takes the painter's (H, W, 3) uint8 array as it is: the same PNG as its PIL image, any view."""
    pixels = np.random.default_rng(0).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    assert encode_png(pixels, 2) == encode_png(Image.fromarray(pixels, "RGB"), 2)
    view = np.random.default_rng(1).integers(0, 256, (6, 9, 3), dtype=np.uint8)[::2, 1:8]  # not contiguous
    assert encode_png(view) == encode_png(Image.fromarray(np.ascontiguousarray(view), "RGB"))
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(encode_png(view)))), view)
    for bad in (pixels.astype(np.float32), pixels[..., :2], pixels[..., 0]):
        with pytest.raises(ValueError, match=r"\(H, W, 3\) uint8"):
            encode_png(bad)


@pytest.mark.parametrize("level", range(10))
def test_every_level_is_a_standard_stream_of_the_same_pixels(level):
    """Levels 1-3 deflate with ISA-L, 0 and 4-9 with zlib: either way a standard zlib stream any PNG reader (and
    zlib itself) inflates to the same unfiltered rows, and the same pixels give the same bytes every time."""
    rng = np.random.default_rng(level)
    pixels = np.repeat(rng.integers(0, 256, (12, 5, 3), dtype=np.uint8), 4, axis=1)  # flat runs, like dots
    data = encode_png(pixels, level)
    assert data == encode_png(pixels.copy(), level)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data))), pixels)
    at = data.index(b"IDAT")
    idat = data[at + 4:at + 4 + int.from_bytes(data[at - 4:at], "big")]
    rows = zlib.decompress(idat)
    assert rows == np.concatenate([np.zeros((12, 1), np.uint8), pixels.reshape(12, -1)], axis=1).tobytes()
    compress = isal_zlib.compress if level in ISAL_LEVELS else zlib.compress
    assert idat == compress(rows, level)
