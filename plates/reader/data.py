"""Training plates for the baseline reader, sampled on the fly from a seed (no files, no downloads).

Each seed decides one plate through :func:`sample_plate` (a :class:`plates.stimuli.ishihara.plate.PlateSpec`,
the variant to show and, for some plates, a change to the figure's mask); :func:`training_example` renders it
and preprocesses it exactly as the ONNX reader will (:mod:`plates.reader.preprocess`). The mix (see
:data:`RECIPE`) is meant to teach the *task*, not one generator: every plate style of
`plates.stimuli.ishihara.styles` (this project's dense packing, ColorBlindnessEval App. E / IshiharaMC, HueManity
§3's released generator), both colour-role conventions (which palette colour lies on the text), anti-aliased and
hard-edged dots, wide and narrow gaps, eight fonts and weights plus bitmap-like, bolder and thinner figures, and
dots whose colours vary in hue and lightness within each class. Colours: sRGB 0-255.
"""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

from plates.colour import delta_e2000
from plates.reader.coding import encode
from plates.reader.preprocess import preprocess
from plates.stimuli.ishihara.glyphs import FONTS, text_mask
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec, render, render_on_mask
from plates.stimuli.ishihara.styles import STYLES
from plates.validation import not_known

#: First plate seed of the training and validation sets; benchmarks and tests use seeds below 10^7.
TRAIN_SEED_BASE = 10_000_000
VAL_SEED_BASE = 20_000_000

HUEMANITY_PAIRS = tuple(f"huemanity-{i:02d}" for i in range(1, 26))
CBE_SETS = tuple(f"colorblindnesseval-{i}" for i in range(1, 6))
#: Plate styles and their share of the mix.
STYLE_SHARES = {"dense": 0.26, "cbe": 0.37, "huemanity": 0.37}
#: Share of plates made as the style's paper made them (its colours, font, jitter, labels); the rest are "free".
PAPER_SHARE = 0.6
#: Plate groups (style x paper/free): validation accuracy is reported per group.
GROUPS = tuple(f"{s}-{k}" for s in STYLE_SHARES for k in ("paper", "free"))
#: Render sizes (px) drawn uniformly; the reader box-filters every plate down to its input size.
RENDER_SIZES = (192, 256, 384, 512, 900)

RECIPE = """Each plate seed draws a style -- 26% `dense` (this project's packing), 37% `cbe` (ColorBlindnessEval
App. E Algorithm 1 with IshiharaMC's layers), 37% `huemanity` (HueManity's released generator) -- and is made
60% of the time as that style's paper made it (group `<style>-paper`), otherwise freely (`<style>-free`):
- paper, cbe: a CBE colour set (App. D), numbers 0-99, Liberation Sans (60%: the preset's Arial stand-in),
  DejaVu Sans (20%: App. B.3) or another of the 8 styles, no jitter (80%);
- paper, huemanity: a Table 7 pair with the released code's colour roles (the "Foreground" colour outside the
  text), jitter and clipping, anti-aliased, DejaVu Sans Bold Oblique (80%), labels "10".."99" (20%) or the
  alphanumeric pairs (80%);
- paper, dense: a Table 7 pair with HueManity's jitter (60%) or a CBE set (40%), the paper's labels and font;
- free: colours from a Table 7 pair, a CBE set, a random pair (CIEDE2000 >= 5) or random multi-colour sets
  (1-4 figure and 1-5 surround colours spread in lightness and hue, every figure/surround pair >= 6 apart),
  either colour-role convention, no jitter or either jitter rule at 0-100% of HueManity's amounts, any of the
  8 fonts, labels from "0".."99" (30%), "10".."99" (15%) or the alphanumeric pairs (55%), and 25% of the time
  a changed figure: bitmap-like (the text drawn on a 40-90 px canvas, enlarged without smoothing), bolder or
  thinner (the mask dilated or eroded by 0.5-2% of the plate).
Every plate also draws its dot radii (x0.75-1.3 of the style's), gap (dense x0.5-5, cbe x0.6-1.5, huemanity
0 or up to 2 px at 900 px), Monte Carlo tries (x0.6-1.3), anti-aliasing (the style's default 70%), text scale
(0.5-0.68 of the plate), a render size (192, 256, 384, 512 or 900 px) and, 5% of the time, the "clear"
variant (figure dots only); the reader box-filters every plate to 96 px."""


def _font(rng: np.random.Generator, preferred: str | None, p_preferred: float) -> str:
    if preferred is not None and rng.random() < p_preferred:
        return preferred
    return str(rng.choice(list(FONTS)))


def random_pair(rng: np.random.Generator, min_delta_e: float = 5.0) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A random (foreground, background) sRGB 0-255 pair at least ``min_delta_e`` CIEDE2000 apart.

    The background is the foreground plus Gaussian noise of a random spread (10-80 per channel), so distances
    from barely-visible to glaring all occur (cheaper than solving for an exact ΔE2000 per plate).
    """
    for _ in range(50):
        fg = rng.integers(20, 236, 3)
        bg = np.clip(fg + rng.normal(0.0, rng.uniform(10, 80), 3), 0, 255).round().astype(int)
        if float(delta_e2000(tuple(int(v) for v in fg), tuple(int(v) for v in bg))) >= min_delta_e:
            return tuple(int(v) for v in fg), tuple(int(v) for v in bg)
    raise ValueError(f"no random colour pair reached ΔE2000 >= {min_delta_e} in 50 draws")


def random_colour_sets(rng: np.random.Generator, min_delta_e: float = 6.0) -> tuple[tuple, tuple]:
    """Random multi-colour (figure, surround) sets, sRGB 0-255: a `random_pair` at CIEDE2000 >= 12, each
    colour then varied in lightness (x0.7-1.3) and hue (+-12 per channel); a variant is kept only when it stays
    ``min_delta_e`` from every colour of the other set, so the classes differ however the colours vary."""
    fg0, bg0 = random_pair(rng, 12.0)
    fgs, bgs = [fg0], [bg0]
    for target, ref, n in ((fgs, fg0, int(rng.integers(0, 4))), (bgs, bg0, int(rng.integers(0, 5)))):
        for _ in range(n):
            c = np.clip(np.asarray(ref) * rng.uniform(0.7, 1.3) + rng.normal(0, 12, 3), 0, 255).round().astype(int)
            cand = tuple(int(v) for v in c)
            others = bgs if target is fgs else fgs
            if min(float(delta_e2000(cand, o)) for o in others) >= min_delta_e:
                target.append(cand)
    return tuple(fgs), tuple(bgs)


def _label(rng: np.random.Generator, weights: dict[str, float]) -> str:
    space = str(rng.choice(list(weights), p=list(weights.values())))
    labels = LABEL_SPACES[space]
    return labels[int(rng.integers(len(labels)))]


def _jitter(rng: np.random.Generator) -> dict:
    amount = float(rng.choice([0.0, 0.5, 1.0]))
    if amount == 0:
        return {}
    rule = str(rng.choice(["keep-hue", "released-code"]))
    return {**{k: v * amount for k, v in HUEMANITY_JITTER.items()}, "jitter_rule": rule,
            "allow_extremes": rule == "released-code"}


def sample_plate(seed: int, render_size: int | None = None) -> tuple[PlateSpec, str, str, tuple | None]:
    """The training plate of ``seed`` -> (PlateSpec, group, variant, mask change or None).

    ``render_size`` None draws one of RENDER_SIZES. A mask change is ("bitmap", canvas px), ("dilate", px) or
    ("erode", px): see :func:`figure_mask`.
    """
    rng = np.random.default_rng([seed, 5])
    style = str(rng.choice(list(STYLE_SHARES), p=list(STYLE_SHARES.values())))
    paper = bool(rng.random() < PAPER_SHARE)
    size = int(rng.choice(RENDER_SIZES)) if render_size is None else render_size
    st = STYLES[style]
    f = float(rng.uniform(0.75, 1.3))
    u = size / 900
    common: dict = {"size": size, "seed": int(seed), "style": style,
                    "min_radius": max(0.5, st.min_radius_900 * u * f, u if style == "huemanity" else 0.5),
                    "max_radius": max(st.max_radius_900 * u * f, u), "text_scale": float(rng.uniform(0.5, 0.68))}
    if style == "dense":
        common["gap"] = st.gap_900 * u * float(rng.uniform(0.5, 5.0))
    elif style == "cbe":
        common["gap"] = st.gap_900 * u * float(rng.uniform(0.6, 1.5))
    else:
        common["gap"] = 0.0 if rng.random() < 0.6 else float(rng.uniform(0, 2.0)) * u
    if st.tries:
        common["tries"] = int(st.tries * rng.uniform(0.6, 1.3))
    common["gap"] = min(common["gap"], common["max_radius"])
    aa = st.antialias if rng.random() < 0.7 else not st.antialias
    change = None
    if paper and style == "cbe":
        colours = {"palette": str(rng.choice(CBE_SETS))}
        font = _font(rng, "liberation-sans", 0.6) if rng.random() < 0.8 else "dejavu-sans"
        text = _label(rng, {"cbe": 1.0})
        extra = {} if rng.random() < 0.8 else _jitter(rng)
    elif paper and style == "huemanity":
        colours = {"palette": str(rng.choice(HUEMANITY_PAIRS)), "colour_roles": "released-code"}
        font = _font(rng, "dejavu-sans-bold-oblique", 0.8)
        text = _label(rng, {"huemanity-numeric": 0.2, "huemanity-alnum": 0.8})
        extra = {**HUEMANITY_JITTER, "jitter_rule": "released-code", "allow_extremes": True}
    elif paper:  # dense, as the presets drew it before styles existed
        if rng.random() < 0.6:
            colours = {"palette": str(rng.choice(HUEMANITY_PAIRS))}
            font, extra = _font(rng, "dejavu-sans-bold-oblique", 0.8), dict(HUEMANITY_JITTER)
            text = _label(rng, {"huemanity-numeric": 0.3, "huemanity-alnum": 0.7})
        else:
            colours = {"palette": str(rng.choice(CBE_SETS))}
            font, extra, text = _font(rng, "liberation-sans-bold", 0.6), {}, _label(rng, {"cbe": 1.0})
    else:
        source = str(rng.choice(["huemanity", "cbe", "pair", "multi"], p=[0.3, 0.2, 0.25, 0.25]))
        if source == "huemanity":
            colours = {"palette": str(rng.choice(HUEMANITY_PAIRS))}
        elif source == "cbe":
            colours = {"palette": str(rng.choice(CBE_SETS))}
        else:
            if source == "pair":
                fg1, bg1 = random_pair(rng)
                fg, bg = (fg1,), (bg1,)
            else:
                fg, bg = random_colour_sets(rng)
            colours = {"palette": None, "foreground": fg, "background": bg}
        colours["colour_roles"] = str(rng.choice(["paper-text", "released-code"]))
        font = _font(rng, None, 0.0)
        text = _label(rng, {"cbe": 0.3, "huemanity-numeric": 0.15, "huemanity-alnum": 0.55})
        extra = _jitter(rng)
        if rng.random() < 0.25:
            kind = str(rng.choice(["bitmap", "dilate", "erode"], p=[0.4, 0.3, 0.3]))
            amount = int(rng.integers(40, 91)) if kind == "bitmap" else max(1, round(size * rng.uniform(0.005, 0.02)))
            change = (kind, amount)
    variant = "clear" if rng.random() < 0.05 else "standard"
    spec = PlateSpec(text=text, font=font, antialias=aa, **colours, **extra, **common)
    return spec, f"{style}-{'paper' if paper else 'free'}", variant, change


def figure_mask(spec: PlateSpec, change: tuple | None) -> np.ndarray:
    """The figure mask of ``spec`` (bool (size, size)) after ``change``: ("bitmap", n) draws the text on an
    n px canvas and enlarges it without smoothing (blocky, like bitmap digits); ("dilate", k) / ("erode", k)
    make strokes k px bolder / thinner (Euclidean distance transform)."""
    size = spec.size
    if change is None:
        return text_mask(spec.text, spec.font, size, spec.r_max, spec.text_scale)
    kind, amount = change
    if kind == "bitmap":
        small = text_mask(spec.text, spec.font, amount, spec.r_max * amount / size, spec.text_scale)
        return np.asarray(Image.fromarray(small).resize((size, size), Image.Resampling.NEAREST))
    mask = text_mask(spec.text, spec.font, size, spec.r_max, spec.text_scale)
    if kind == "dilate":
        return ndimage.distance_transform_edt(~mask) <= amount
    if kind == "erode":
        thin = ndimage.distance_transform_edt(mask) > amount
        return thin if thin.any() else mask
    raise not_known("mask change", kind, ("bitmap", "dilate", "erode"))


def training_example(seed: int, render_size: int | None = None, mode: str = "contrast"):
    """Seed -> (preprocessed (3, 96, 96) float32, per-position classes (2,), group name)."""
    spec, group, variant, change = sample_plate(seed, render_size)
    plate = render(spec) if change is None else render_on_mask(spec, figure_mask(spec, change))
    return preprocess(plate.variant(variant), mode=mode), encode(spec.text), group


def sample_spec(seed: int, render_size: int | None = None) -> tuple[PlateSpec, str]:
    """The training plate of ``seed`` -> (PlateSpec, group name) (`sample_plate` without variant and mask)."""
    spec, group, _variant, _change = sample_plate(seed, render_size)
    return spec, group

