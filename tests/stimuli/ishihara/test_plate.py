"""plates.stimuli.ishihara.plate: spec validation and JSON, rendering, variants, stats."""

import json

import numpy as np
import pytest
from PIL import Image

from plates.colour import delta_e2000
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, VARIANTS, PlateSpec, render
from tests.support import ROOT


def test_json_round_trip_and_replace():
    s = PlateSpec("A7", size=300, palette=None, foreground=["#b22222"], background=[(175, 238, 238), "rgb(1,2,3)"],
                  seed=9, **HUEMANITY_JITTER)
    assert s.foreground == ((178, 34, 34),)
    j = s.to_json()
    assert PlateSpec.from_json(j) == s and PlateSpec.from_json(j).to_json() == j
    assert list(json.loads(j)) == sorted(json.loads(j))
    t = s.replace(seed=10)
    assert t.seed == 10 and t.text == "A7" and s.seed == 9
    with pytest.raises(ValueError, match="allowed"):
        s.replace(colour="red")
    with pytest.raises(ValueError, match=r"PlateSpec: unknown key\(s\) bogus; allowed: "):
        PlateSpec.from_json('{"text": "1", "bogus": 2}')


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(palette="nope"), "huemanity-01"),
        (dict(font="nope"), "dejavu-sans"),
        (dict(text=""), "non-empty"),
        (dict(text="日"), "no glyph"),
        (dict(size=32), "64, 4096"),
        (dict(size=5000), "64, 4096"),
        (dict(min_radius=10, max_radius=5), "min_radius <= max_radius"),
        (dict(foreground=["#zzzzzz"]), "#rrggbb"),
        (dict(palette=None), "both colour lists"),
        (dict(delta_e=500), r"\[1e-06, 200"),
        (dict(delta_e=90), r"delta_e <= \d"),
        (dict(jitter_shift=2), r"\[0, 1\]"),
        (dict(seed=-1), "integer"),
        (dict(density=0.99), "0.8"),
    ],
)
def test_bad_specs(kw, match):
    kw = {"text": "42", **kw}
    with pytest.raises(ValueError, match=match):
        PlateSpec(**kw)


def test_render_outputs_and_stats():
    p = render(PlateSpec("42", seed=1))
    assert p.image.mode == "RGB" and p.image.size == (900, 900)
    assert p.clear.mode == "RGB" and p.mask.mode == "L"
    for v in VARIANTS:
        im = p.variant(v)
        assert isinstance(im, Image.Image) and im.mode == "RGB" and im.size == (900, 900)
    with pytest.raises(ValueError, match="standard, clear, mask"):
        p.variant("inverted")
    st = p.stats
    assert st.dot_count == len(p.dots) and st["dot_count"] == st.dot_count
    assert list(p.dots.columns) == ["x", "y", "r", "class", "colour"]
    assert st.coverage > 0.6 and 0.5 < st.text_coverage <= 1
    assert st.delta_e == pytest.approx(delta_e2000((178, 34, 34), (175, 238, 238)))
    # the clear plate has only the foreground dots, on the canvas
    clear = np.asarray(p.clear)
    assert set(map(tuple, np.unique(clear.reshape(-1, 3), axis=0))) == {(178, 34, 34), (255, 255, 255)}


def test_same_spec_same_pixels_and_seed_changes_them():
    s = PlateSpec("Xg", size=256, seed=4, **HUEMANITY_JITTER)
    a, b = render(s), render(s)
    assert a.image.tobytes() == b.image.tobytes()
    assert render(s.replace(seed=5)).image.tobytes() != a.image.tobytes()


def test_delta_e_target_is_met():
    s = PlateSpec("8", size=200, delta_e=12.0)
    p = render(s)
    assert abs(p.stats.delta_e - 12.0) <= 0.5 and p.stats.delta_e_target == 12.0


def test_jitter_never_pure_white_or_black():
    s = PlateSpec("Wm", size=300, palette="huemanity-15", seed=2, jitter_shift=0.3, jitter_rgb=80, jitter_lightness=1.0)
    cols = render(s).dot_colours
    assert not ((cols == 255).all(axis=1).any() or (cols == 0).all(axis=1).any())
    pal = PALETTES["huemanity-15"]  # every channel within 8-247 (the palette's own channels are too)
    assert max(max(c) for c in pal.foreground + pal.background) <= 247 and cols.max() <= 247 and cols.min() >= 8
    loose = render(s.replace(allow_extremes=True)).dot_colours  # "unless asked": then channels reach 0 / 255
    assert ((loose == 0) | (loose == 255)).any()


# ---- properties over specs (hypothesis) ------------------------------------------------------------------
import hashlib
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plates.colour import background_at_delta_e
from plates.stimuli.ishihara.labels import HUEMANITY_SYMBOLS
from plates.stimuli.ishihara.palettes import PALETTES

FONTS_ = ["liberation-sans", "liberation-sans-bold", "liberation-sans-italic", "liberation-sans-bold-italic",
          "dejavu-sans", "dejavu-sans-bold", "dejavu-sans-oblique", "dejavu-sans-bold-oblique"]


@st.composite
def specs(draw):
    size = draw(st.integers(64, 260))
    max_r = draw(st.floats(2.0, size / 12))
    min_r = draw(st.floats(0.5, max_r))
    return PlateSpec(
        text=draw(st.text(alphabet=HUEMANITY_SYMBOLS, min_size=1, max_size=3)),
        size=size,
        font=draw(st.sampled_from(FONTS_)),
        palette=draw(st.sampled_from(sorted(PALETTES))),
        seed=draw(st.integers(0, 2**63 - 1)),
        min_radius=min_r,
        max_radius=max_r,
        gap=draw(st.floats(0.0, min(2.0, max_r))),
        density=draw(st.floats(0.05, 0.8)),
        jitter_shift=draw(st.floats(0, 1)),
        jitter_rgb=draw(st.floats(0, 255)),
        jitter_lightness=draw(st.floats(0, 1)),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_render_invariants(spec):
    assert PlateSpec.from_json(spec.to_json()) == spec
    p = render(spec)
    R = spec.size / 2
    assert p.image.size == (spec.size, spec.size) and p.mask.size == (spec.size, spec.size)
    x, y, r = p.x, p.y, p.r
    assert len(r) > 0
    assert r.min() >= spec.r_min - 1e-9 and r.max() <= spec.r_max + 1e-9
    assert (np.hypot(x - R, y - R) + r).max() <= R + 1e-6  # every dot whole, inside the disc
    d = np.hypot(x[:, None] - x[None], y[:, None] - y[None])
    np.fill_diagonal(d, np.inf)
    assert (d - r[:, None] - r[None]).min() >= spec.r_gap - 1e-6  # no overlaps, gap kept
    m = p.mask_array
    assert np.array_equal(p.is_fg, m[y.astype(int), x.astype(int)])  # class = centre on the text mask
    fg, bg = spec.colours
    if not (spec.jitter_shift or spec.jitter_rgb or spec.jitter_lightness):
        allowed = {tuple(c) for c in fg + bg}
        assert {tuple(c) for c in p.dot_colours.tolist()} <= allowed
    else:
        base = np.array([c for c in fg + bg])
        cols = p.dot_colours
        pure = (cols == 255).all(axis=1) | (cols == 0).all(axis=1)
        assert not pure.any() or ((base == 255).all(axis=1).any() or (base == 0).all(axis=1).any())
    st_ = p.stats
    assert st_.dot_count == len(r) and 0 < st_.coverage <= 1 and 0 <= st_.text_coverage <= 1


# ---- determinism across processes --------------------------------------------------------------------------
_SNIPPET = """
import hashlib, sys
from plates.stimuli.ishihara.plate import PlateSpec, render
p = render(PlateSpec.from_json(sys.argv[1]))
print(hashlib.sha256(p.image.tobytes() + p.clear.tobytes() + p.mask.tobytes()).hexdigest())
"""


@pytest.mark.parametrize("hashseed", ["1", "12345"])
def test_same_bytes_in_another_process(hashseed):
    spec = PlateSpec("Qk", size=300, palette="colorblindnesseval-4", seed=77, **HUEMANITY_JITTER)
    p = render(spec)
    here = hashlib.sha256(p.image.tobytes() + p.clear.tobytes() + p.mask.tobytes()).hexdigest()
    env = {"PYTHONHASHSEED": hashseed, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _SNIPPET, spec.to_json()], capture_output=True, text=True, env=env,
                         timeout=120, check=True).stdout.strip()
    assert out == here


# ---- CIEDE2000 control -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [f"huemanity-{i:02d}" for i in range(1, 26)])
def test_delta_e_targets_within_half_for_every_huemanity_pair(name):
    pal = PALETTES[name]
    fg = pal.foreground[0]
    for target in (3.0, 8.0, 15.0, 25.0):
        bg = background_at_delta_e(fg, pal.background[0], target)
        assert abs(delta_e2000(fg, bg) - target) <= 0.5, (name, target, bg)


@pytest.mark.parametrize("k", range(1, 6))
def test_delta_e_with_several_colours_is_relative_to_the_foreground_mean(k):
    spec = PlateSpec("5", size=96, palette=f"colorblindnesseval-{k}", delta_e=10.0)
    fg, bg = spec.colours
    ref = PlateSpec.foreground_reference(fg)
    assert all(abs(delta_e2000(ref, b) - 10.0) <= 0.5 for b in bg)
    st_ = render(spec).stats
    assert st_.delta_e_min <= st_.delta_e and st_.delta_e_target == 10.0


# ---- dots and coverage -------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_defaults_give_2000_dots_and_70_percent_at_900px(seed):
    st_ = render(PlateSpec("Wg", seed=seed)).stats
    assert st_.dot_count >= 2000 and st_.coverage >= 0.70, st_


@pytest.mark.parametrize("size", [300, 600, 1300])
def test_coverage_holds_at_other_sizes(size):
    st_ = render(PlateSpec("42", size=size, seed=1)).stats
    assert st_.coverage >= 0.70
    assert st_.dot_count >= 2000 * 0.8  # radii scale with size, so the count stays about the same


def test_density_lowers_coverage_and_radii_change_counts():
    base = PlateSpec("7", size=400, seed=3)
    assert render(base.replace(density=0.4)).stats.coverage < render(base).stats.coverage
    assert render(base.replace(max_radius=4.0)).stats.dot_count > render(base).stats.dot_count


def test_variants_relate():
    p = render(PlateSpec("83", size=300, palette="colorblindnesseval-2", seed=5))
    std, clear, mask = (np.asarray(p.variant(v)) for v in VARIANTS)
    # the clear plate is the standard one minus the background dots: same colour at every figure dot
    fg = p.is_fg
    cy, cx = p.y[fg].astype(int), p.x[fg].astype(int)
    assert np.array_equal(std[cy, cx], clear[cy, cx]) and np.array_equal(clear[cy, cx], p.dot_colours[fg])
    by, bx = p.y[~fg].astype(int), p.x[~fg].astype(int)
    assert (clear[by, bx] == 255).all()  # background dots are gone (canvas white)
    assert set(np.unique(mask)) <= {0, 255} and (mask[..., 0] == 255).sum() == p.mask_array.sum()
    assert p.stats.text_coverage > 0.5


def test_each_huemanity_jitter_stays_within_its_own_bound():
    """HueManity §3: shift towards the other colour by up to 0.3, RGB ±30, lightness x0.66-1.5 — each alone,
    on sRGB 0-255 colours away from the 8-247 guard so the bounds are the transforms' own."""
    from plates.stimuli.ishihara.plate import jitter_colours

    rng = np.random.default_rng(0)
    base = rng.integers(60, 160, size=(4000, 3)).astype(float)
    other = base + rng.choice([-50.0, 50.0], size=(4000, 3))  # far enough that 8-bit rounding barely moves t

    def jit(**kw):
        spec = PlateSpec("1", **{"jitter_shift": 0.0, "jitter_rgb": 0.0, "jitter_lightness": 0.0, **kw})
        return jitter_colours(spec, base, other, np.random.default_rng(1)).astype(float)

    rgb = jit(jitter_rgb=30.0)
    assert np.abs(rgb - base).max() <= 30.5 and np.abs(rgb - base).max() > 25
    shift = jit(jitter_shift=0.3)
    t = ((shift - base) * (other - base)).sum(1) / ((other - base) ** 2).sum(1)
    assert t.min() >= -0.01 and 0.25 < t.max() <= 0.31
    light = jit(jitter_lightness=HUEMANITY_JITTER["jitter_lightness"])
    ratio = light.sum(1) / base.sum(1)
    assert 0.66 <= ratio.min() < 0.7 and 1.45 < ratio.max() <= 1.51


def test_a_pickled_plate_leaves_out_derived_images_and_remakes_them_the_same():
    import pickle

    plate = render(PlateSpec(text="5", size=160, seed=4, delta_e=6.0))
    views = (np.asarray(plate.clear), np.asarray(plate.mask), plate.stats)
    state = plate.__getstate__()
    assert "clear" not in state and "mask" not in state and "stats" in state
    copy = pickle.loads(pickle.dumps(plate))
    assert np.array_equal(np.asarray(copy.image), np.asarray(plate.image))
    assert np.array_equal(np.asarray(copy.clear), views[0]) and np.array_equal(np.asarray(copy.mask), views[1])
    assert copy.stats == views[2] and copy.spec == plate.spec
