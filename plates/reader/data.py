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

from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

from plates.colour import delta_e2000
from plates.reader.coding import encode
from plates.reader.preprocess import INPUT_SIZE, MODES, normalise, preprocess, scale_rgb
from plates.stimuli.ishihara.glyphs import FONTS, text_mask
from plates.stimuli.ishihara.jitter import huemanity_jitter
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.palettes import CBE_SETS, HUEMANITY_PAIRS
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, PlateSpec, render, render_on_mask
from plates.stimuli.ishihara.styles import STYLES
from plates.validation import check_choice, not_known

#: First plate seed of the training and validation sets; benchmarks and tests use seeds below 10^7.
TRAIN_SEED_BASE = 10_000_000
VAL_SEED_BASE = 20_000_000

#: Plate styles and their share of the mix.
STYLE_SHARES = {"dense": 0.26, "cbe": 0.37, "huemanity": 0.37}
#: Share of plates made as the style's paper made them (its colours, font, jitter, labels); the rest are "free".
PAPER_SHARE = 0.6
#: The reader's extra training faces (plates/reader/fonts, made by scripts/subset_reader_fonts.py: Roboto, Caladea,
#: Source Serif, Source Sans, Manrope and the monospaced Roboto Mono, Source Code Pro, IBM Plex Mono; none of them a
#: font the benchmark holds out), as .ttf paths.
EXTRA_FONT_DIR = Path(__file__).resolve().parent / "fonts"
EXTRA_FONTS = tuple(str(p) for p in sorted(EXTRA_FONT_DIR.glob("*.ttf")))
#: Label spaces of the free plates and their shares (paper plates keep their paper's labels).
FREE_LABELS = {"cbe": 0.3, "huemanity-numeric": 0.15, "huemanity-alnum": 0.55}
#: Render sizes (px) drawn uniformly; the reader box-filters every plate down to its input size.
RENDER_SIZES = (192, 256, 384, 512)

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
  8 fonts (with `extra_fonts` f > 0, a share f of free plates instead takes one of 25 extra training faces,
  plates/reader/fonts: Roboto, Caladea, Source Serif, Source Sans, Manrope and the monospaced Roboto Mono,
  Source Code Pro, IBM Plex Mono; OFL / Apache-2.0), labels from "0".."99" (30%), "10".."99" (15%) or the
  alphanumeric pairs (55%); smallest and largest dot radius scaled apart (x0.6-1.5 and x0.7-2.0 of the style's; at most x1.3 for cbe, x1.7 for huemanity: a
  narrow or a wide spread of dot sizes, ~600 to ~4,000 dots); the canvas (between dots and outside the disc)
  white (55%), black (15%) or any colour (30%); 60% of the time a changed figure: bitmap-like (8%: the text
  drawn on a 40-90 px canvas, enlarged without smoothing), bolder (20%: mask dilated by 0.5-4% of the plate),
  thinner (14%: eroded by 0.5-2%), outlined (22%: a ring 0.8-3.5% of the plate wide inside each stroke),
  stretched (12%: glyph width x0.6-1.45, condensed and extended faces), warped (14%: a smooth random
  displacement of up to 1-3% of the plate) or sheared (10%: slant -0.35 to 0.35, upright and back-slanted
  figures from the oblique faces), and 40% of the changed figures are also warped or sheared first (glyph
  shapes none of the 8 fonts draws, without using the held-out fonts; with `rim` r > 0, a share r of free
  plates instead draws a hollow rim: a ring from 1 px inside each stroke's edge to 1.2-3.5% of the plate
  outside it, in dots no wider than the ring -- stroked outline lettering); and a scene: the disc filling the
  frame (55%), the disc on a larger page (33%: disc 60-100% of the side, the page flat, a colour gradient with
  noise, or random rectangles) or the central square of dots without the disc's edge (12%, text 0.36-0.46 of
  the plate).
Paper plates keep the style's radii scaled together (x0.75-1.3) and fill the frame. Every plate also draws a
gap (dense x0.5-5, cbe x0.6-1.5, huemanity 0 or up to 2 px at 900 px), Monte Carlo tries (x0.6-1.3),
anti-aliasing (the style's default 70%), text scale (0.5-0.68 of the plate), a render size (192, 256, 384 or
512 px; `render_sizes`: 900 px plates cost a third of rendering and taught nothing the reader, which sees every
plate at 64 or 96 px, lacked) and, 5% of the time, the "clear" variant (figure dots only); the reader crops a plate
on a flat page to the plate and box-filters it to its input side (`input_size`, 64 px by default; mode
`contrast-dots`: over the dots alone). Training also shears
(+-0.1) and stretches (x0.83-1.2 in width against height) the network's input at random (`skew` 0.1).
Beside the plates, training reads glyph cards (`cards`, :func:`glyph_card`): a free plate's draw of text, font,
figure change or rim and text scale, drawn without dots (the figure's edge ragged at a dot's scale, two random
colours varied at that scale) at 3x the input side, box-filtered and normalised as a plate is. A card costs a
third of a plate; the held-out faces' misses were shapes the preprocessed plates show clearly, and on an H100
10,000 plates + 20,000 cards read held-out-font alphanumerics 93% where 16,000 plates alone read 81%.
Held out (never in training, measured by bench/bench_baseline.py --sections foreign): every system font but the
8 bundled DejaVu Sans / Liberation Sans faces (DejaVu Serif, Sans Mono, Sans Condensed, Serif Condensed, Sans
ExtraLight; Liberation Serif, Mono, Sans Narrow), the mini-generator's own rejection packing and radius
distributions (uniform, bimodal, power-law), Pillow-stroked bold and outlined glyphs, its confusion-line and
random-hue palettes and its upsampled-noise surround."""


def _font(rng: np.random.Generator, preferred: str | None, p_preferred: float) -> str:
    if preferred is not None and rng.random() < p_preferred:
        return preferred
    return str(rng.choice(list(FONTS)))


def random_pair(rng: np.random.Generator, min_delta_e: float = 5.0) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A random (foreground, background) sRGB 0-255 pair at least ``min_delta_e`` CIEDE2000 apart.

    The background is the foreground plus Gaussian noise of a random spread (10-80 per channel), so distances
    from barely-visible to glaring all occur (cheaper than solving for an exact ΔE2000 per plate).

    Parameters
    ----------
    rng : numpy.random.Generator
        Every random number.
    min_delta_e : float, optional
        The least CIEDE2000 between the two.

    Returns
    -------
    (tuple of 3 int, tuple of 3 int)
        Foreground and background, sRGB 0-255.

    Raises
    ------
    ValueError
        When 50 draws reach no pair that far apart.
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
    ``min_delta_e`` from every colour of the other set, so the classes differ however the colours vary.

    Parameters
    ----------
    rng : numpy.random.Generator
        Every random number.
    min_delta_e : float, optional
        The least CIEDE2000 between a colour and every colour of the other set.

    Returns
    -------
    (tuple, tuple)
        Figure and surround colours, sRGB 0-255.

    Raises
    ------
    ValueError
        When `random_pair` reaches no pair.
    """
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
    return {**huemanity_jitter(amount), "jitter_rule": rule,
            "allow_extremes": rule == "released-code"}


def sample_plate(seed: int, render_size: int | None = None, extra_fonts: float = 0.0, rim: float = 0.0,
                 render_sizes: tuple[int, ...] = RENDER_SIZES,
                 ) -> tuple[PlateSpec, str, str, tuple | None, tuple | None]:
    """The training plate of ``seed`` -> (PlateSpec, group, variant, mask change or None, scene or None).

    ``render_size`` None draws one of ``render_sizes`` (one draw whatever their number, so the other choices of
    a seed do not depend on the sizes offered). ``extra_fonts`` (0-1) is the share of free plates drawn in
    one of :data:`EXTRA_FONTS` instead of the 8 bundled faces (0: the first stage's mix, seed for seed the
    same plates; the draw comes last, so the other choices of a seed never depend on it). ``rim`` (0-1) is the
    share of free plates whose figure becomes a hollow "rim" instead of the change drawn before (see
    :func:`figure_change`), its dots no wider than the ring (drawn after the font, so 0 leaves every plate as
    it was). A mask change is one of
    :data:`MASK_CHANGES` with its amount, or a pair of them: see :func:`figure_mask`; a scene is how the plate sits
    in its image (:func:`_scene`, :func:`place`).

    Parameters
    ----------
    seed : int
        The plate's seed.
    render_size : int or None, optional
        The plate's side, px; None draws one of ``render_sizes``.
    extra_fonts : float, optional
        Share of free plates in one of the extra fonts (0-1).
    rim : float, optional
        Share of free plates with a hollow rim figure (0-1).
    render_sizes : tuple of int, optional
        The sides drawn from, px.

    Returns
    -------
    tuple
        (PlateSpec, group, variant, mask change or None, scene or None).
    """
    rng = np.random.default_rng([seed, 5])
    style = str(rng.choice(list(STYLE_SHARES), p=list(STYLE_SHARES.values())))
    paper = bool(rng.random() < PAPER_SHARE)
    size = int(rng.choice(render_sizes)) if render_size is None else render_size
    st = STYLES[style]
    f = float(rng.uniform(0.75, 1.3))
    # free plates: smallest and largest radius scaled apart (a narrow or wide spread of dot sizes, 600-4,000 dots)
    cap = {"dense": 2.0, "cbe": 1.3, "huemanity": 1.7}[style]  # beyond this the figure dissolves into few dots
    f_min, f_max = (f, f) if paper else (float(rng.uniform(0.6, min(cap, 1.5))), float(rng.uniform(0.7, cap)))
    u = size / 900
    scene = None if paper else _scene(rng)
    scale = (0.36, 0.46) if scene is not None and scene[0] == "square" else (0.5, 0.68)
    common: dict = {"size": size, "seed": int(seed), "style": style,
                    "min_radius": max(0.5, st.min_radius_900 * u * f_min, u if style == "huemanity" else 0.5),
                    "max_radius": max(st.max_radius_900 * u * f_max, u), "text_scale": float(rng.uniform(*scale))}
    common["max_radius"] = max(common["max_radius"], common["min_radius"])
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
        text = _label(rng, FREE_LABELS)
        extra = _jitter(rng)
        canvas = rng.random()
        if canvas < 0.15:
            colours["canvas"] = (0, 0, 0)
        elif canvas < 0.45:
            colours["canvas"] = tuple(int(v) for v in rng.integers(0, 256, 3))
        change = _free_change(rng, size)
    variant = "clear" if rng.random() < 0.05 else "standard"
    if not paper:
        font = _extra_font(rng, font, extra_fonts)
    if not paper and (rim_change := _rim_change(rng, size, rim)) is not None:
        change = rim_change
        # dots no wider than the ring (k px outside + 1 inside): a hollow figure one or two dots wide, as
        # stroked outlines are drawn on fine-dotted plates; larger dots would leave no figure to read
        common["max_radius"] = min(common["max_radius"], max(0.5, (change[1] + 1) / 2))
        common["min_radius"] = min(common["min_radius"], common["max_radius"])
        common["gap"] = min(common["gap"], common["max_radius"])
    spec = PlateSpec(text=text, font=font, antialias=aa, **colours, **extra, **common)
    return spec, f"{style}-{'paper' if paper else 'free'}", variant, change, scene


#: Ways the training figure's mask is changed (see `figure_mask`) and how often each is drawn.
MASK_CHANGES = ("bitmap", "dilate", "erode", "outline", "stretch", "warp", "shear")
CHANGE_WEIGHTS = (0.08, 0.2, 0.14, 0.22, 0.12, 0.14, 0.1)
#: Width of the hollow "rim" figure's ring outside the glyph's edge, as a share of the plate's side: outlined
#: lettering whose ring is drawn around each glyph (a stroked outline), so an open figure such as '3' becomes a
#: closed contour -- unlike "outline", whose ring stays inside each stroke.
RIM_WIDTH = (0.012, 0.035)
#: Share of free plates whose figure is changed, and of those whose glyph shapes are also warped or sheared.
CHANGE_SHARE = 0.6
WARP_SHARE = 0.4
#: the glyph-shape changes' amounts, drawn uniformly: a smooth warp's strength, a shear's slope
SHAPE_CHANGES = {"warp": (0.01, 0.03), "shear": (-0.35, 0.35)}


def _free_change(rng: np.random.Generator, size: int) -> tuple | None:
    """A free figure's change (a share CHANGE_SHARE; of those, WARP_SHARE also warped or sheared) or None."""
    if rng.random() >= CHANGE_SHARE:
        return None
    change = _mask_change(rng, size)
    if rng.random() < WARP_SHARE:  # the glyphs' shapes varied as well: a smooth warp or a shear first
        shape = _shape_change(rng, "warp" if rng.random() < 0.6 else "shear")
        if change[0] not in ("warp", "shear"):  # a bitmap figure is drawn first, then warped
            change = (change, shape) if change[0] == "bitmap" else (shape, change)
    return change


def _extra_font(rng: np.random.Generator, font: str, share: float) -> str:
    """``font``, or a share ``share`` of the time one of EXTRA_FONTS (no draw at all when ``share`` is 0)."""
    if share > 0 and rng.random() < share:
        return EXTRA_FONTS[int(rng.integers(len(EXTRA_FONTS)))]
    return font


def _rim_change(rng: np.random.Generator, size: int, share: float) -> tuple[str, int] | None:
    """A hollow rim figure ("rim", ring width in px, RIM_WIDTH of ``size``) a share ``share`` of the time, else None
    (no draw at all when ``share`` is 0)."""
    if share > 0 and rng.random() < share:
        return "rim", max(1, round(size * float(rng.uniform(*RIM_WIDTH))))
    return None


def _shape_change(rng: np.random.Generator, kind: str) -> tuple[str, float]:
    return kind, float(rng.uniform(*SHAPE_CHANGES[kind]))


def _mask_change(rng: np.random.Generator, size: int) -> tuple:
    """One (kind, amount) of `MASK_CHANGES` for a plate of ``size`` px (amounts: see `figure_mask`)."""
    kind = str(rng.choice(MASK_CHANGES, p=CHANGE_WEIGHTS))
    if kind == "bitmap":
        return kind, int(rng.integers(40, 91))
    if kind == "stretch":
        return kind, float(rng.uniform(0.6, 1.45))
    if kind in SHAPE_CHANGES:
        return _shape_change(rng, kind)
    low, high = {"outline": (0.008, 0.035), "dilate": (0.005, 0.04), "erode": (0.005, 0.02)}[kind]
    return kind, max(1, round(size * rng.uniform(low, high)))


#: Side of the grid a warp's random displacement field is drawn on (see `_warp`).
WARP_GRID = 9


@lru_cache(maxsize=16)
def enlarge_matrix(size: int) -> np.ndarray:
    """(size, WARP_GRID): cubic-spline enlargement of a WARP_GRID-long signal to ``size`` samples, as a matrix
    (column k: ``ndimage.zoom`` of unit vector k, order 3). A grid G enlarges to ``E @ G @ E.T``: the tensor
    product scipy's 2-D zoom computes point by point, to 1e-14 (the same masks; ~40x faster at 512 px).

    Parameters
    ----------
    size : int
        The enlarged length in samples (pixels of the glyph mask's side), positive.

    Returns
    -------
    numpy.ndarray
        float64, shape (size, WARP_GRID). Cached (up to 16 sizes) and shared between calls: do not write to it.
    """
    return ndimage.zoom(np.eye(WARP_GRID), (size / WARP_GRID, 1), order=3)


def _warp(mask: np.ndarray, amplitude: float, seed: int) -> np.ndarray:
    """``mask`` moved by a smooth random displacement field (each axis Gaussian noise blurred over ~12% of the
    side, scaled so its largest shift is ``amplitude`` of the side): glyph shapes no font draws."""
    size = mask.shape[0]
    rng = np.random.default_rng([seed, 17])
    enlarge = enlarge_matrix(size)  # the field is drawn on a WARP_GRID x WARP_GRID grid and enlarged: smooth at any size
    field = enlarge @ rng.normal(0.0, 1.0, (2, WARP_GRID, WARP_GRID)) @ enlarge.T
    field *= amplitude * size / max(np.abs(field).max(), 1e-9)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    coords = np.stack([yy + field[0][:size, :size], xx + field[1][:size, :size]])
    return ndimage.map_coordinates(mask, coords, order=0, mode="constant", cval=False)


def _shear(mask: np.ndarray, factor: float) -> np.ndarray:
    """``mask`` sheared horizontally about its centre row (x += factor * (y - centre)): italic or back-slanted."""
    size = mask.shape[0]
    c = (size - 1) / 2
    matrix = np.array([[1.0, 0.0], [factor, 1.0]])  # input (y, x) = matrix @ output (y, x) + offset
    return ndimage.affine_transform(mask, matrix, offset=(0.0, -factor * c), order=0, cval=False)


def _scene(rng: np.random.Generator) -> tuple | None:
    """How a free plate sits in its image: None (the disc fills the frame, 55%), ("page", disc share of the side
    0.6-1.0, surround) with surround "flat" (the canvas colour) or "pattern" (a colour gradient with noise, or
    random rectangles), 33%, or ("square", 0) -- the central square of dots, no disc edge, 12%."""
    u = rng.random()
    if u < 0.55:
        return None
    if u < 0.88:
        return ("page", float(rng.uniform(0.6, 1.0)), str(rng.choice(["flat", "gradient", "rectangles"])))
    return ("square", 0.0, "")


def figure_mask(spec: PlateSpec, change: tuple | None) -> np.ndarray:
    """The figure mask of ``spec`` after ``change``: None, one (kind, amount) or a tuple of them applied in order
    (see `figure_change`).

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    change : tuple or None
        None, one (kind, amount) or a tuple of them.

    Returns
    -------
    numpy.ndarray of bool, shape (size, size)
        The figure.

    Raises
    ------
    ValueError
        For an unknown kind of change.
    """
    if change is not None and isinstance(change[0], tuple):
        mask = figure_change(spec, change[0])
        for step in change[1:]:
            mask = _apply(mask, spec, step)
        return mask
    return figure_change(spec, change)


def figure_change(spec: PlateSpec, change: tuple | None) -> np.ndarray:
    """The figure mask of ``spec`` (bool (size, size)) after ``change``: ("bitmap", n) draws the text on an
    n px canvas and enlarges it without smoothing (blocky, like bitmap digits); ("dilate", k) / ("erode", k)
    make strokes k px bolder / thinner (Euclidean distance transform); ("outline", k) keeps a k px ring inside
    each stroke (outlined digits); ("rim", k) keeps a ring from 1 px inside each stroke's edge to k px outside it
    (a hollow figure drawn around the glyphs: stroked outline lettering); ("stretch", f) scales the glyphs' width by f (condensed or extended faces);
    ("warp", a) moves the mask by a smooth random field of at most a x the side (seeded by the plate's seed);
    ("shear", f) slants it by f (x += f * y).

    Parameters
    ----------
    spec : PlateSpec
        The plate.
    change : tuple or None
        None or one (kind, amount).

    Returns
    -------
    numpy.ndarray of bool, shape (size, size)
        The figure.

    Raises
    ------
    ValueError
        For a kind other than `MASK_CHANGES` or "rim".
    """
    size = spec.size
    if change is None:
        return text_mask(spec.text, spec.font, size, spec.r_max, spec.text_scale)
    if change[0] == "bitmap":
        amount = change[1]
        small = text_mask(spec.text, spec.font, amount, spec.r_max * amount / size, spec.text_scale)
        return np.asarray(Image.fromarray(small).resize((size, size), Image.Resampling.NEAREST))
    return _apply(text_mask(spec.text, spec.font, size, spec.r_max, spec.text_scale), spec, change)


def _apply(mask: np.ndarray, spec: PlateSpec, change: tuple) -> np.ndarray:
    """``mask`` after one (kind, amount) change other than "bitmap" (see `figure_change`)."""
    kind, amount = change
    size = spec.size
    if kind == "warp":
        return _warp(mask, amount, spec.seed)
    if kind == "shear":
        return _shear(mask, amount)
    if kind == "dilate":
        return ndimage.distance_transform_edt(~mask) <= amount
    if kind == "erode":
        thin = ndimage.distance_transform_edt(mask) > amount
        return thin if thin.any() else mask
    if kind == "outline":  # the strokes' edges only: a ring ``amount`` px wide inside each stroke
        ring = mask & (ndimage.distance_transform_edt(mask) <= amount)
        return ring if ring.any() else mask
    if kind == "rim":  # a hollow figure drawn around the strokes: ``amount`` px outside the edge + 1 px inside
        ring = (ndimage.distance_transform_edt(~mask) <= amount) & ~(ndimage.distance_transform_edt(mask) > 1)
        return ring if ring.any() else mask
    if kind == "stretch":  # wider or narrower glyphs (condensed / extended faces), centred
        ys, xs = np.nonzero(mask)
        if xs.size == 0:
            return mask
        x0, x1 = xs.min(), xs.max() + 1
        new_w = min(round(0.8 * size), max(1, round((x1 - x0) * amount)))  # stays inside the disc
        band = Image.fromarray(mask[:, x0:x1]).resize((new_w, size), Image.Resampling.NEAREST)
        out = np.zeros_like(mask)
        left = (size - new_w) // 2
        out[:, left : left + new_w] = np.asarray(band)
        return out
    raise not_known("mask change", kind, (*MASK_CHANGES, "rim"))


def place(image: Image.Image, scene: tuple | None, canvas: tuple, seed: int) -> Image.Image:
    """The plate ``image`` (sRGB 0-255, disc filling the frame) set in its ``scene`` (see `_scene`): on a larger
    page whose surround is ``canvas`` or a pattern drawn from ``seed``, or cut to the central square of dots.

    Parameters
    ----------
    image : PIL.Image.Image
        The plate, RGB, sRGB 0-255.
    scene : tuple or None
        How the plate sits in its image (None: as it is).
    canvas : tuple of 3 int
        The surround's colour, sRGB 0-255.
    seed : int
        Seeds a patterned surround.

    Returns
    -------
    PIL.Image.Image
        RGB, sRGB 0-255.
    """
    if scene is None:
        return image
    kind, share, surround = scene
    size = image.width
    if kind == "square":
        side = round(size * 0.72)
        o = (size - side) // 2
        return image.crop((o, o, o + side, o + side))
    side = max(size, round(size / share))
    rng = np.random.default_rng([seed, 11])
    if surround == "flat":
        page = Image.new("RGB", (side, side), canvas)
    elif surround == "gradient":
        a, b = rng.integers(0, 256, (2, 3))
        t = np.linspace(0, 1, side)[None, :, None] if rng.random() < 0.5 else np.linspace(0, 1, side)[:, None, None]
        pix = a + (b - a) * t + rng.normal(0, rng.uniform(0, 30), (side, side, 3))
        page = Image.fromarray(np.clip(pix, 0, 255).astype(np.uint8))
    else:
        page = Image.new("RGB", (side, side), tuple(int(v) for v in rng.integers(0, 256, 3)))
        draw = ImageDraw.Draw(page)
        for _ in range(int(rng.integers(5, 40))):
            x0, y0 = rng.integers(0, side, 2)
            w, h = rng.integers(side // 20 + 1, side // 3 + 2, 2)
            draw.rectangle((int(x0), int(y0), int(x0 + w), int(y0 + h)), fill=tuple(int(v) for v in rng.integers(0, 256, 3)))
    o = (side - size) // 2
    disc = Image.new("L", (size, size), 0)
    ImageDraw.Draw(disc).ellipse((0, 0, size - 1, size - 1), fill=255)
    page.paste(image.convert("RGB"), (o, o), disc)
    return page


def training_image(seed: int, render_size: int | None = None, extra_fonts: float = 0.0, rim: float = 0.0,
                   render_sizes: tuple[int, ...] = RENDER_SIZES) -> tuple[Image.Image, str, str]:
    """Seed -> (the training plate as the reader sees it, sRGB 0-255; its text; group name).

    Parameters
    ----------
    seed : int
        The plate's seed.
    render_size : int or None, optional
        The plate's side, px; None draws one of ``render_sizes``.
    extra_fonts : float, optional
        Share of free plates in one of the extra fonts (0-1).
    rim : float, optional
        Share of free plates with a hollow rim figure (0-1).
    render_sizes : tuple of int, optional
        The sides drawn from, px.

    Returns
    -------
    (PIL.Image.Image, str, str)
        The image, its text and its group.
    """
    spec, group, variant, change, scene = sample_plate(seed, render_size, extra_fonts, rim, render_sizes)
    plate = render(spec) if change is None else render_on_mask(spec, figure_mask(spec, change))
    return place(plate.variant(variant), scene, spec.canvas, seed), spec.text, group


def training_example(seed: int, render_size: int | None = None, mode: str = "contrast", extra_fonts: float = 0.0,
                     rim: float = 0.0, render_sizes: tuple[int, ...] = RENDER_SIZES, input_size: int = INPUT_SIZE):
    """Seed -> (preprocessed (3, input_size, input_size) float32, per-position classes (2,), group name).

    Parameters
    ----------
    seed : int
        The plate's seed.
    render_size : int or None, optional
        The plate's side, px; None draws one of ``render_sizes``.
    mode : str, optional
        The preprocessing mode (`plates.reader.preprocess`).
    extra_fonts : float, optional
        Share of free plates in one of the extra fonts (0-1).
    rim : float, optional
        Share of free plates with a hollow rim figure (0-1).
    render_sizes : tuple of int, optional
        The sides drawn from, px.
    input_size : int, optional
        The network's input side S, px.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, str)
        (3, S, S) float32 input, (2,) class indices, group name.
    """
    image, text, group = training_image(seed, render_size, extra_fonts, rim, render_sizes)
    return preprocess(image, size=input_size, mode=mode), encode(text), group


#: First seed of the glyph cards (see :func:`glyph_card`); plates use TRAIN_SEED_BASE and VAL_SEED_BASE.
CARD_SEED_BASE = 30_000_000


def glyph_card(seed: int, input_size: int = INPUT_SIZE, extra_fonts: float = 0.0, rim: float = 0.0,
               mode: str = "contrast-dots"):
    """A cheap training example of glyph shapes alone -> (preprocessed (3, S, S) float32, classes (2,), "card").

    A free plate's draw of text (``FREE_LABELS``), font (the 8 faces or, a share ``extra_fonts``, the extra ones),
    figure change (:func:`_free_change`, or a rim a share ``rim``) and text scale, drawn without dots at 3 S px:
    the figure's edge made ragged at a dot's scale (the mask blurred and thresholded against smoothed noise), two
    random colours at least 40 apart in sRGB varied at that scale, box-filtered to S and preprocessed as a plate
    is (:func:`plates.reader.preprocess.normalise`; ``mode`` "rgb": scaled sRGB, as that mode reads a plate; a card
    has no canvas between dots, so "contrast" and "contrast-dots" are the same). A fraction of a plate's cost: more
    glyph instances per CPU-second, where the held-out faces' misses are shapes (their preprocessed plates read
    clearly by eye).

    Parameters
    ----------
    seed : int
        The card's seed.
    input_size : int, optional
        The network's input side S, px.
    extra_fonts : float, optional
        Share in one of the extra fonts (0-1).
    rim : float, optional
        Share with a hollow rim figure (0-1).
    mode : str, optional
        The preprocessing mode.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, str)
        (3, S, S) float32 input, (2,) class indices, ``"card"``.
    """
    check_choice("preprocessing mode", mode, MODES)
    side = 3 * input_size
    rng = np.random.default_rng([CARD_SEED_BASE + seed, 23])
    font = _extra_font(rng, _font(rng, None, 0.0), extra_fonts)
    text = _label(rng, FREE_LABELS)
    change = _free_change(rng, side)
    change = _rim_change(rng, side, rim) or change
    spec = PlateSpec(text=text, font=font, size=side, seed=int(seed), text_scale=float(rng.uniform(0.5, 0.68)))
    mask = figure_mask(spec, change).astype(np.float64)
    dot = float(rng.uniform(0.6, 2.0))  # a dot's radius in px at 3 S (a 900 px plate's 4-12 px)
    ragged = ndimage.gaussian_filter(mask, dot) + ndimage.gaussian_filter(rng.normal(0, 0.6, mask.shape), dot)
    while True:
        fg, bg = rng.integers(0, 256, (2, 3)).astype(np.float64)
        if np.linalg.norm(fg - bg) >= 40:
            break
    pix = np.where((ragged > 0.5)[..., None], fg, bg)
    spread = float(rng.uniform(0, 20))
    pix += ndimage.gaussian_filter(rng.normal(0, 1, (side, side, 3)), (dot, dot, 0)) * spread * 2 * dot
    img = Image.fromarray(np.clip(pix, 0, 255).round().astype(np.uint8)).resize((input_size, input_size),
                                                                                    Image.Resampling.BOX)
    rgb = np.asarray(img, dtype=np.float64)
    return (scale_rgb(rgb) if mode == "rgb" else normalise(rgb)), encode(spec.text), "card"
