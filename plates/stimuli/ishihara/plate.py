"""PlateSpec -> Plate: one Ishihara-style plate, fully determined by its spec.

Implements ColorBlindnessEval App. E (Algorithm 1: circles packed in a disc, coloured by whether their centre
falls on the reference image's figure; colour sets of App. D) and HueManity §3 (900 px, text mask in DejaVu Sans
Bold Oblique 550, dot radii 4-15 px, three colour jitters; pairs of Table 7), with fixes the papers lacked: a
seed (numpy ``Generator(PCG64)``, one independent stream per stage), text that never leaves the disc, an exact
CIEDE2000 control, and jitter that never makes a dot pure white or black unless asked.

Each paper's own look is a *style* (`plates.stimuli.ishihara.styles`: ``dense``, ``cbe``, ``huemanity``), and
what the papers' released code did where it differs from their text is selectable: which palette colour goes
on the text (``colour_roles``) and how jitter clips (``jitter_rule``, `plates.stimuli.ishihara.jitter`).

Colours are sRGB 0-255 everywhere in this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from functools import cached_property, lru_cache
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from plates import colour as C
from plates.stimuli.base import SpecBase
from plates.stimuli.ishihara.glyphs import TEXT_SCALE, check_text, text_mask
from plates.stimuli.ishihara.jitter import HUEMANITY_JITTER, JITTER_RULES, jitter
from plates.stimuli.ishihara.measure import DrawnDeltaE, measure_dots, target_kind
from plates.stimuli.ishihara.paint import paint_dots, paint_dots_aa, paint_dots_aa_pixels
from plates.stimuli.ishihara.palettes import PALETTES, get_palette
from plates.stimuli.ishihara.styles import STYLES, Style, get_style, pack_style
from plates.validation import check_choice, check_number, not_known

__all__ = ["COLOUR_ROLES", "HUEMANITY_JITTER", "VARIANTS", "Plate", "PlateSpec", "PlateStats", "paint_dots", "render",
           "render_on_mask"]

VARIANTS = ("standard", "clear", "mask")
#: Which palette colour goes on the text: "paper-text" (the palette's foreground colours on the text, as the
#: papers' text says) or "released-code" (HueManity's released generator: the Table 7 "Foreground" colour on
#: the dots OUTSIDE the text and the "Background" colour on the text).
COLOUR_ROLES = ("paper-text", "released-code")
DEFAULT_DENSITY = 0.75
# the dense style's radii and gap in px at 900 px (scaled with the plate size when a spec leaves them None)
MIN_RADIUS_900, MAX_RADIUS_900, GAP_900 = (STYLES["dense"].min_radius_900, STYLES["dense"].max_radius_900,
                                           STYLES["dense"].gap_900)
# fields added after plate specs were first stored, with their defaults: left out of to_dict at these values,
# so the JSON (and the pixels) of every spec written before them is unchanged
_LATER_FIELDS = {"style": "dense", "colour_roles": "paper-text", "jitter_rule": "keep-hue", "antialias": None,
                 "tries": None, "delta_e_direction": None}


def _colours(value, what: str) -> tuple[C.RGB, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) or (len(value) == 3 and all(isinstance(v, int | np.integer) for v in value)):
        value = (value,)
    out = tuple(C.parse_colour(v) for v in value)
    if not out:
        raise ValueError(f"{what} {value!r} is empty; allowed: one or more colours (hex or sRGB 0-255 tuples)")
    return out



def _direction(value, delta_e: float | None) -> tuple[float, float, float]:
    """A CIELAB direction (ΔL*, Δa*, Δb*) as a unit vector rounded to 6 decimals (so its JSON is stable)."""
    try:
        v = np.array([float(c) for c in value], dtype=float)
    except (TypeError, ValueError):
        v = np.array([])
    norm = float(np.linalg.norm(v)) if v.size == 3 and np.all(np.isfinite(v)) else 0.0
    if norm < 1e-9:
        raise ValueError(f"delta_e_direction={value!r} is not valid; allowed: None or three finite numbers "
                         "(ΔL*, Δa*, Δb*), not all zero")
    if delta_e is None:
        raise ValueError(f"delta_e_direction={value!r} needs delta_e; allowed: None when delta_e is None")
    u = np.round(v / norm, 6)
    return (float(u[0]), float(u[1]), float(u[2]))


@dataclass(frozen=True)
class PlateSpec(SpecBase):
    """Everything that decides a plate's pixels. Colours: sRGB 0-255 (hex strings accepted, stored as tuples).

    A frozen, validated spec (`plates.stimuli.base.SpecBase`): a bad value (a character the font lacks too) is a
    ValueError at construction, naming it and what is allowed. Every field, its unit and its source are described on the documentation's plates page
    (docs/plates.md, "The fields of a PlateSpec"); the papers' styles on the same page.

    Parameters
    ----------
    text : str
        The figure; every character must exist in ``font``.
    size : int, optional
        Image width = height, px (64-4096).
    font : str, optional
        A name of `plates.stimuli.ishihara.glyphs.FONTS` or a .ttf path.
    palette : str or None, optional
        A name of `plates.stimuli.ishihara.palettes.PALETTES`; None needs both colour lists.
    foreground, background : sequence of colour or None, optional
        sRGB 0-255 triples or hex strings replacing the palette's figure / ground colours.
    delta_e : float or None, optional
        CIEDE2000 target distance of the background from the foreground reference (1e-6-200), or None.
    seed : int, optional
        0 <= seed < 2**63; seeds the numpy PCG64 streams of packing, colour choice and jitter.
    min_radius, max_radius, gap : float or None, optional
        Dot radii and the least space between dots, px (0.5 or 0 for ``gap`` up to size / 8); None takes the
        style's values scaled with ``size``.
    density : float, optional
        Dot coverage (dot area / disc area) at which dense packing stops, 0.05-0.80.
    text_scale : float, optional
        Font size as a fraction of ``size`` before shrinking to fit, 0.05-2.
    jitter_shift : float, optional
        Fraction (0-1) of the way each dot's colour moves towards the other class.
    jitter_rgb : float, optional
        Per-channel shift U(-j, j), sRGB 0-255 units (0-255).
    jitter_lightness : float, optional
        Lightness scale e^U(-s, s), s in 0-1.
    allow_extremes : bool, optional
        Whether jitter may move a channel beyond 8-247.
    canvas : colour, optional
        sRGB 0-255 (or hex) outside the disc and between dots.
    style : str, optional
        A name of `plates.stimuli.ishihara.styles.STYLES`: "dense", "cbe" or "huemanity".
    colour_roles : str, optional
        "paper-text" or "released-code" (which palette colours paint the text).
    jitter_rule : str, optional
        "keep-hue" or "released-code" (`plates.stimuli.ishihara.jitter`).
    antialias : bool or None, optional
        Anti-aliased dots, hard-edged, or None for the style's default.
    tries : int or None, optional
        Monte Carlo tries of the "cbe" and "huemanity" styles, within the style's range; None for its default.
    delta_e_direction : tuple of float or None, optional
        A CIELAB direction (ΔL*, Δa*, Δb*), stored as a unit vector: one background colour at ``delta_e`` along
        it (needs ``delta_e``).

    Raises
    ------
    ValueError
        A value out of its range or not allowed, naming it and what is allowed.

    References
    ----------
    HueManity §3 and Table 7; ColorBlindnessEval App. D-E (the styles; docs/plates.md).
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
    style: str = "dense"
    colour_roles: str = "paper-text"
    jitter_rule: str = "keep-hue"
    antialias: bool | None = None
    tries: int | None = None
    delta_e_direction: tuple[float, float, float] | None = None

    FAMILY: ClassVar[str] = "ishihara"
    LATER_FIELDS: ClassVar[Mapping[str, Any]] = _LATER_FIELDS

    def __post_init__(self) -> None:
        s = object.__setattr__
        check_number("size", self.size, 64, 4096, integer=True)
        self._check_style()
        check_number("seed", self.seed, 0, 2**63 - 1, integer=True)
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
            s(self, name, check_number(name, getattr(self, name), 0.0 if name == "gap" else 0.5, self.size / 8, none_ok=True))
        if self.r_min > self.r_max:
            raise ValueError(
                f"min_radius={self.r_min} > max_radius={self.r_max}; allowed: min_radius <= max_radius"
            )
        if self.r_gap > self.r_max:
            raise ValueError(f"gap={self.r_gap} is not valid; allowed: 0 <= gap <= max_radius ({self.r_max})")
        s(self, "density", check_number("density", self.density, 0.05, 0.80))
        s(self, "text_scale", check_number("text_scale", self.text_scale, 0.05, 2.0))
        s(self, "jitter_shift", check_number("jitter_shift", self.jitter_shift, 0.0, 1.0))
        s(self, "jitter_rgb", check_number("jitter_rgb", self.jitter_rgb, 0.0, 255.0))
        s(self, "jitter_lightness", check_number("jitter_lightness", self.jitter_lightness, 0.0, 1.0))
        if not isinstance(self.allow_extremes, bool):
            raise ValueError(f"allow_extremes={self.allow_extremes!r} is not valid; allowed: True or False")
        if self.delta_e is not None:
            s(self, "delta_e", check_number("delta_e", self.delta_e, 1e-6, 200.0))
        if self.delta_e_direction is not None:
            s(self, "delta_e_direction", _direction(self.delta_e_direction, self.delta_e))
        if self.style == "huemanity" and self.r_min < self.size / 900:
            raise ValueError(f"min_radius={self.r_min} is not valid for style 'huemanity' on a {self.size} px plate; "
                             f"allowed: >= {self.size / 900:g} px (one pixel of its 900 px lattice)")
        check_text(self.text, self.font)
        _ = self.colours  # resolves delta_e now: an unreachable target fails here, naming the maximum

    def _check_style(self) -> None:
        st = get_style(self.style)  # raises, listing the styles
        for name, value, allowed in (("colour_roles", self.colour_roles, COLOUR_ROLES),
                                     ("jitter_rule", self.jitter_rule, JITTER_RULES)):
            check_choice(name, value, allowed)
        if self.antialias is not None and not isinstance(self.antialias, bool):
            raise ValueError(f"antialias={self.antialias!r} is not valid; allowed: True, False or None (the style's)")
        if self.tries is not None:
            if st.tries_range is None:
                raise ValueError(f"tries={self.tries!r} is not valid for style {self.style!r}; allowed: None "
                                 f"(only the Monte Carlo styles {', '.join(n for n, v in STYLES.items() if v.tries)} "
                                 "take tries)")
            check_number(f"tries (style {self.style!r})", self.tries, *st.tries_range, integer=True)
        if st.tries is not None and self.density != DEFAULT_DENSITY:
            raise ValueError(f"density={self.density!r} is not valid for style {self.style!r}, which stops after its "
                             f"tries; allowed: {DEFAULT_DENSITY} (density applies to style 'dense' only)")

    @property
    def style_info(self) -> Style:
        """The `plates.stimuli.ishihara.styles.Style` of this spec."""
        return STYLES[self.style]

    @property
    def anti_aliased(self) -> bool:
        """Whether dots are painted anti-aliased (``antialias``, or the style's default)."""
        return self.style_info.antialias if self.antialias is None else self.antialias

    @property
    def n_tries(self) -> int | None:
        """Monte Carlo tries (``tries`` or the style's default); None for the dense style."""
        return self.tries if self.tries is not None else self.style_info.tries

    @property
    def role_colours(self) -> tuple[tuple[C.RGB, ...], tuple[C.RGB, ...]]:
        """(colours on the text, colours off the text), sRGB 0-255: `colours` ordered by ``colour_roles``."""
        fg, bg = self.colours
        return (fg, bg) if self.colour_roles == "paper-text" else (bg, fg)

    # ---- resolved values -------------------------------------------------------------------------------
    @property
    def r_min(self) -> float:
        """Minimum dot radius in px (spec value or the style's, e.g. 3 px for dense, scaled from 900 px)."""
        return self.min_radius if self.min_radius is not None else self.style_info.min_radius_900 * self.size / 900

    @property
    def r_max(self) -> float:
        """Maximum dot radius in px (spec value or the style's, e.g. 15 px for dense, scaled from 900 px)."""
        return self.max_radius if self.max_radius is not None else self.style_info.max_radius_900 * self.size / 900

    @property
    def r_gap(self) -> float:
        """Least space between two dots in px (spec value or the style's, e.g. 0.6 px for dense, scaled)."""
        return self.gap if self.gap is not None else self.style_info.gap_900 * self.size / 900

    @cached_property
    def colours(self) -> tuple[tuple[C.RGB, ...], tuple[C.RGB, ...]]:
        """(foreground, background) colour lists actually drawn, sRGB 0-255, after palette and delta_e."""
        pal = get_palette(self.palette) if self.palette is not None else None
        fg = self.foreground if self.foreground is not None else pal.foreground  # type: ignore[union-attr]
        bg = self.background if self.background is not None else pal.background  # type: ignore[union-attr]
        if self.delta_e is not None and self.delta_e_direction is not None:
            bg = (C.colour_at_delta_e(self.foreground_reference(fg), self.delta_e_direction, self.delta_e),)
        elif self.delta_e is not None:
            ref = self.foreground_reference(fg)
            bg = tuple(C.background_at_delta_e(ref, b, self.delta_e) for b in bg)
        return tuple(fg), tuple(bg)

    @staticmethod
    def foreground_reference(fg: tuple[C.RGB, ...]) -> C.RGB:
        """The CIELAB mean of the foreground colours, as 8-bit sRGB 0-255 (ΔE2000 targets are relative to it).

        Parameters
        ----------
        fg : tuple of (tuple of 3 int)
            The foreground colours, sRGB 0-255.

        Returns
        -------
        tuple of 3 int
            sRGB 0-255: the one colour itself when there is one, else the rounded mean.
        """
        if len(fg) == 1:
            return fg[0]
        rgb = np.clip(np.rint(C.lab_to_srgb255(C.srgb255_to_lab(np.array(fg)).mean(axis=0))), 0, 255).astype(int)
        return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


@dataclass(frozen=True)
class PlateStats:
    """Measurements of one plate.

    Attributes
    ----------
    dot_count : int
        The number of dots.
    coverage : float
        Dot area / disc area (0-1).
    text_coverage : float
        The share of the text mask's ink pixels painted by foreground dots (0-1).
    delta_e : float
        Mean CIEDE2000 over every (foreground, background) pair of the palette colours as resolved (before
        jitter; colour-science "CIE 2000").
    delta_e_min : float
        The smallest of those pairs.
    delta_e_target : float or None
        The spec's target, or None.
    delta_e_drawn : DrawnDeltaE or None
        The ΔE2000 distribution over the (foreground dot, background dot) pairs as painted, jitter included,
        and which quantity the target sets (`plates.stimuli.ishihara.measure`); None when no dot is of one
        class.
    """

    dot_count: int
    coverage: float
    text_coverage: float
    delta_e: float
    delta_e_min: float
    delta_e_target: float | None
    delta_e_drawn: DrawnDeltaE | None = None

    def as_dict(self) -> dict:
        """The fields as a plain dict (`dataclasses.asdict`); ``delta_e_drawn`` a dict too."""
        return asdict(self)

    def keys(self) -> tuple[str, ...]:
        """The field names: with ``__getitem__``, ``dict(stats)`` works like any stimulus's stats mapping."""
        return tuple(f.name for f in fields(self))

    def __getitem__(self, key: str):
        return getattr(self, key)


# ---- rendering -----------------------------------------------------------------------------------------
class Plate:
    """A rendered plate: ``image`` (PIL RGB, standard plate), ``clear`` (foreground dots only, ColorBlindnessEval
    §3 "clear"), ``mask`` (PIL "L", white text on black: HueManity §4's text-mask condition), ``dots``
    (pandas DataFrame x, y, r, class, colour as "#rrggbb") and ``stats`` (`PlateStats`).

    Parameters
    ----------
    spec : PlateSpec
        The spec it was rendered from.
    x, y, r : numpy.ndarray of float64, shape (n,)
        The dots' centres and radii, px.
    is_fg : numpy.ndarray of bool, shape (n,)
        True for the figure's dots.
    colours : numpy.ndarray of uint8, shape (n, 3)
        Each dot's colour as painted, sRGB 0-255.
    mask : numpy.ndarray of bool, shape (size, size)
        The figure's mask.
    image : PIL.Image.Image or None
        The standard plate (RGB), or None when ``pixels`` stand for it.
    pixels : numpy.ndarray of uint8, shape (size, size, 3), optional
        The standard plate's pixels, sRGB 0-255.

    Raises
    ------
    ValueError
        When both ``image`` and ``pixels`` are None.
    """

    def __init__(self, spec: PlateSpec, x, y, r, is_fg, colours, mask: np.ndarray, image: Image.Image | None,
                 pixels: np.ndarray | None = None):
        if image is None and pixels is None:
            raise ValueError("a Plate needs its image or its pixels; allowed: either or both")
        self.spec = spec
        self._image = image
        self._pixels = pixels  # the painter's (size, size, 3) uint8 array of ``image``, when it made one
        self.x, self.y, self.r = x, y, r  # px, float64 (n,)
        self.is_fg = is_fg  # bool (n,)
        self.dot_colours = colours  # uint8 (n, 3) sRGB 0-255
        self.mask_array = mask  # bool (size, size), read-only

    @property
    def image(self) -> Image.Image:
        """The standard plate, PIL RGB, sRGB 0-255 (made from the painter's pixels on first use: writing a set
        encodes the pixels and never needs it)."""
        if self._image is None:
            self._image = Image.fromarray(self._pixels, "RGB")
        return self._image

    @property
    def pixels(self) -> np.ndarray:
        """The standard plate as a (size, size, 3) uint8 array, sRGB 0-255 (read-only)."""
        return self._pixels if self._pixels is not None else np.asarray(self.image)

    @property
    def masks(self) -> dict[str, np.ndarray]:
        """The stimulus contract's regions (`plates.stimuli.base.Stimulus`): ``{"text": bool (size, size)}``."""
        return {"text": self.mask_array}

    @property
    def truth(self) -> dict[str, str]:
        """The stimulus contract's ground truth: ``{"label": the plate's text}``."""
        return {"label": self.spec.text}

    def __getstate__(self) -> dict:
        """Pickled (a worker's render sent to the explorer's server) without the images derived from the rest
        (``clear``, ``mask``, ``dots``: remade on first use), half the bytes of a 512 px plate."""
        return {k: v for k, v in self.__dict__.items() if k not in ("clear", "mask", "dots")}

    @cached_property
    def clear(self) -> Image.Image:
        fg = self.is_fg
        paint = paint_dots_aa if self.spec.anti_aliased else paint_dots
        return paint(self.spec.size, self.x[fg], self.y[fg], self.r[fg], self.dot_colours[fg], self.spec.canvas)

    @cached_property
    def mask(self) -> Image.Image:
        return Image.fromarray(self.mask_array.astype(np.uint8) * 255, "L")

    def variant_pixels(self, name: str) -> np.ndarray | Image.Image:
        """What `plates.images.encode_png` takes for one variant: the standard plate's pixel array (no copy
        out of PIL), or the variant's image.

        Parameters
        ----------
        name : str
            "standard", "clear" or "mask".

        Returns
        -------
        numpy.ndarray or PIL.Image.Image
            sRGB 0-255 pixels (standard) or an RGB image.

        Raises
        ------
        ValueError
            For another name (`variant`).
        """
        return self.pixels if name == "standard" else self.variant(name)

    def variant(self, name: str) -> Image.Image:
        """The PIL RGB image of one variant: "standard", "clear" or "mask".

        Parameters
        ----------
        name : str
            "standard", "clear" or "mask" (`VARIANTS`).

        Returns
        -------
        PIL.Image.Image
            RGB.

        Raises
        ------
        ValueError
            For another name, listing the variants.
        """
        if name == "standard":
            return self.image
        if name == "clear":
            return self.clear
        if name == "mask":
            return self.mask.convert("RGB")
        raise not_known("variant", name, VARIANTS)

    @cached_property
    def dots(self):
        # lazy: pandas (~100 MB) for this table only; plate workers never load it
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
        de = pair_delta_e(*self.spec.colours)
        return PlateStats(
            dot_count=int(self.r.size),
            coverage=float(np.sum(self.r**2) / (R * R)),
            text_coverage=text_cov,
            delta_e=float(de.mean()),
            delta_e_min=float(de.min()),
            delta_e_target=self.spec.delta_e,
            delta_e_drawn=self.delta_e_drawn,
        )

    @cached_property
    def delta_e_drawn(self) -> DrawnDeltaE | None:
        """`PlateStats.delta_e_drawn` alone (the manifest's columns), without painting the text coverage: the
        ΔE2000 over the (foreground dot, background dot) pairs drawn, or None for a plate too small for its text
        (no pair)."""
        fg = self.is_fg
        if not fg.any() or fg.all():
            return None
        nominal = float(pair_delta_e(*self.spec.colours).mean())
        return measure_dots(self.dot_colours, fg, nominal=nominal, target=self.spec.delta_e,
                            target_kind=target_kind(self.spec), seed=self.spec.seed)


def pair_delta_e(fg: tuple[C.RGB, ...], bg: tuple[C.RGB, ...]) -> np.ndarray:
    """CIEDE2000 of every (foreground, background) pair, shape (len(fg), len(bg)); read-only (memoised).

    Parameters
    ----------
    fg, bg : tuple of (tuple of 3 int)
        Foreground and background colours, sRGB 0-255.

    Returns
    -------
    numpy.ndarray of float, shape (len(fg), len(bg))
        ΔE2000, read-only.

    References
    ----------
    Sharma, Wu and Dalal (2005), Color Res. Appl. 30(1):21-30 (CIEDE2000).
    """
    return _pair_delta_e_memo(tuple(tuple(c) for c in fg), tuple(tuple(c) for c in bg))


@lru_cache(maxsize=1024)
def _pair_delta_e_memo(fg: tuple[C.RGB, ...], bg: tuple[C.RGB, ...]) -> np.ndarray:
    """`pair_delta_e` for hashable colours: a set's few colour sets (every plate of one asks the same pairs)
    cost one colour-science call each instead of one per plate."""
    a = np.array(fg, dtype=np.float64)[:, None, :]
    b = np.array(bg, dtype=np.float64)[None, :, :]
    out = np.array(C.delta_e2000(np.broadcast_to(a, (len(fg), len(bg), 3)),
                                 np.broadcast_to(b, (len(fg), len(bg), 3))), dtype=np.float64)
    out.setflags(write=False)
    return out


def jitter_colours(spec: PlateSpec, base: np.ndarray, other: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The spec's jitter (`plates.stimuli.ishihara.jitter.jitter`) on (n, 3) float sRGB 0-255 colours -> uint8.

    The spec's ``jitter_shift``, ``jitter_rgb``, ``jitter_lightness``, ``jitter_rule`` and ``allow_extremes``
    are passed on as they are (the spec validated them when it was made).

    Parameters
    ----------
    spec : PlateSpec
        The plate's spec.
    base : numpy.ndarray of float, shape (n, 3)
        Each dot's colour before jitter, sRGB 0-255.
    other : numpy.ndarray of float, shape (n, 3)
        Each dot's colour of the other class (figure or ground), sRGB 0-255: the gradient shift moves towards it.
    rng : numpy.random.Generator
        The jitter's random stream (`render` spawns one from the spec's seed).

    Returns
    -------
    numpy.ndarray of uint8, shape (n, 3)
        The jittered colours, sRGB 0-255.

    References
    ----------
    HueManity §3 and its released generator (gradient shift, colour shift, light shift).
    """
    return jitter(base, other, rng, shift=spec.jitter_shift, rgb=spec.jitter_rgb, lightness=spec.jitter_lightness,
                  rule=spec.jitter_rule, allow_extremes=spec.allow_extremes)


def render(spec: PlateSpec) -> Plate:
    """Render ``spec``: a pure function of it (byte-identical pixels in any process).

    Stages, each with its own PCG64 stream spawned from ``SeedSequence(spec.seed)``: pack dots in the disc in
    the spec's style (`plates.stimuli.ishihara.styles`), pick each dot's colour from its class's list (class =
    is the centre on the text mask: ColorBlindnessEval Algorithm 1, HueManity §3; which palette colours go on
    the text: ``colour_roles``), jitter (``jitter_rule``), paint (anti-aliased or hard-edged).

    Parameters
    ----------
    spec : PlateSpec

    Returns
    -------
    Plate
        The plate (PIL RGB, sRGB 0-255), its clear variant, its text mask (PIL L), its dots and `PlateStats`.

    References
    ----------
    ColorBlindnessEval App. E, Algorithm 1; HueManity §3 (and its released generator, style "huemanity").

    Examples
    --------
    >>> import hashlib
    >>> plate = render(PlateSpec("12", size=128, seed=0))
    >>> hashlib.sha256(plate.image.tobytes()).hexdigest()[:16], plate.stats.dot_count
    ('5ba51e377e723849', 1270)
    """
    return render_on_mask(spec, text_mask(spec.text, spec.font, spec.size, spec.r_max, spec.text_scale))


def render_on_mask(spec: PlateSpec, mask: np.ndarray) -> Plate:
    """Render ``spec`` with ``mask`` (bool (size, size), True on the figure) as its figure instead of its text's
    mask: how the reader's training data draws figures no font draws (bitmap digits, thinner or bolder strokes).
    `render` is ``render_on_mask(spec, text_mask(...))``.

    Parameters
    ----------
    spec : PlateSpec
        The plate's spec (its text is not drawn).
    mask : array_like of bool, shape (size, size)
        True on the figure.

    Returns
    -------
    Plate
        The rendered plate.

    Raises
    ------
    ValueError
        When ``mask`` is not the spec's size.

    References
    ----------
    ColorBlindnessEval App. E, Algorithm 1; HueManity §3.
    """
    size = spec.size
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != (size, size):
        raise ValueError(f"mask shape {mask.shape} is not valid; allowed: ({size}, {size}), the spec's size")
    s_pack, s_col, s_jit = np.random.SeedSequence(spec.seed).spawn(3)
    packing = pack_style(spec.style, size, spec.r_min, spec.r_max, spec.r_gap, spec.n_tries, spec.density,
                         np.random.Generator(np.random.PCG64(s_pack)))
    x, y, r = packing.x, packing.y, packing.r
    row = np.minimum(y.astype(np.int64), size - 1)  # centres lie inside the disc: x, y >= 0
    col = np.minimum(x.astype(np.int64), size - 1)
    is_fg = mask[row, col]
    fgc, bgc = spec.role_colours  # (on the text, off the text)
    fga, bga = np.array(fgc, dtype=np.float64), np.array(bgc, dtype=np.float64)
    rng = np.random.Generator(np.random.PCG64(s_col))
    n = r.size
    pick_fg = rng.integers(0, len(fgc), size=n)
    pick_bg = rng.integers(0, len(bgc), size=n)
    own = np.where(is_fg[:, None], fga[pick_fg], bga[pick_bg])
    other = np.where(is_fg[:, None], bga[pick_bg], fga[pick_fg])
    if spec.jitter_shift or spec.jitter_rgb or spec.jitter_lightness:
        colours = jitter_colours(spec, own, other, np.random.Generator(np.random.PCG64(s_jit)))
    else:
        colours = own.astype(np.uint8)
    if spec.anti_aliased:
        pixels = paint_dots_aa_pixels(size, x, y, r, colours, spec.canvas)
        return Plate(spec, x, y, r, is_fg, colours, mask, None, pixels)
    return Plate(spec, x, y, r, is_fg, colours, mask, paint_dots(size, x, y, r, colours, spec.canvas))
