"""PlateSpec -> Plate: one Ishihara-style plate, fully determined by its spec.

Implements ColorBlindnessEval App. E (Algorithm 1: circles packed in a disc, coloured by whether their centre
falls on the reference image's figure; colour sets of App. D) and HueManity §3 (900 px, text mask in DejaVu Sans
Bold Oblique 550, dot radii 4-15 px, three colour jitters; pairs of Table 7), with fixes the papers lacked: a
seed (numpy ``Generator(PCG64)``, one independent stream per stage), text that never leaves the disc, an exact
CIEDE2000 control, and jitter that never makes a dot pure white or black unless asked.

Colours are sRGB 0-255 everywhere in this module.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields, replace as _dc_replace
from functools import cached_property
from typing import ClassVar

import numpy as np
from PIL import Image, ImageDraw

from plates import colour as C
from plates.stimuli.ishihara.glyphs import TEXT_SCALE, check_text, text_mask
from plates.stimuli.ishihara.measure import DrawnDeltaE, measure_dots, target_kind
from plates.stimuli.ishihara.packing import pack_circles
from plates.stimuli.ishihara.palettes import PALETTES, get_palette
from plates.stimuli.base import FAMILY_KEY, tagged_json

__all__ = ["PlateSpec", "Plate", "PlateStats", "VARIANTS", "render", "HUEMANITY_JITTER"]

VARIANTS = ("standard", "clear", "mask")
# px at 900 px; scaled linearly with the plate size when a spec leaves them None
MIN_RADIUS_900, MAX_RADIUS_900, GAP_900 = 3.0, 15.0, 0.6
# HueManity §3's jitter, in this module's units: shift up to 0.3 of the way to the other colour, RGB ±30,
# lightness factor e^U(-s, s) with s = ln 1.5 (0.667-1.5)
HUEMANITY_JITTER = {"jitter_shift": 0.3, "jitter_rgb": 30.0, "jitter_lightness": math.log(1.5)}
_EXTREME_LO, _EXTREME_HI = 8, 247  # jitter may not push a channel past these unless allow_extremes


def _colours(value, what: str) -> tuple[C.RGB, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) or (len(value) == 3 and all(isinstance(v, int | np.integer) for v in value)):
        value = (value,)
    out = tuple(C.parse_colour(v) for v in value)
    if not out:
        raise ValueError(f"{what} {value!r} is empty; allowed: one or more colours (hex or sRGB 0-255 tuples)")
    return out


def _number(name: str, value, lo: float, hi: float, *, none_ok: bool = False, integer: bool = False):
    if value is None and none_ok:
        return None
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not math.isfinite(value) or not lo <= value <= hi:
        raise ValueError(
            f"{name}={value!r} is not valid; allowed: {'an integer' if integer else 'a number'} in [{lo}, {hi}]"
            + (" or None" if none_ok else "")
        )
    return value if integer else float(value)


@dataclass(frozen=True)
class PlateSpec:
    """Everything that decides a plate's pixels. Colours: sRGB 0-255 (hex strings accepted, stored as tuples).

    Fields:
        text: the figure (any printable string; every character must exist in ``font``).
        size: image width = height in px (64-4096). The plate disc fills the image.
        font: a name of `plates.stimuli.ishihara.glyphs.FONTS` or a .ttf path.
        palette: a name of `plates.stimuli.ishihara.palettes.PALETTES`, or None when both colour lists are given.
        foreground, background: colour lists that replace the palette's (each optional when a palette is set).
        delta_e: CIEDE2000 target, or None. When set, each background colour is replaced by the colour at this
            ΔE2000 from the foreground reference (the CIELAB mean of the foreground colours, rounded to 8-bit),
            on the CIELAB line towards that background colour (`plates.colour.background_at_delta_e`).
        seed: 0 <= seed < 2**63; seeds numpy PCG64 streams for packing, colour choice and jitter.
        min_radius, max_radius, gap: dot radii and the least space between dots, px (None: 3, 15, 0.6 at
            900 px, scaled with size; HueManity §3 used 4-15, which with our packer and a visible gap gives only
            ~1,500 dots and ~69% coverage, so our smallest dots are a little smaller: >= 2,000 dots, >= 72%).
        density: the dot coverage (dot area / disc area) at which packing stops, 0.05-0.80 (default 0.75:
            pack until the disc is full, ~74% with the default radii); packing may saturate below it.
        text_scale: font size as a fraction of ``size`` before shrinking to fit (HueManity: 550/900).
        jitter_shift: each dot moves up to this fraction (0-1) of the way towards a colour of the other class
            (HueManity: 0.3). jitter_rgb: each channel shifts by U(-j, j) sRGB 0-255 units (HueManity: 30).
            jitter_lightness: the colour is scaled by e^U(-s, s), s in 0-1 (HueManity: ln 1.5), capped so no
            channel clips (hue is kept).
        allow_extremes: when False, jitter never moves a channel beyond 8-247 (unless the palette colour already
            is), so no dot becomes pure white or black.
        canvas: colour outside the disc and between dots.
    """

    text: str
    size: int = 900
    font: str = "dejavu-sans-bold-oblique"
    palette: str | None = "huemanity-01"
    foreground: tuple[C.RGB, ...] | None = None
    background: tuple[C.RGB, ...] | None = None
    delta_e: float | None = None
    seed: int = 0
    min_radius: float | None = None
    max_radius: float | None = None
    gap: float | None = None
    density: float = 0.75
    text_scale: float = TEXT_SCALE
    jitter_shift: float = 0.0
    jitter_rgb: float = 0.0
    jitter_lightness: float = 0.0
    allow_extremes: bool = False
    canvas: C.RGB = field(default=(255, 255, 255))

    FAMILY: ClassVar[str] = "ishihara"

    def __post_init__(self) -> None:
        s = object.__setattr__
        _number("size", self.size, 64, 4096, integer=True)
        _number("seed", self.seed, 0, 2**63 - 1, integer=True)
        if self.palette is not None and self.palette not in PALETTES:
            get_palette(self.palette)  # raises, listing the names
        s(self, "foreground", _colours(self.foreground, "foreground"))
        s(self, "background", _colours(self.background, "background"))
        if self.palette is None and (self.foreground is None or self.background is None):
            raise ValueError(
                f"palette=None needs both foreground and background (got foreground={self.foreground!r}, "
                f"background={self.background!r}); allowed: a palette name ({', '.join(list(PALETTES)[:3])}, ...) "
                "or both colour lists"
            )
        s(self, "canvas", C.parse_colour(self.canvas))
        for name in ("min_radius", "max_radius", "gap"):
            s(self, name, _number(name, getattr(self, name), 0.0 if name == "gap" else 0.5, self.size / 8, none_ok=True))
        if self.r_min > self.r_max:
            raise ValueError(
                f"min_radius={self.r_min} > max_radius={self.r_max}; allowed: min_radius <= max_radius"
            )
        if self.r_gap > self.r_max:
            raise ValueError(f"gap={self.r_gap} is not valid; allowed: 0 <= gap <= max_radius ({self.r_max})")
        s(self, "density", _number("density", self.density, 0.05, 0.80))
        s(self, "text_scale", _number("text_scale", self.text_scale, 0.05, 2.0))
        s(self, "jitter_shift", _number("jitter_shift", self.jitter_shift, 0.0, 1.0))
        s(self, "jitter_rgb", _number("jitter_rgb", self.jitter_rgb, 0.0, 255.0))
        s(self, "jitter_lightness", _number("jitter_lightness", self.jitter_lightness, 0.0, 1.0))
        if not isinstance(self.allow_extremes, bool):
            raise ValueError(f"allow_extremes={self.allow_extremes!r} is not valid; allowed: True or False")
        if self.delta_e is not None:
            s(self, "delta_e", _number("delta_e", self.delta_e, 1e-6, 200.0))
        check_text(self.text, self.font)
        _ = self.colours  # resolves delta_e now: an unreachable target fails here, naming the maximum

    # ---- resolved values -------------------------------------------------------------------------------
    @property
    def r_min(self) -> float:
        """Minimum dot radius in px (spec value or 3 px scaled from 900 px)."""
        return self.min_radius if self.min_radius is not None else MIN_RADIUS_900 * self.size / 900

    @property
    def r_max(self) -> float:
        """Maximum dot radius in px (spec value or 15 px scaled from 900 px)."""
        return self.max_radius if self.max_radius is not None else MAX_RADIUS_900 * self.size / 900

    @property
    def r_gap(self) -> float:
        """Least space between two dots in px (spec value or 0.6 px scaled from 900 px)."""
        return self.gap if self.gap is not None else GAP_900 * self.size / 900

    @cached_property
    def colours(self) -> tuple[tuple[C.RGB, ...], tuple[C.RGB, ...]]:
        """(foreground, background) colour lists actually drawn, sRGB 0-255, after palette and delta_e."""
        pal = get_palette(self.palette) if self.palette is not None else None
        fg = self.foreground if self.foreground is not None else pal.foreground  # type: ignore[union-attr]
        bg = self.background if self.background is not None else pal.background  # type: ignore[union-attr]
        if self.delta_e is not None:
            ref = self.foreground_reference(fg)
            bg = tuple(C.background_at_delta_e(ref, b, self.delta_e) for b in bg)
        return tuple(fg), tuple(bg)

    @staticmethod
    def foreground_reference(fg: tuple[C.RGB, ...]) -> C.RGB:
        """The CIELAB mean of the foreground colours, as 8-bit sRGB 0-255 (ΔE2000 targets are relative to it)."""
        if len(fg) == 1:
            return fg[0]
        rgb = np.clip(np.rint(C.lab_to_srgb255(C.srgb255_to_lab(np.array(fg)).mean(axis=0))), 0, 255).astype(int)
        return (int(rgb[0]), int(rgb[1]), int(rgb[2]))

    # ---- JSON -------------------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """Plain dict of the fields (colours as lists), in field order."""
        d = asdict(self)
        for k in ("foreground", "background"):
            if d[k] is not None:
                d[k] = [list(c) for c in d[k]]
        d["canvas"] = list(d["canvas"])
        return d

    def to_json(self) -> str:
        """Compact JSON with keys sorted and the family tag (``"family": "ishihara"``): equal specs give equal
        strings, and `plates.stimuli.spec_from_json` knows which family to rebuild."""
        return tagged_json(self.FAMILY, self.to_dict())

    @classmethod
    def from_json(cls, s: str | dict) -> PlateSpec:
        """Inverse of `to_json` (also accepts the dict). Unknown keys are a ValueError listing the fields."""
        d = json.loads(s) if isinstance(s, str | bytes) else dict(s)
        if not isinstance(d, dict):
            raise ValueError(f"plate spec JSON {s!r} is not an object; allowed: a JSON object of PlateSpec fields")
        family = d.pop(FAMILY_KEY, cls.FAMILY)  # specs stored before families existed carry no tag
        if family != cls.FAMILY:
            raise ValueError(f"spec JSON of family {family!r} is not a plate spec; allowed: {cls.FAMILY!r} (or "
                             "plates.stimuli.spec_from_json for any family)")
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(d) - set(names))
        if unknown:
            raise ValueError(f"plate spec keys {unknown} are not known; allowed: {', '.join(names)}")
        for k in ("foreground", "background"):
            if d.get(k) is not None:
                d[k] = tuple(tuple(c) if isinstance(c, list) else c for c in d[k])
        if isinstance(d.get("canvas"), list):
            d["canvas"] = tuple(d["canvas"])
        return cls(**d)

    def replace(self, **changes) -> PlateSpec:
        """A copy with ``changes`` applied (validated again)."""
        names = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ValueError(f"plate spec fields {unknown} are not known; allowed: {', '.join(sorted(names))}")
        return _dc_replace(self, **changes)


@dataclass(frozen=True)
class PlateStats:
    """Measurements of one plate.

    dot_count: number of dots. coverage: dot area / disc area (0-1). text_coverage: share of the text mask's
    ink pixels painted by foreground dots (0-1). delta_e: mean CIEDE2000 over every (foreground, background)
    pair of the palette colours as resolved (before jitter; colour-science "CIE 2000"); delta_e_min: the
    smallest of those pairs; delta_e_target: the spec's target or None. delta_e_drawn: the ΔE2000
    distribution over the (foreground dot, background dot) pairs as painted, jitter included, and which
    quantity the target sets (`plates.stimuli.ishihara.measure`); None when no dot is of one class.
    """

    dot_count: int
    coverage: float
    text_coverage: float
    delta_e: float
    delta_e_min: float
    delta_e_target: float | None
    delta_e_drawn: DrawnDeltaE | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    def keys(self) -> tuple[str, ...]:
        """The field names: with ``__getitem__``, ``dict(stats)`` works like any stimulus's stats mapping."""
        return tuple(f.name for f in fields(self))

    def __getitem__(self, key: str):
        return getattr(self, key)


# ---- rendering -----------------------------------------------------------------------------------------
def paint_dots(size: int, x, y, r, colours: np.ndarray, canvas, mode: str = "RGB") -> Image.Image:
    """Draw dots (centres x, y and radii r in px; colours (n, 3) uint8 sRGB 0-255, or (n,) for mode "L") on a
    ``canvas``-coloured image with Pillow's ellipse fill (hard-edged, like HueManity's pygame circles).

    Calls Pillow's core ``draw_ellipse`` with inks resolved once per distinct colour: the same pixels as
    ``ImageDraw.ellipse(..., fill=colour)``, without its per-call colour parsing.
    """
    im = Image.new(mode, (size, size), canvas)
    core = ImageDraw.Draw(im).draw
    if mode == "RGB":
        packed = colours[:, 0].astype(np.int64) | (colours[:, 1].astype(np.int64) << 8) | (
            colours[:, 2].astype(np.int64) << 16
        )
    else:
        packed = colours.astype(np.int64)
    uniq, inv = np.unique(packed, return_inverse=True)
    inks = [core.draw_ink((int(u) & 255, (int(u) >> 8) & 255, int(u) >> 16) if mode == "RGB" else int(u)) for u in uniq]
    ink_of = [inks[i] for i in inv.tolist()]
    # Pillow fills the pixels of the box's inclusive corners: this box paints closest to the pixels whose
    # centres lie within r of (x, y)
    h = np.maximum(np.asarray(r) - 0.5, 0.0)
    boxes = np.stack([x - h, y - h, x + h, y + h], axis=1).tolist()
    draw = core.draw_ellipse
    for box, ink in zip(boxes, ink_of):
        draw(box, ink, 1)
    return im


def _jitter(spec: PlateSpec, base: np.ndarray, other: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """HueManity §3's three colour transforms on (n, 3) float sRGB 0-255 colours; returns uint8 (n, 3)."""
    n = base.shape[0]
    t = rng.random(n) * spec.jitter_shift
    shift = rng.uniform(-1.0, 1.0, size=(n, 3)) * spec.jitter_rgb
    logf = rng.uniform(-1.0, 1.0, size=n) * spec.jitter_lightness
    col = base + t[:, None] * (other - base)  # gradient shift towards the other class's colour
    col = col + shift  # RGB shift
    f = np.exp(logf)
    top = col.max(axis=1)
    f = np.where(f > 1.0, np.minimum(f, 255.0 / np.maximum(top, 1e-9)), f)  # brighten without clipping
    col = col * np.maximum(f, 0.0)[:, None]
    if not spec.allow_extremes:
        col = np.clip(col, np.minimum(base, _EXTREME_LO), np.maximum(base, _EXTREME_HI))
    return np.clip(np.rint(col), 0, 255).astype(np.uint8)


class Plate:
    """A rendered plate: ``image`` (PIL RGB, standard plate), ``clear`` (foreground dots only, ColorBlindnessEval
    §3 "clear"), ``mask`` (PIL "L", white text on black: HueManity §4's text-mask condition), ``dots``
    (pandas DataFrame x, y, r, class, colour as "#rrggbb") and ``stats`` (`PlateStats`)."""

    def __init__(self, spec: PlateSpec, x, y, r, is_fg, colours, mask: np.ndarray, image: Image.Image):
        self.spec = spec
        self.x, self.y, self.r = x, y, r  # px, float64 (n,)
        self.is_fg = is_fg  # bool (n,)
        self.dot_colours = colours  # uint8 (n, 3) sRGB 0-255
        self.mask_array = mask  # bool (size, size), read-only
        self.image = image  # PIL RGB, sRGB 0-255

    @property
    def pixels(self) -> np.ndarray:
        """The standard plate as a (size, size, 3) uint8 array, sRGB 0-255."""
        return np.asarray(self.image)

    @property
    def masks(self) -> dict[str, np.ndarray]:
        """The stimulus contract's regions (`plates.stimuli.base.Stimulus`): ``{"text": bool (size, size)}``."""
        return {"text": self.mask_array}

    @property
    def truth(self) -> dict[str, str]:
        """The stimulus contract's ground truth: ``{"label": the plate's text}``."""
        return {"label": self.spec.text}

    @cached_property
    def clear(self) -> Image.Image:
        fg = self.is_fg
        return paint_dots(self.spec.size, self.x[fg], self.y[fg], self.r[fg], self.dot_colours[fg], self.spec.canvas)

    @cached_property
    def mask(self) -> Image.Image:
        return Image.fromarray(self.mask_array.astype(np.uint8) * 255, "L")

    def variant(self, name: str) -> Image.Image:
        """The PIL RGB image of one variant: "standard", "clear" or "mask"."""
        if name == "standard":
            return self.image
        if name == "clear":
            return self.clear
        if name == "mask":
            return self.mask.convert("RGB")
        raise ValueError(f"variant {name!r} is not known; allowed: {', '.join(VARIANTS)}")

    @cached_property
    def dots(self):
        import pandas as pd

        hexes = np.array([C.to_hex(tuple(int(v) for v in c)) for c in self.dot_colours], dtype=object)
        return pd.DataFrame(
            {
                "x": self.x,
                "y": self.y,
                "r": self.r,
                "class": np.where(self.is_fg, "foreground", "background"),
                "colour": hexes,
            }
        )

    @cached_property
    def stats(self) -> PlateStats:
        size, R = self.spec.size, self.spec.size / 2.0
        fg = self.is_fg
        ones = np.full(int(fg.sum()), 255, dtype=np.uint8)
        painted = np.asarray(paint_dots(size, self.x[fg], self.y[fg], self.r[fg], ones, 0, mode="L")) > 0
        ink = int(self.mask_array.sum())
        text_cov = float((painted & self.mask_array).sum() / ink) if ink else 0.0
        fgc, bgc = self.spec.colours
        de = _pair_delta_e(fgc, bgc)
        return PlateStats(
            dot_count=int(self.r.size),
            coverage=float(np.sum(self.r**2) / (R * R)),
            text_coverage=text_cov,
            delta_e=float(de.mean()),
            delta_e_min=float(de.min()),
            delta_e_target=self.spec.delta_e,
            delta_e_drawn=measure_dots(self.dot_colours, fg, nominal=float(de.mean()), target=self.spec.delta_e,
                                       target_kind=target_kind(self.spec), seed=self.spec.seed)
            if fg.any() and not fg.all() else None,  # a plate too small for its text draws no pair
        )


def _pair_delta_e(fg: tuple[C.RGB, ...], bg: tuple[C.RGB, ...]) -> np.ndarray:
    """CIEDE2000 of every (foreground, background) pair, shape (len(fg), len(bg))."""
    a = np.array(fg, dtype=np.float64)[:, None, :]
    b = np.array(bg, dtype=np.float64)[None, :, :]
    return np.asarray(C.delta_e2000(np.broadcast_to(a, (len(fg), len(bg), 3)), np.broadcast_to(b, (len(fg), len(bg), 3))))


def render(spec: PlateSpec) -> Plate:
    """Render ``spec``: a pure function of it (byte-identical pixels in any process).

    Stages, each with its own PCG64 stream spawned from ``SeedSequence(spec.seed)``: pack dots in the disc
    (`plates.stimuli.ishihara.packing`), pick each dot's colour from its class's list (class = is the centre on the text mask:
    ColorBlindnessEval Algorithm 1, HueManity §3), jitter, paint.
    """
    size = spec.size
    mask = text_mask(spec.text, spec.font, size, spec.r_max, spec.text_scale)
    s_pack, s_col, s_jit = np.random.SeedSequence(spec.seed).spawn(3)
    packing = pack_circles(
        size / 2.0, spec.r_min, spec.r_max, spec.r_gap, np.random.Generator(np.random.PCG64(s_pack)),
        target_coverage=spec.density,
    )
    x, y, r = packing.x, packing.y, packing.r
    row = np.minimum(y.astype(np.int64), size - 1)  # centres lie inside the disc: x, y >= 0
    col = np.minimum(x.astype(np.int64), size - 1)
    is_fg = mask[row, col]
    fgc, bgc = spec.colours
    fga, bga = np.array(fgc, dtype=np.float64), np.array(bgc, dtype=np.float64)
    rng = np.random.Generator(np.random.PCG64(s_col))
    n = r.size
    pick_fg = rng.integers(0, len(fgc), size=n)
    pick_bg = rng.integers(0, len(bgc), size=n)
    own = np.where(is_fg[:, None], fga[pick_fg], bga[pick_bg])
    other = np.where(is_fg[:, None], bga[pick_bg], fga[pick_fg])
    jittered = spec.jitter_shift or spec.jitter_rgb or spec.jitter_lightness
    if jittered:
        colours = _jitter(spec, own, other, np.random.Generator(np.random.PCG64(s_jit)))
    else:
        colours = own.astype(np.uint8)
    image = paint_dots(size, x, y, r, colours, spec.canvas)
    return Plate(spec, x, y, r, is_fg, colours, mask, image)
