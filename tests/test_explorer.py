"""The explorer's plate-side logic (plates/ui/explorer.py), without any UI."""

from __future__ import annotations

import base64
import json
import zlib

import pytest

from plates.ui import explorer as ex
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import PlateSpec

PUBLIC = ex.Policy(public=True, max_plate_size=1024, max_sweep_points=12, max_text_chars=8)


def controls(**changes) -> ex.Controls:
    base = ex.spec_to_controls(ex.default_spec())
    return ex.Controls(**{**base.__dict__, **changes})


def test_policy_from_env_reads_public_mode_and_allow_lists():
    p = ex.Policy.from_env({"PLATES_PUBLIC": "1", "PLATES_ALLOWED_BASE_URLS": " https://a.example/v1/ ,https://b/v1",
                            "PLATES_ALLOWED_HF_MODELS": "org/m"})
    assert p.public and p.allowed_base_urls == ("https://a.example/v1", "https://b/v1")
    assert p.allowed_hf_models == ("org/m",) and p.max_plate_size == 1024 and p.max_sweep_points == 12
    assert not ex.Policy.from_env({}).public
    with pytest.raises(ValueError, match="PLATES_PUBLIC='maybe'.*allowed"):
        ex.Policy.from_env({"PLATES_PUBLIC": "maybe"})


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
    fg, bg = ex.preset_hex("huemanity-07")  # the panel shows a preset's first colours in the pickers
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
    with pytest.raises(ValueError, match="dot radius range 9.0-3.0 px is empty"):
        ex.controls_to_spec(controls(dot_min=9.0, dot_max=3.0))
    with pytest.raises(ValueError, match="jitter 2 is out of range; allowed: 0.0-1.0"):
        ex.controls_to_spec(controls(jitter=2))


def test_public_mode_caps_size_and_takes_fonts_by_name_only():
    with pytest.raises(ValueError, match="plate size 2048 px is not allowed; allowed: 64-1024 px"):
        ex.controls_to_spec(controls(size=2048), PUBLIC)
    font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    with pytest.raises(ValueError, match="font '/usr/share.*is not allowed here; allowed: liberation-sans"):
        ex.controls_to_spec(controls(font=font_path), PUBLIC)
    assert ex.controls_to_spec(controls(font=font_path)).font == font_path  # private mode: a path is fine
    pasted = ex.spec_to_json(ex.default_spec()).replace('"dejavu-sans-bold-oblique"', '"/etc/passwd"')
    with pytest.raises(ValueError, match="font '/etc/passwd' is not allowed here"):  # refused before it is opened
        ex.spec_from_text(pasted, PUBLIC)
    with pytest.raises(ValueError, match="plate size 4096 px is not allowed"):
        ex.decode_spec(ex.encode_spec(ex.default_spec().replace(size=4096)), PUBLIC)
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


def test_share_code_round_trips_compactly_and_url_safely():
    spec = ex.controls_to_spec(controls(text="A7", delta_e=3.25, colour_pair="huemanity-03", seed=99))
    code = ex.encode_spec(spec)
    assert set(code) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert len(code) < len(spec.to_json())
    assert ex.decode_spec(code) == spec
    assert ex.share_query(spec) == f"?spec={code}"
    assert ex.share_link(spec, "https://x.hf.space/?__theme=dark#top") == f"https://x.hf.space/?spec={code}"
    assert ex.share_link(spec, "http://127.0.0.1:7860") == f"http://127.0.0.1:7860/?spec={code}"
    assert ex.share_link(spec, None) == ex.share_link(spec, "javascript:alert(1)") == f"?spec={code}"


@pytest.mark.parametrize("code, message", [
    ("", "share code of 0 characters"),
    ("!!!!", "not one the explorer made"),
    ("x" * 9000, "share code of 9000 characters"),
    (base64.urlsafe_b64encode(zlib.compress(b"{}" + b" " * 200000)).decode(), "expands past"),
    (base64.urlsafe_b64encode(zlib.compress(b"[1,2]")).decode(), "not an object"),
])
def test_bad_share_codes_get_a_clear_message(code, message):
    with pytest.raises(ValueError, match=message):
        ex.decode_spec(code)


def test_spec_from_text_takes_bytes_and_explains_bad_input():
    spec = ex.default_spec()
    assert ex.spec_from_text(ex.spec_to_json(spec).encode()) == spec
    assert json.loads(ex.spec_to_json(spec))["text"] == "12"
    with pytest.raises(ValueError, match="not valid JSON"):
        ex.spec_from_text("{text: 12")
    with pytest.raises(ValueError, match="not UTF-8"):
        ex.spec_from_text(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match="spec is empty"):
        ex.spec_from_text("  ")
    with pytest.raises(ValueError, match=r"keys \['colour'\] are not known"):
        ex.spec_from_text('{"text": "1", "colour": 3}')


def test_plate_cache_reuses_recent_plates_only():
    cache = ex.PlateCache(maxsize=2)
    a, b, c = (ex.default_spec().replace(size=96, seed=i) for i in range(3))
    first = cache(a)
    assert cache(a) is first and ex.render_views(a, renderer=cache).plate is first
    cache(b), cache(c)  # a is now the least recently used: dropped
    assert cache(a) is not first and cache(a).image.tobytes() == first.image.tobytes()
