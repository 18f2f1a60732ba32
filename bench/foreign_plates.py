"""An independent mini-generator of Ishihara-style plates, for testing the baseline reader on plates it was not
trained on (held out from training: nothing under ``plates/`` imports this file).

It is written from scratch in the manner of the small public "Ishihara plate generator" scripts (random circle
packing in a disc with random radii, two or three shades for figure and ground, a system TrueType font at a random
size, a dot counted as figure when its centre lies on the text), not from this project's renderers
(``plates.stimuli.ishihara``): its own packing, colour conversion and drawing (Pillow, no anti-aliasing unless
asked). Each *variant* changes one factor from the base plate:

* dot count and size: ~800 large dots (the classic scripts), ~3,000 small ones; radius distributions uniform,
  bimodal (a few large dots among small ones) and power-law (many tiny, few huge);
* stroke: thin (the text eroded to hairlines), bold (Pillow ``stroke_width``), outlined digits (only the stroke's
  ring is figure);
* fonts: every TrueType face under /usr/share/fonts that the project does not bundle (see :data:`HELD_OUT_FONTS`;
  the reader trains only on the 8 bundled DejaVu Sans / Liberation Sans faces), serif, monospace, condensed, narrow
  and extra-light;
* outside the disc: white, black, a colour, a texture; a disc smaller than the frame; square plates without a
  disc;
* palettes: Ishihara-like confusion-line colours (figure and ground chromaticities on one protan, deutan or tritan
  confusion line through its copunctal point, Smith & Pokorny 1975 / Judd 1944 copunctal points, at similar
  lightness) or random hue pairs at random lightness.

Colours are sRGB 0-255. Labels are the numbers "0".."99" (ColorBlindnessEval §2.1's label space, which the
reader decodes with ``label_space="cbe"``), except the ``alnum`` variant (two symbols of HueManity App. B.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

SYSTEM_FONT_DIR = Path("/usr/share/fonts")
#: File names the project bundles (plates/stimuli/ishihara/fonts) and trains on: never used as held-out fonts.
TRAINED_FONT_FILES = frozenset({
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf",
    "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSans-Italic.ttf",
    "LiberationSans-BoldItalic.ttf",
})
#: Faces without ordinary digit/letter shapes.
NOT_TEXT_FONTS = frozenset({"DejaVuMathTeXGyre.ttf"})
#: Fonts the classic public scripts use (DejaVu Sans, Arial ~ Liberation Sans): the trained faces, as system files.
CLASSIC_FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "LiberationSans-Regular.ttf",
                      "LiberationSans-Bold.ttf")


def system_fonts() -> list[Path]:
    """Every .ttf/.otf under /usr/share/fonts, sorted by path."""
    if not SYSTEM_FONT_DIR.is_dir():
        return []
    return sorted(p for p in SYSTEM_FONT_DIR.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))


def held_out_fonts() -> list[Path]:
    """System fonts the project neither bundles nor trains on (the font variants draw from these)."""
    return [p for p in system_fonts() if p.name not in TRAINED_FONT_FILES | NOT_TEXT_FONTS]


def classic_fonts() -> list[Path]:
    """System copies of the faces the classic scripts use (DejaVu Sans, Liberation Sans as Arial)."""
    return [p for p in system_fonts() if p.name in CLASSIC_FONT_FILES]


HUEMANITY_SYMBOLS = "".join(c for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                            if c not in "lIJO")


@dataclass(frozen=True)
class Foreign:
    """One factor setting of the mini-generator (every field has a base value; a variant changes one)."""

    n_dots: tuple[int, int] = (1200, 1800)       # dots aimed at (drawn uniformly)
    radii: str = "uniform"                      # uniform | bimodal | power
    stroke: str = "regular"                     # regular | thin | bold | outline
    fonts: str = "held-out"                     # held-out | classic | classic-and-held-out | serif | mono-narrow | light
    outside: str = "white"                      # white | black | colour | texture
    shape: str = "disc"                         # disc | margin (disc smaller than frame) | square
    palette: str = "mixed"                      # confusion | random | mixed
    labels: str = "numbers"                     # numbers | alnum
    membership: str = "centre"                  # centre | any (a dot touching the text is figure)
    antialias: bool = False


VARIANTS: dict[str, Foreign] = {
    "classic-800": Foreign(n_dots=(700, 900), fonts="classic"),
    "classic-800-held-out-fonts": Foreign(n_dots=(700, 900)),
    "small-3000": Foreign(n_dots=(2700, 3300)),
    "radii-bimodal": Foreign(radii="bimodal"),
    "radii-power-law": Foreign(radii="power", n_dots=(1800, 2400)),
    "stroke-thin": Foreign(stroke="thin", n_dots=(2700, 3300), fonts="classic-and-held-out"),
    "stroke-bold": Foreign(stroke="bold"),
    "stroke-outline": Foreign(stroke="outline", n_dots=(2500, 3300)),
    "fonts-serif": Foreign(fonts="serif"),
    "fonts-mono-narrow": Foreign(fonts="mono-narrow"),
    "fonts-extra-light": Foreign(fonts="light", n_dots=(2200, 3000)),
    "outside-black": Foreign(outside="black"),
    "outside-colour": Foreign(outside="colour"),
    "outside-texture": Foreign(outside="texture"),
    "disc-in-margin": Foreign(shape="margin"),
    "square-no-disc": Foreign(shape="square"),
    "palette-confusion-lines": Foreign(palette="confusion"),
    "palette-random-hues": Foreign(palette="random"),
    "membership-touching": Foreign(membership="any"),
    "antialiased": Foreign(antialias=True),
    "alnum": Foreign(labels="alnum", n_dots=(2200, 3000)),
}


# --- colour: CIELAB (D65) <-> sRGB 0-255 and xyY, written out here (independent of plates.colour) ---
_M_RGB_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                       [0.0193339, 0.1191920, 0.9503041]])
_WHITE = np.array([0.95047, 1.0, 1.08883])


def _lab_to_srgb(lab: np.ndarray) -> np.ndarray:
    L, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    fy = (L + 16) / 116
    f = np.stack([fy + a / 500, fy, fy - b / 200], -1)
    xyz = np.where(f > 6 / 29, f ** 3, 3 * (6 / 29) ** 2 * (f - 4 / 29)) * _WHITE
    return _xyz_to_srgb(xyz)


def _xyz_to_srgb(xyz: np.ndarray) -> np.ndarray:
    lin = xyz @ np.linalg.inv(_M_RGB_XYZ).T
    lin = np.clip(lin, 0, 1)
    return np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055) * 255


def _in_gamut(xyz: np.ndarray) -> bool:
    lin = xyz @ np.linalg.inv(_M_RGB_XYZ).T
    return bool(np.all(lin >= 0) and np.all(lin <= 1))


#: Copunctal points (CIE 1931 xy) of protan, deutan and tritan confusion lines (Smith & Pokorny 1975).
COPUNCTAL = {"protan": (0.7465, 0.2535), "deutan": (1.4, -0.4), "tritan": (0.1748, 0.0)}


def confusion_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Figure and ground XYZ on one confusion line (xy collinear with a copunctal point), luminance Y close."""
    for _ in range(200):
        cx, cy = COPUNCTAL[str(rng.choice(list(COPUNCTAL)))]
        mx, my = rng.uniform(0.25, 0.40), rng.uniform(0.28, 0.42)  # a point near the white region
        d = np.array([mx - cx, my - cy])
        d /= np.linalg.norm(d)
        t1, t2 = rng.uniform(-0.12, 0.12, 2)
        if abs(t1 - t2) < 0.05:
            continue
        Y = rng.uniform(0.18, 0.6)
        out = []
        for t, dy in ((t1, 0.0), (t2, rng.uniform(-0.05, 0.05))):
            x, y = mx + t * d[0], my + t * d[1]
            if y <= 0.02:
                break
            yy = Y * (1 + dy)
            out.append(np.array([x * yy / y, yy, (1 - x - y) * yy / y]))
        if len(out) == 2 and all(_in_gamut(c) for c in out):
            return out[0], out[1]
    raise ValueError("no in-gamut confusion pair in 200 draws")


def _xyz_to_lab(xyz: np.ndarray) -> np.ndarray:
    t = xyz / _WHITE
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def palette(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(figure shades, ground shades): 2-3 sRGB 0-255 colours each, shades varying in lightness and chroma."""
    if kind == "mixed":
        kind = str(rng.choice(["confusion", "random"]))
    if kind == "confusion":
        f_xyz, g_xyz = confusion_pair(rng)
        fig, gnd = _xyz_to_lab(f_xyz), _xyz_to_lab(g_xyz)
    elif kind == "random":
        while True:
            h1 = rng.uniform(0, 2 * math.pi)
            h2 = h1 + rng.choice([-1, 1]) * rng.uniform(math.radians(50), math.radians(180))
            c1, c2 = rng.uniform(25, 65, 2)
            L1 = rng.uniform(35, 80)
            L2 = np.clip(L1 + rng.uniform(-25, 25), 25, 90)
            fig = np.array([L1, c1 * math.cos(h1), c1 * math.sin(h1)])
            gnd = np.array([L2, c2 * math.cos(h2), c2 * math.sin(h2)])
            if np.linalg.norm(fig - gnd) > 25:
                break
    else:
        raise ValueError(f"palette {kind!r} not known; allowed: confusion, random, mixed")
    shades = []
    for base in (fig, gnd):
        n = int(rng.integers(2, 4))
        lab = base + np.column_stack([rng.uniform(-8, 8, n), rng.uniform(-4, 4, n), rng.uniform(-4, 4, n)])
        shades.append(np.round(_lab_to_srgb(lab)).astype(np.uint8))
    return shades[0], shades[1]


# --- packing: rejection sampling of random circles, as the classic scripts do ---
def _radii(kind: str, n: int, r_mean: float, rng: np.random.Generator) -> np.ndarray:
    if kind == "uniform":
        r = rng.uniform(0.6, 1.4, n)
    elif kind == "bimodal":
        r = np.where(rng.random(n) < 0.25, rng.uniform(1.5, 2.0, n), rng.uniform(0.5, 0.8, n))
    elif kind == "power":
        r = np.minimum((1 - rng.random(n)) ** (-1 / 2.5), 3.0)  # Pareto, alpha 2.5, capped at 3x the smallest
    else:
        raise ValueError(f"radius distribution {kind!r} not known; allowed: uniform, bimodal, power")
    return np.sort(r * r_mean / r.mean())[::-1]


def pack(n: int, kind: str, size: int, region_r: float | None, rng: np.random.Generator) -> np.ndarray:
    """(m, 3) circles (x, y, r) in px, m <= n, non-overlapping, inside a disc of radius ``region_r`` centred on
    the image (or the whole square when None): radii are drawn first (largest placed first) and each is tried
    at up to 60 random places."""
    c = size / 2
    area = math.pi * region_r ** 2 if region_r else size * size
    r_mean = math.sqrt(0.62 * area / (math.pi * n))  # aim at ~62% cover with n dots of the mean area
    radii = _radii(kind, n, r_mean, rng)
    gap = max(1.0, 0.12 * r_mean)
    cell = 2 * radii.max() + gap
    nc = int(size / cell) + 1
    grid: dict[tuple[int, int], list[int]] = {}
    xs, ys, rs = [], [], []
    for r in radii:
        for _ in range(60):
            if region_r:
                rho = (region_r - r) * math.sqrt(rng.random())
                th = rng.uniform(0, 2 * math.pi)
                x, y = c + rho * math.cos(th), c + rho * math.sin(th)
            else:
                x, y = rng.uniform(r, size - r, 2)
            gx, gy = int(x / cell), int(y / cell)
            ok = True
            for i in range(max(gx - 1, 0), min(gx + 2, nc)):
                for j in range(max(gy - 1, 0), min(gy + 2, nc)):
                    for k in grid.get((i, j), ()):
                        if (xs[k] - x) ** 2 + (ys[k] - y) ** 2 < (rs[k] + r + gap) ** 2:
                            ok = False
                            break
                    if not ok:
                        break
                if not ok:
                    break
            if ok:
                grid.setdefault((gx, gy), []).append(len(xs))
                xs.append(x)
                ys.append(y)
                rs.append(r)
                break
    return np.column_stack([xs, ys, rs])


def text_mask(text: str, font: Path, size: int, stroke: str, rng: np.random.Generator) -> np.ndarray:
    """bool (size, size): ``text`` in ``font`` at a random height (45-65% of the plate), centred by its ink."""
    px = int(size * rng.uniform(0.45, 0.65))
    f = ImageFont.truetype(str(font), px)
    sw = int(round(px * rng.uniform(0.025, 0.05))) if stroke in ("bold", "outline") else 0
    canvas = Image.new("L", (size * 2, size * 2), 0)
    d = ImageDraw.Draw(canvas)
    d.text((size // 2, size // 2), text, font=f, fill=255, stroke_width=sw, stroke_fill=255)
    if stroke == "outline":
        inner = Image.new("L", canvas.size, 0)
        ImageDraw.Draw(inner).text((size // 2, size // 2), text, font=f, fill=255)
        ring = np.asarray(canvas) > 127
        ring &= ~(np.asarray(inner.filter(ImageFilter.MinFilter(3))) > 127)
        canvas = Image.fromarray((ring * 255).astype(np.uint8))
    box = canvas.getbbox()
    if box is None:
        raise ValueError(f"font {font.name} draws no ink for {text!r}")
    ink = canvas.crop(box)
    if stroke == "thin":  # erode to hairlines (a MinFilter over the ink's box only)
        k = 2 * max(1, int(px * 0.012)) + 1
        ink = ink.filter(ImageFilter.MinFilter(k))
        box = ink.getbbox()
        if box is None:
            raise ValueError(f"font {font.name} has no ink left for {text!r} after thinning")
        ink = ink.crop(box)
    limit = int(size * 0.72)
    if max(ink.size) > limit:  # keep the figure inside the disc
        s = limit / max(ink.size)
        ink = ink.resize((max(1, int(ink.size[0] * s)), max(1, int(ink.size[1] * s))), Image.Resampling.BILINEAR)
    out = Image.new("L", (size, size), 0)
    out.paste(ink, ((size - ink.size[0]) // 2, (size - ink.size[1]) // 2))
    return np.asarray(out) > 127


def _font_pool(kind: str) -> list[Path]:
    held = held_out_fonts()
    pools = {
        "held-out": held,
        "classic": classic_fonts(),
        "classic-and-held-out": [p for p in classic_fonts() + held if "ExtraLight" not in p.name],
        "serif": [p for p in held if "Serif" in p.name],
        "mono-narrow": [p for p in held if any(k in p.name for k in ("Mono", "Condensed", "Narrow"))],
        "light": [p for p in held if "ExtraLight" in p.name],
    }
    if kind not in pools:
        raise ValueError(f"font set {kind!r} not known; allowed: {', '.join(pools)}")
    if not pools[kind]:
        raise ValueError(f"no system font for the font set {kind!r} under {SYSTEM_FONT_DIR}")
    return pools[kind]


def _outside(kind: str, size: int, rng: np.random.Generator) -> Image.Image:
    if kind == "white":
        return Image.new("RGB", (size, size), (255, 255, 255))
    if kind == "black":
        return Image.new("RGB", (size, size), (0, 0, 0))
    if kind == "colour":
        return Image.new("RGB", (size, size), tuple(int(v) for v in rng.integers(0, 256, 3)))
    if kind == "texture":  # blotchy coloured noise, smoothed
        small = rng.integers(0, 256, (max(4, size // 24), max(4, size // 24), 3)).astype(np.uint8)
        return Image.fromarray(small).resize((size, size), Image.Resampling.BICUBIC)
    raise ValueError(f"outside {kind!r} not known; allowed: white, black, colour, texture")


def make_plate(cfg: Foreign, seed: int) -> tuple[Image.Image, str]:
    """One plate of ``cfg`` for ``seed`` -> (sRGB image, label)."""
    rng = np.random.default_rng([seed, 31])
    size = int(rng.integers(420, 900))
    if cfg.labels == "numbers":
        label = str(int(rng.integers(0, 100)))
    else:
        label = "".join(rng.choice(list(HUEMANITY_SYMBOLS), 2))
    fonts = _font_pool(cfg.fonts)
    font = fonts[int(rng.integers(len(fonts)))]
    fig_cols, gnd_cols = palette(cfg.palette, rng)
    if cfg.shape == "square":
        region = None
    elif cfg.shape == "margin":
        region = size / 2 * rng.uniform(0.6, 0.85)
    else:
        region = size / 2 * rng.uniform(0.96, 1.0)
    scale = 3 if cfg.antialias else 1
    s = size * scale
    n = int(rng.integers(*cfg.n_dots))
    circles = pack(n, cfg.radii, s, region * scale if region else None, rng)
    mask = text_mask(label, font, s if region is None else int(2 * region * scale), cfg.stroke, rng)
    if region is not None:  # the text is sized on the disc; place that mask at the centre of the frame
        full = np.zeros((s, s), dtype=bool)
        o = (s - mask.shape[0]) // 2
        full[o : o + mask.shape[0], o : o + mask.shape[1]] = mask
        mask = full
    img = _outside(cfg.outside, s, rng)
    draw = ImageDraw.Draw(img)
    if cfg.outside == "texture" and region is not None:  # the texture lies outside; the disc is paper-coloured
        c, rr = s / 2, region * scale
        draw.ellipse((c - rr, c - rr, c + rr, c + rr), fill=tuple(int(v) for v in rng.integers(225, 256, 3)))
    h, w = mask.shape
    for x, y, r in circles:
        if cfg.membership == "centre":
            on = mask[min(int(y), h - 1), min(int(x), w - 1)]
        else:
            y0, y1, x0, x1 = int(max(y - r, 0)), int(min(y + r + 1, h)), int(max(x - r, 0)), int(min(x + r + 1, w))
            yy, xx = np.mgrid[y0:y1, x0:x1]
            inside = (xx - x) ** 2 + (yy - y) ** 2 <= r * r
            on = bool(mask[y0:y1, x0:x1][inside].mean() > 0.3) if inside.any() else False
        cols = fig_cols if on else gnd_cols
        col = tuple(int(v) for v in cols[int(rng.integers(len(cols)))])
        draw.ellipse((x - r, y - r, x + r, y + r), fill=col)
    if scale != 1:
        img = img.resize((size, size), Image.Resampling.LANCZOS)
    return img, label


def variant(name: str, **changes) -> Foreign:
    """The variant ``name`` of :data:`VARIANTS`, optionally with fields changed."""
    if name not in VARIANTS:
        raise ValueError(f"foreign variant {name!r} not known; allowed: {', '.join(VARIANTS)}")
    return replace(VARIANTS[name], **changes)
