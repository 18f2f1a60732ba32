"""`plates.runs.images.RunImages`: each item's image under each condition prepared once (PIL RGB, sRGB 0-255); a
condition that changes no pixel hands on the image itself; PNG bytes encoded once, a stored file's bytes sent as
they are, the encoded cache bounded."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from PIL import Image

from plates.datasets.presets import preset_items
from plates.images import StoredPng
from plates.runs import images as run_images
from plates.runs.experiment import ConditionSpec
from plates.runs.images import RunImages
from plates.stimuli import render

PLAIN, GREY = ConditionSpec(), ConditionSpec(grayscale=True)


@pytest.fixture(scope="module")
def items():
    return list(itertools.islice(preset_items("colorblindnesseval", size=64), 3))


def test_the_plain_condition_hands_on_the_rendered_image_itself(items):
    images = RunImages(items)
    image = images.get(0, "standard", PLAIN)
    assert images.get(0, "standard", PLAIN) is image and image.mode == "RGB" and image.size == (64, 64)
    np.testing.assert_array_equal(np.asarray(image), np.asarray(render(items[0].spec).variant("standard")))
    assert images.get(0, "standard", ConditionSpec(hue_shift=0.0)) is image  # no pixel changed: the same image


def test_a_changing_condition_is_a_new_image_made_once(items):
    images = RunImages(items)
    plain, grey = images.get(1, "standard", PLAIN), images.get(1, "standard", GREY)
    assert grey is not plain and images.get(1, "standard", GREY) is grey
    pixels = np.asarray(grey).astype(int)
    assert (pixels[..., 0] == pixels[..., 1]).all() and (pixels[..., 1] == pixels[..., 2]).all()
    assert list(images.plates) == [1]  # rendered once for both conditions


def test_png_images_are_encoded_once_and_decode_to_the_same_pixels(items):
    images = RunImages(items)
    grey = images.get(0, "standard", GREY)
    png = images.get(0, "standard", GREY, png=True)
    assert isinstance(png, StoredPng) and png.stored.startswith(b"\x89PNG")
    assert images.get(0, "standard", GREY, png=True) is png
    np.testing.assert_array_equal(np.asarray(StoredPng.from_bytes(png.stored)), np.asarray(grey))


def test_a_stored_plate_is_sent_as_the_files_bytes(items, tmp_path):
    path = tmp_path / "plate.png"
    render(items[2].spec).variant("standard").save(path)
    stored = dataclasses.replace(items[2], path=path)
    image = RunImages([stored]).get(0, stored.variant, PLAIN, png=True)
    assert image.stored == path.read_bytes()


def test_encoded_images_outlive_their_item_for_later_chunks(items):
    images = RunImages(items)
    first = images.get(0, "standard", GREY, png=True)
    images.get(1, "standard", GREY, png=True)
    images.forget_except({1})
    assert images.get(0, "standard", GREY, png=True) is first  # a few-shot example: not encoded again


def test_the_encoded_cache_drops_the_oldest_beyond_its_bytes(items, monkeypatch):
    images = RunImages(items)
    first = images.get(0, "standard", GREY, png=True)
    monkeypatch.setattr(run_images, "ENCODED_CACHE_BYTES", len(first.stored) + 1)
    images.get(1, "standard", GREY, png=True)  # over the budget: the oldest goes
    images.forget_except({1})
    again = images.get(0, "standard", GREY, png=True)
    assert again is not first and again.stored == first.stored  # encoded anew, the same bytes


def test_forget_except_keeps_only_the_items_named(items):
    images = RunImages(items)
    for i in range(3):
        images.get(i, "standard", GREY)
    images.forget_except({2})
    assert list(images.plates) == [2]
    assert isinstance(images.get(2, "standard", GREY), Image.Image)
