"""The explorer's Plate tab logic (plates/explorer/plate.py), without any UI: controls <-> spec, views, swatches."""

from __future__ import annotations

import pytest

from plates.explorer import plate as ex
from plates.explorer.policy import Policy
from plates.explorer.specs import decode_spec, encode_spec, spec_from_text, spec_to_json
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec

PUBLIC = Policy.from_env({"PLATES_PUBLIC": "1"})


def controls(**changes) -> ex.Controls:
    base = ex.spec_to_controls(ex.default_spec())
    return ex.Controls(**{**base.__dict__, **changes})


def test_choices_cover_the_papers_presets_and_custom():
    choices = ex.colour_pair_choices()
    assert choices[-1] == ex.CUSTOM
    assert {f"colorblindnesseval-{i}" for i in range(1, 6)} <= set(choices)
    assert sum(c.startswith("huemanity-") for c in choices) == 25
    assert "dejavu-sans-bold-oblique" in ex.font_choices()
    assert set(ex.label_space_choices()) == set(LABEL_SPACES)


@pytest.mark.parametrize("space", list(LABEL_SPACES))
def test_random_label_is_in_its_space_and_seeded(space):
    assert ex.random_label(space, 3) == ex.random_label(space, 3)
    assert ex.random_label(space) in LABEL_SPACES[space]
    with pytest.raises(ValueError, match="allowed: cbe"):
        ex.random_label("klingon")


def test_controls_round_trip_through_a_spec():
    drawn = ex.default_spec().replace(palette="huemanity-07", delta_e=6.5).colours
    fg, bg = ex.to_hex(drawn[0][0]), ex.to_hex(drawn[1][0])  # a preset's pickers show its colours as drawn
    c = controls(colour_pair="huemanity-07", foreground=fg, background=bg, delta_e=6.5, font="liberation-sans-bold", text="A7", dot_min=3.0,
                 dot_max=9.0, density=0.6, jitter=0.5, size=384, seed=11)
    spec = ex.controls_to_spec(c)
    assert (spec.palette, spec.delta_e, spec.text, spec.size, spec.seed) == ("huemanity-07", 6.5, "A7", 384, 11)
    assert spec.jitter_shift == pytest.approx(0.15) and spec.min_radius == 3.0
    assert ex.spec_to_controls(spec) == c


def test_custom_colours_and_a_bad_colour_gives_a_clear_message():
    spec = ex.controls_to_spec(controls(colour_pair=ex.CUSTOM, foreground="#ff0000", background="rgb(0, 128, 0)"))
    assert spec.palette is None and spec.foreground == ((255, 0, 0),) and spec.background == ((0, 128, 0),)
    with pytest.raises(ValueError, match=r"foreground colour 'reddish'.*allowed: '#rrggbb'"):
        ex.controls_to_spec(controls(colour_pair=ex.CUSTOM, foreground="reddish"))
    with pytest.raises(ValueError, match="colour pair 'sepia' is unknown; allowed: colorblindnesseval-1"):
        ex.controls_to_spec(controls(colour_pair="sepia"))


def test_bad_values_name_themselves_and_what_is_allowed():
    with pytest.raises(ValueError, match="text '  ' is empty"):
        ex.controls_to_spec(controls(text="  "))
    with pytest.raises(ValueError, match="Dot radius min 9 px is larger than dot radius max 3 px; allowed"):
        ex.controls_to_spec(controls(dot_min=9.0, dot_max=3.0))
    with pytest.raises(ValueError, match=r"jitter=2 is not valid; allowed: a number in \[0, 1\]"):
        ex.controls_to_spec(controls(jitter=2))


@pytest.mark.parametrize("seed", ["9007199254740993", 9007199254740993, str(2**63 - 1), 2**63 - 1])
def test_a_seed_is_read_exactly_up_to_the_largest(seed):
    """A seed is read with int, never through float: 2**53 + 1 stays itself and 2**63 - 1 is valid."""
    assert ex.controls_to_spec(controls(seed=seed)).seed == int(seed)


@pytest.mark.parametrize("bad", ["1.7", 1.7, str(2**63), "-1", True, "seven"])
def test_a_seed_that_is_not_a_whole_number_in_range_is_refused_not_truncated(bad):
    with pytest.raises(ValueError, match=r"^seed=.* is not valid; allowed: an integer in \[0, 9223372036854775807\]$"):
        ex.controls_to_spec(controls(seed=bad))


def test_public_mode_caps_size_and_takes_fonts_by_name_only():
    with pytest.raises(ValueError, match=r"plate size \(px\)=2048 is not valid; allowed: an integer in \[64, 1024\]"):
        ex.controls_to_spec(controls(size=2048), PUBLIC)
    font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    with pytest.raises(ValueError, match="font '/usr/share.*is not allowed here; allowed: liberation-sans"):
        ex.controls_to_spec(controls(font=font_path), PUBLIC)
    assert ex.controls_to_spec(controls(font=font_path)).font == font_path  # private mode: a path is fine
    pasted = spec_to_json(ex.default_spec()).replace('"dejavu-sans-bold-oblique"', '"/etc/passwd"')
    with pytest.raises(ValueError, match="font '/etc/passwd' is not allowed here"):  # refused before it is opened
        spec_from_text(pasted, PUBLIC)
    with pytest.raises(ValueError, match=r"plate size \(px\)=4096 is not valid"):
        decode_spec(encode_spec(ex.default_spec().replace(size=4096)), PUBLIC)
    base = ex.default_spec().replace(font=font_path)  # a base spec cannot smuggle a path past the controls
    with pytest.raises(ValueError, match="is not allowed here"):
        ex.controls_to_spec(ex.spec_to_controls(base), PUBLIC, base=base)
    with pytest.raises(ValueError, match="has 9 characters; allowed: 1-8"):
        ex.controls_to_spec(controls(text="123456789"), PUBLIC)


def test_a_pasted_spec_survives_controls_that_cannot_show_it():
    base = PlateSpec(text="42", size=256, palette=None, foreground=((200, 80, 60), (210, 90, 50)),
                     background=((90, 160, 70),), jitter_rgb=12.0, gap=2.0, seed=5)
    shown = ex.spec_to_controls(base)
    assert ex.controls_to_spec(shown, base=base) == base
    moved = ex.controls_to_spec(ex.Controls(**{**shown.__dict__, "seed": 6}), base=base)
    assert moved == base.replace(seed=6)


def test_render_views_gives_every_view_at_the_plate_size_and_stats():
    spec = ex.controls_to_spec(controls(size=200, delta_e=12.0))
    views = ex.render_views(spec)
    assert tuple(views.images) == ex.VIEWS
    assert {im.size for im in views.images.values()} == {(200, 200)}
    assert {im.mode for im in views.images.values()} == {"RGB"}
    assert views.plate.stats.delta_e == pytest.approx(12.0, abs=0.3)
    assert f"{views.plate.stats.dot_count} dots" in views.stats and f"ΔE2000 {views.plate.stats.delta_e:.2f}" in views.stats
    assert "(asked 12.00)" in views.stats
    assert views.images["protan"].tobytes() != views.images["plate"].tobytes()


def test_plate_cache_reuses_recent_plates_only():
    cache = ex.PlateCache(maxsize=2)
    a, b, c = (ex.default_spec().replace(size=96, seed=i) for i in range(3))
    first = cache(a)
    assert cache(a) is first and ex.render_views(a, renderer=cache).plate is first
    cache(b), cache(c)  # a is now the least recently used: dropped
    assert cache(a) is not first and cache(a).image.tobytes() == first.image.tobytes()


def _colours_in(image) -> set[str]:
    """Every distinct colour of a PIL RGB image, as '#rrggbb' (sRGB 0-255)."""
    import numpy as np

    px = np.asarray(image.convert("RGB")).reshape(-1, 3)
    return {ex.to_hex(tuple(int(v) for v in c)) for c in np.unique(px, axis=0)}


def test_the_colour_swatches_follow_delta_e_moving_the_background():
    """Regression: after ΔE moved the background, the pickers showed the preset's pink, the plate green.
    Checked on the pixels: the swatches' colours are the ones painted (no jitter here: the plate holds the
    foreground, the background and the white canvas only)."""
    start = controls(colour_pair="huemanity-06", delta_e=0, size=160)
    moved = ex.controls_to_spec(ex.Controls(**{**start.__dict__, "delta_e": 12.0}))
    shown = ex.spec_to_controls(moved)
    painted = _colours_in(ex.render(moved).image) - {"#ffffff"}
    assert painted == {shown.foreground, shown.background}
    assert shown.background != ex.preset_hex("huemanity-06")[1]  # the swatch moved with ΔE
    assert ex.controls_to_spec(shown) == moved  # a preset's pickers are display only: the same plate again
    swatches = ex.drawn_swatches(moved)
    assert all(colour in swatches for colour in painted)


def test_custom_pickers_keep_the_colours_given_and_the_drawn_swatches_show_the_moved_one():
    given = controls(colour_pair=ex.CUSTOM, foreground="#d06090", background="#e8a0c0", delta_e=12.0,
                     size=160)
    spec = ex.controls_to_spec(given)
    assert ex.spec_to_controls(spec) == given  # changing any other control keeps drawing the same plate
    painted = _colours_in(ex.render(spec).image) - {"#ffffff", "#d06090"}
    (moved,) = painted
    swatches = ex.drawn_swatches(spec)
    assert moved != "#e8a0c0" and moved in swatches and "#e8a0c0" not in swatches


def test_dot_radius_errors_speak_the_panels_words_and_sliders_offer_valid_ranges():
    """Regression: 'min_radius=20.0 > max_radius=8.53…' became words a visitor can act on; the sliders' ranges
    follow the plate size."""
    with pytest.raises(ValueError, match=r"Dot radius min 20 px is larger than the automatic dot radius max "
                                         r"at 512 px \(8.5 px\); allowed: a min up to 8.5 px, or set Dot "
                                         r"radius max"):
        ex.controls_to_spec(controls(dot_min=20.0, dot_max=0.0, size=512))
    with pytest.raises(ValueError, match=r"Dot radius max 70 px does not fit a 512 px plate; allowed: 0.5"):
        ex.controls_to_spec(controls(dot_max=70.0, size=512))
    with pytest.raises(ValueError, match=r"Dot radius max 1 px is smaller than the automatic dot radius min "
                                         r"at 900 px"):
        ex.controls_to_spec(controls(dot_max=1.0, size=900))
    spec = ex.controls_to_spec(controls(size=512))
    lo_hi, hi_hi = ex.dot_slider_limits(spec)
    assert (lo_hi, hi_hi) == (8.5, 64.0)
    for lo in (0.5, 4.0, lo_hi):  # every value the min slider offers draws a plate (max automatic)
        assert ex.controls_to_spec(controls(size=512, dot_min=lo)).r_min == lo
    assert ex.controls_to_spec(controls(size=512, dot_max=hi_hi)).r_max == hi_hi
    assert ex.dot_slider_limits(ex.controls_to_spec(controls(size=512, dot_max=30.0))) == (30.0, 64.0)
    assert ex.dot_slider_limits(ex.controls_to_spec(controls(size=64))) == (1.0, 8.0)


def test_an_empty_text_names_what_to_do():
    with pytest.raises(ValueError, match="text '' is empty; type the label to draw"):
        ex.controls_to_spec(controls(text=""))


def test_the_model_tab_caption_names_the_plate_it_asks_about():
    plate = ex.render(ex.default_spec().replace(text="47", size=320, delta_e=8.0, seed=3))
    caption = ex.plate_caption(plate)
    assert "text `47`" in caption and "320 px" in caption and "seed 3" in caption
    assert f"ΔE2000 {plate.stats.delta_e:.2f} (asked 8.00)" in caption and "colorblindnesseval-1" in caption
