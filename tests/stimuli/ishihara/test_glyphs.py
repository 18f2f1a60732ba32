"""plates.stimuli.ishihara.glyphs: fonts by name, missing glyphs, masks that never leave the disc."""

import numpy as np
import pytest

from plates.stimuli.ishihara.glyphs import (
    FONTS,
    available_fonts,
    check_text,
    fit_font_size,
    resolve_font,
    text_mask,
)


def test_all_named_fonts_installed_and_resolve():
    assert set(available_fonts()) == set(FONTS)
    for name in FONTS:
        assert resolve_font(name).endswith(".ttf")
    assert resolve_font("dejavu-sans-bold-italic") == resolve_font("dejavu-sans-bold-oblique")
    path = resolve_font("liberation-sans")
    assert resolve_font(path) == path  # any TTF by path


@pytest.mark.parametrize("bad", ["comic-sans", "/nope/font.ttf", "", None])
def test_unknown_font_lists_available(bad):
    with pytest.raises(ValueError, match="liberation-sans"):
        resolve_font(bad)


def test_not_a_font_file(tmp_path):
    p = tmp_path / "fake.ttf"
    p.write_bytes(b"not a font")
    with pytest.raises(ValueError, match="not a readable"):
        resolve_font(str(p))


def test_missing_glyph_is_an_error_naming_the_character():
    with pytest.raises(ValueError, match="'日'"):
        check_text("A日", "liberation-sans")
    with pytest.raises(ValueError, match="allowed"):
        check_text("", "liberation-sans")
    with pytest.raises(ValueError, match="allowed"):
        check_text("  ", "liberation-sans")
    check_text("Wé9", "dejavu-sans")  # covered characters pass


def _max_ink_radius(mask: np.ndarray) -> float:
    ys, xs = np.nonzero(mask)
    c = mask.shape[0] / 2
    return float(np.sqrt(np.maximum(abs(xs - c), abs(xs + 1 - c)) ** 2 + np.maximum(abs(ys - c), abs(ys + 1 - c)) ** 2).max())


@pytest.mark.parametrize("text", ["WW", "Wm", "8", "Xg", "17"])
def test_mask_fits_inside_disc_with_margin(text):
    m = text_mask(text, "dejavu-sans-bold-oblique", 900, 15.0)
    assert m.shape == (900, 900) and m.dtype == bool and m.any()
    assert _max_ink_radius(m) <= 450 - 15.0
    assert not m.flags.writeable


def test_paper_size_kept_when_it_fits_and_shrunk_otherwise():
    assert fit_font_size("17", "dejavu-sans-bold-oblique", 900, 15.0) == 550  # HueManity §3's size
    assert fit_font_size("WW", "dejavu-sans-bold-oblique", 900, 15.0) < 550  # HueManity clips "WW"; we shrink


def _ink_reach(mask: np.ndarray) -> float:
    """Farthest ink-pixel corner from the plate centre, from each row's outermost ink pixels (cheap)."""
    rows = np.flatnonzero(mask.any(axis=1))
    first = mask[rows].argmax(axis=1)
    last = mask.shape[1] - 1 - mask[rows, ::-1].argmax(axis=1)
    c = mask.shape[0] / 2
    ys = np.concatenate([rows, rows]).astype(float)
    xs = np.concatenate([first, last]).astype(float)
    dy = np.maximum(abs(ys - c), abs(ys + 1 - c))
    dx = np.maximum(abs(xs - c), abs(xs + 1 - c))
    return float(np.sqrt(dx * dx + dy * dy).max())


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["colorblindnesseval", "huemanity-numeric", "huemanity-alnum"])
def test_no_ink_clipped_for_any_preset_label(preset):
    """Every label of every preset, at 900 px with the default largest dot radius as margin: all ink lies
    inside the disc, so every figure dot is whole (HueManity's generator clips 365 of its 3,354 labels)."""
    from plates.datasets import PRESETS
    from plates.stimuli.ishihara.plate import PlateSpec

    p = PRESETS[preset]
    spec = PlateSpec(p.labels[0], font=p.font)
    limit = 450 - spec.r_max
    worst = 0.0
    for label in p.labels:
        m = text_mask(label, p.font, 900, spec.r_max, spec.text_scale)
        assert m.any(), label
        reach = _ink_reach(m)
        assert reach <= limit, (label, reach, limit)
        worst = max(worst, reach)
    if preset == "huemanity-alnum":  # wide labels ("WW") were shrunk until they just fit: the check bites
        assert worst > limit - 5


def test_text_too_long_for_the_plate_says_what_is_allowed():
    from plates.stimuli.ishihara.plate import PlateSpec, render

    with pytest.raises(ValueError, match=r"'W{200}' \(200 characters\) cannot be fitted .*allowed: a shorter text"):
        render(PlateSpec(text="W" * 200, size=64))
