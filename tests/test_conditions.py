"""plates.conditions: resize, grayscale, hue rotation, CVD views."""

import numpy as np
import pytest
from PIL import Image

from plates.conditions import Condition, apply_condition, cvd_view, grayscale, hue_shift, resize, text_only


def _img():
    a = np.zeros((40, 60, 3), dtype=np.uint8)
    a[:, :20] = (200, 30, 30)
    a[:, 20:40] = (30, 160, 40)
    a[:, 40:] = (40, 60, 200)
    return Image.fromarray(a, "RGB")


def test_resize_longest_side():
    assert resize(_img(), 30).size == (30, 20)
    assert apply_condition(_img(), Condition(size=120)).size == (120, 80)


def test_grayscale_equal_channels():
    a = np.asarray(grayscale(_img())).astype(int)
    assert (a[..., 0] == a[..., 1]).all() and (a[..., 1] == a[..., 2]).all()


@pytest.mark.parametrize("space", ["hsv", "cielab"])
def test_hue_shift_round_trip(space):
    im = Image.fromarray((np.asarray(_img()) // 4 + 100).astype(np.uint8), "RGB")  # muted: stays in gamut
    there = hue_shift(im, 120, space)
    assert not np.array_equal(np.asarray(there), np.asarray(im))
    back = np.asarray(hue_shift(there, -120, space)).astype(int)
    assert np.abs(back - np.asarray(im).astype(int)).max() <= 2


def test_hue_shift_cielab_keeps_lightness():
    from plates.colour import srgb255_to_lab

    im = Image.fromarray((np.asarray(_img()) // 4 + 100).astype(np.uint8), "RGB")
    a = srgb255_to_lab(np.asarray(im)[0, ::20].astype(float))
    b = srgb255_to_lab(np.asarray(hue_shift(im, 90, "cielab"))[0, ::20].astype(float))
    assert np.abs(a[:, 0] - b[:, 0]).max() < 1.0


def test_hue_shift_hsv_red_to_green():
    red = Image.new("RGB", (2, 2), (255, 0, 0))
    assert np.asarray(hue_shift(red, 120))[0, 0].tolist() == [0, 255, 0]


def test_cvd_and_identity():
    im = _img()
    assert not np.array_equal(np.asarray(cvd_view(im, "deutan", 1.0)), np.asarray(im))
    same = apply_condition(im, Condition())
    assert np.array_equal(np.asarray(same), np.asarray(im)) and same is not im


@pytest.mark.parametrize(
    "kw", [dict(size=3), dict(cvd="mono"), dict(cvd_severity=2), dict(hue_space="hsl"), dict(grayscale=1)]
)
def test_bad_conditions(kw):
    with pytest.raises(ValueError, match="allowed"):
        Condition(**kw)


def _plate():
    from plates.stimuli.ishihara.plate import PlateSpec, render

    return render(PlateSpec("6", size=200, palette="colorblindnesseval-1", seed=2))


@pytest.mark.parametrize("size", [300, 700, 1300])  # HueManity's resolution ablation range
def test_resize_plate(size):
    assert apply_condition(_plate().image, Condition(size=size)).size == (size, size)


def test_protan_view_shrinks_red_green_contrast_with_severity():
    from plates.colour import delta_e2000

    fg, bg = np.array([[[245, 97, 60]]], np.uint8), np.array([[[106, 124, 115]]], np.uint8)
    des = []
    for sev in (0.0, 0.5, 1.0):
        f = np.asarray(cvd_view(Image.fromarray(fg), "protan", sev))[0, 0]
        b = np.asarray(cvd_view(Image.fromarray(bg), "protan", sev))[0, 0]
        des.append(delta_e2000(f, b))
    assert des[0] > des[1] > des[2]


@pytest.mark.parametrize("deg", [90, 180, 270])  # ColorBench's rotations
def test_hue_rotations_on_a_plate(deg):
    im = _plate().image
    out = apply_condition(im, Condition(hue_shift=deg))
    a, b = np.asarray(im).astype(int), np.asarray(out).astype(int)
    white = (a == 255).all(axis=2)
    assert (b[white] == 255).all()  # greys stay grey
    assert np.abs(a[~white] - b[~white]).mean() > 10


def test_conditions_compose_in_order():
    c = Condition(size=100, grayscale=True, hue_shift=45, cvd="deutan", cvd_severity=0.7)
    out = np.asarray(apply_condition(_plate().image, c))
    assert out.shape == (100, 100, 3) and (out[..., 0] == out[..., 2]).all()
    assert Condition().is_identity and not c.is_identity
    with pytest.raises(ValueError, match="Condition"):
        apply_condition(_plate().image, {"size": 3})


def _hsv_per_pixel(image, degrees):
    """Reference: every pixel rotated by colour-science's HSV (ColorBench §2.2, App. C), no deduplication."""
    import colour

    hsv = colour.RGB_to_HSV(np.asarray(image, dtype=np.float64) / 255.0)
    hsv[..., 0] = (hsv[..., 0] + degrees / 360.0) % 1.0
    return np.clip(np.rint(colour.HSV_to_RGB(hsv) * 255.0), 0, 255).astype(np.uint8)


def test_hue_shift_of_a_plate_never_sorts_every_pixel(monkeypatch):
    # The cost was np.unique(return_inverse=True) over all pixels (~16 ms at 256 px): a plate's few colours
    # are found in a sample and looked up; the result is the same pixel for pixel.
    import plates.conditions as T

    im = render_plate(256)
    real, sorted_sizes = np.unique, []

    def unique(a, *args, **kwargs):
        sorted_sizes.append(np.size(a))
        return real(a, *args, **kwargs)

    monkeypatch.setattr(T.np, "unique", unique)
    out = hue_shift(im, 90)
    monkeypatch.undo()
    assert max(sorted_sizes) < 256 * 256 // 4, sorted_sizes
    assert np.array_equal(np.asarray(out), _hsv_per_pixel(im, 90))


@pytest.mark.parametrize("space", ["hsv", "cielab"])
def test_hue_shift_matches_the_per_pixel_rotation_on_any_image(space):
    from plates.colour import lab_to_srgb255, srgb255_to_lab

    rng = np.random.default_rng(1)
    noise = Image.fromarray(rng.integers(0, 256, (64, 80, 3), dtype=np.uint8))  # every pixel its own colour
    odd = np.asarray(render_plate(128)).copy()
    odd[77, 33] = (1, 2, 250)  # a colour no sample of the pixels will see
    for im in (noise, Image.fromarray(odd)):
        got = np.asarray(hue_shift(im, 120, space))
        if space == "hsv":
            want = _hsv_per_pixel(im, 120)
        else:
            lab = srgb255_to_lab(np.asarray(im, dtype=np.float64).reshape(-1, 3))
            t = np.radians(120)
            a, b = lab[:, 1].copy(), lab[:, 2].copy()
            lab[:, 1], lab[:, 2] = a * np.cos(t) - b * np.sin(t), a * np.sin(t) + b * np.cos(t)
            want = np.clip(np.rint(lab_to_srgb255(lab)), 0, 255).astype(np.uint8).reshape(got.shape)
        assert np.array_equal(got, want)


def render_plate(size):
    from plates.stimuli.ishihara.plate import PlateSpec, render

    return render(PlateSpec("42", size=size, palette="colorblindnesseval-1", seed=3)).image


def test_text_only_is_the_one_black_image_of_the_size_the_model_would_get():
    """ColorBench App. J: black RGB (sRGB 0-255 (0, 0, 0)) of the image's size, or of its resized size."""
    im = Image.new("RGB", (200, 100), (10, 200, 30))
    for size, want in ((None, (200, 100)), (50, (50, 25))):
        black = text_only(im, size)
        assert black.size == want and black.mode == "RGB" and not np.asarray(black).any()
        seen = apply_condition(im, Condition(size=size, text_only=True))
        assert np.array_equal(np.asarray(seen), np.asarray(black))
