"""The live plate explorer's Plate tab, apart from any widget: `plates.explorer.app` is a thin Gradio layer over it.

Controls -> :class:`~plates.stimuli.ishihara.plate.PlateSpec` and back (checked against the public-mode
`plates.explorer.policy.Policy`, in the panel's own words), the views shown side by side (plate, clear plate,
mask, and the Machado 2009 colour-vision-deficiency simulations), the stats line, the drawn swatches, random
labels per label space, and the colours the pickers were last sent.

A spec as text and as a share code: `plates.explorer.specs`. The model side: `plates.explorer.backends` (model
choice and cache), `plates.explorer.models` (asking), `plates.explorer.sweep` (the ΔE sweep) and
`plates.explorer.history` (the session history as Parquet in the results schema).

Colours at this boundary are hex strings ``"#rrggbb"`` (sRGB 0-255); images are PIL RGB (sRGB 0-255).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PIL import Image

from plates.colour import parse_colour, to_hex
from plates.conditions import cvd_view
from plates.explorer.policy import Policy
from plates.images import StoredPng, encode_png
from plates.stimuli.ishihara import palettes
from plates.stimuli.ishihara.glyphs import FONT_ALIASES, FONTS
from plates.stimuli.ishihara.jitter import huemanity_jitter
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.labels import random_label as _random_label
from plates.stimuli.ishihara.plate import (
    DEFAULT_DENSITY,
    HUEMANITY_JITTER,
    MAX_RADIUS_900,
    MIN_RADIUS_900,
    Plate,
    PlateSpec,
    paint_dots,
    render,
)
from plates.stimuli.ishihara.styles import STYLES, get_style
from plates.validation import check_int, check_number

#: Views shown side by side, in display order.
VIEWS = ("plate", "clear", "mask", "protan", "deutan", "tritan")
#: The colour-pair choice meaning "use the two colour pickers".
CUSTOM = "custom"


# -------------------------------------------------------------------------------------------- controls -> spec
def colour_pair_choices() -> list[str]:
    """The colour-pair dropdown: the papers' presets (CBE App. D sets 1-5, HueManity Table 7) then ``custom``."""
    return [*palettes.PALETTES, CUSTOM]


def font_choices() -> list[str]:
    """Font names the font control lists (plates.stimuli.ishihara.glyphs.FONTS). The control also shows any
    other font the engine accepts: an alias (`FONT_ALIASES`, e.g. ``liberation-sans-regular``) from a
    share link or a spec, and in local mode a .ttf/.otf path typed in."""
    return list(FONTS)


def font_names() -> list[str]:
    """Every font name the engine takes by name: `FONTS` and their aliases (all that public mode accepts)."""
    return [*FONTS, *FONT_ALIASES]


def label_space_choices() -> list[str]:
    """Label spaces for the "random label" buttons: ``cbe`` (CBE "0"-"99"), HueManity numeric and alnum."""
    return list(LABEL_SPACES)


def random_label(space: str, seed: int | None = None) -> str:
    """A random label from a label space, seeded when ``seed`` is given.

    Parameters
    ----------
    space : str
        A label space name, one of `plates.stimuli.ishihara.labels.LABEL_SPACES` (``cbe``: "0"-"99", HueManity
        numeric and alnum).
    seed : int or None
        Seed of numpy's ``default_rng``; None draws a fresh label each call.

    Returns
    -------
    str
        The label.

    Raises
    ------
    ValueError
        When ``space`` is unknown (the message lists the allowed spaces).
    """
    if space not in LABEL_SPACES:
        raise ValueError(f"unknown label space {space!r}; allowed: {', '.join(LABEL_SPACES)}")
    return _random_label(space, np.random.default_rng(seed))


def parse_hex(value: str, what: str) -> tuple[int, int, int]:
    """A colour control's text as an sRGB 0-255 triple.

    Parameters
    ----------
    value : str
        ``"#rrggbb"`` or ``"rgb(r, g, b)"`` (sRGB 0-255), as a colour picker sends it.
    what : str
        Which control it came from (``"foreground"``, ``"background"``), named in the error.

    Returns
    -------
    tuple of int
        ``(r, g, b)``, sRGB 0-255.

    Raises
    ------
    ValueError
        When ``value`` is not a colour: the message names ``what``, the value and the allowed forms.
    """
    try:
        return tuple(int(c) for c in parse_colour(value))  # type: ignore[return-value]
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"{what} colour {value!r} is not a colour; allowed: '#rrggbb' or 'rgb(r, g, b)' with 0-255 ({exc})"
        ) from None


@dataclass(frozen=True)
class Controls:
    """Everything the plate panel sets, as plain values.

    Attributes
    ----------
    colour_pair : str
        A preset name (`colour_pair_choices`) or :data:`CUSTOM` for the two pickers.
    foreground, background : str
        ``"#rrggbb"`` sRGB 0-255; used when ``colour_pair`` is :data:`CUSTOM`.
    delta_e : float
        CIEDE2000 target between foreground and background; 0 = the colours as given.
    font : str
        A font name (`font_names`), or in local mode a .ttf/.otf path.
    text : str
        The label to draw.
    dot_min, dot_max : float
        Dot radii in px; 0 = automatic (3-15 px at 900 px, scaled with the size: :func:`auto_radii`).
    density : float
        Dot coverage target, 0-1 (the dense style only: :func:`density_is_free`).
    jitter : float
        0-1 times HueManity §3's colour jitter.
    size : int
        Plate side in px.
    seed : int
        Integer >= 0.
    style : str
        How dots are packed (`plates.stimuli.ishihara.styles`: dense, or the papers' Monte Carlo cbe /
        huemanity,
        which fix the density: theirs stop after their tries).
    """

    colour_pair: str
    foreground: str
    background: str
    delta_e: float
    font: str
    text: str
    dot_min: float
    dot_max: float
    density: float
    jitter: float
    size: int
    seed: int
    style: str = "dense"


def style_choices() -> list[str]:
    """The plate-style control's choices: `plates.stimuli.ishihara.styles.STYLES` (dense, cbe, huemanity)."""
    return list(STYLES)


def density_is_free(style: str) -> bool:
    """Whether the Density control applies to ``style``.

    Only the dense packing stops at a coverage; the Monte Carlo styles (CBE App. D, HueManity §3) stop after
    their
    tries, at `DEFAULT_DENSITY` in the spec.

    Parameters
    ----------
    style : str
        A plate style name (`plates.stimuli.ishihara.styles.STYLES`).

    Returns
    -------
    bool
        True when the style packs to a coverage target.

    Raises
    ------
    ValueError
        When ``style`` is unknown (`plates.stimuli.ishihara.styles.get_style`).
    """
    return get_style(style).tries is None


#: The Density control's label: what the number controls (a packing target, not the coverage drawn).
DENSITY_LABEL = "Density: the dense packing adds dots until they cover this share of the disc (a target)"


def density_info(style: str) -> str:
    """The line under the Density control for ``style``.

    It says how the drawn coverage relates to the control (dense), or what fixes it instead (the Monte Carlo
    styles: their tries), so the control is never silently ignored.

    Parameters
    ----------
    style : str
        A plate style name (`plates.stimuli.ishihara.styles.STYLES`).

    Returns
    -------
    str
        One sentence of plain text.

    Raises
    ------
    ValueError
        When ``style`` is unknown.

    Examples
    --------
    >>> density_info("huemanity")
    'fixed by the huemanity style: it packs 30,000 tries, whatever this control says (coverage drawn: the line above the plate)'
    """
    st = get_style(style)
    if st.tries is None:
        return ("the drawn coverage (the line above the plate) ends a little above the target: the last dots "
                "overshoot it")
    return (f"fixed by the {st.name} style: it packs {st.tries:,} tries, whatever this control says (coverage "
            "drawn: the line above the plate)")


def preset_hex(name: str) -> tuple[str, str]:
    """The first foreground and background colours of a preset.

    Parameters
    ----------
    name : str
        A palette name (`plates.stimuli.ishihara.palettes.PALETTES`).

    Returns
    -------
    tuple of str
        ``(foreground, background)``, each ``"#rrggbb"`` (sRGB 0-255).

    Raises
    ------
    ValueError
        When ``name`` is not a palette.
    """
    pal = palettes.get_palette(name)
    return to_hex(pal.foreground[0]), to_hex(pal.background[0])


def default_spec() -> PlateSpec:
    """The plate the explorer opens with: "12" in ColorBlindnessEval set 1 at 512 px."""
    return PlateSpec(text="12", size=512, palette="colorblindnesseval-1")


def _groups(c: Controls) -> dict[str, dict[str, object]]:
    """Each control (or pair of controls) -> the PlateSpec fields it sets."""
    if c.colour_pair == CUSTOM:
        colours = dict(palette=None, foreground=(parse_hex(c.foreground, "foreground"),),
                       background=(parse_hex(c.background, "background"),))
    elif c.colour_pair in palettes.PALETTES:
        colours = dict(palette=c.colour_pair, foreground=None, background=None)
    else:
        raise ValueError(f"colour pair {c.colour_pair!r} is unknown; allowed: {', '.join(colour_pair_choices())}")
    j = check_number("jitter", c.jitter, 0.0, 1.0, text=True)
    return {
        "colours": colours,
        "delta_e": dict(delta_e=None if not c.delta_e else check_number("ΔE2000", c.delta_e, 0.0, 200.0, text=True)),
        "font": dict(font=c.font),
        "text": dict(text=c.text.strip() if isinstance(c.text, str) else c.text),
        "dots": dict(min_radius=float(c.dot_min) or None, max_radius=float(c.dot_max) or None),
        "style": dict(style=c.style),
        "density": dict(density=check_number("density", c.density, 0.0, 1.0, text=True) if density_is_free(c.style)
                        else DEFAULT_DENSITY),
        "jitter": huemanity_jitter(j),
        "size": dict(size=check_int("plate size (px)", c.size, 1, 10**6, text=True)),
        "seed": dict(seed=check_int("seed", c.seed, 0, 2**63 - 1, text=True)),
    }


def controls_to_spec(c: Controls, policy: Policy = Policy(), base: PlateSpec | None = None) -> PlateSpec:
    """The validated spec for the panel's controls.

    With ``base`` (a pasted, uploaded or linked spec), only the controls whose value differs from what
    ``base``
    shows change it: fields the controls cannot show (several colours, separate jitters, gap, canvas) survive,
    so
    a pasted spec reproduces its plate exactly.

    Parameters
    ----------
    c : Controls
        The panel's values (colours sRGB 0-255 hex, ΔE2000, radii and size in px).
    policy : Policy
        What this server allows (public mode: font by name, plate size, text length, colours per list).
    base : PlateSpec or None
        The spec the controls were last set from, or None to build a spec from the controls alone.

    Returns
    -------
    PlateSpec
        The spec; ``base`` itself when no control changed it.

    Raises
    ------
    ValueError
        Naming any bad value and what is allowed, in the panel's own words (empty text, a font, size, text or
        colour list the policy refuses, a bad dot radius range, an unknown colour pair, a number out of
        range).
    """
    if not isinstance(c.text, str) or not c.text.strip():
        raise ValueError(f"text {c.text!r} is empty; {EMPTY_TEXT_HINT}")
    size = check_int("plate size (px)", c.size, 1, 10**6, text=True)
    check_policy(c.font, size, c.text.strip(), policy)
    check_dots(c.dot_min, c.dot_max, size)
    groups = _groups(c)
    if base is not None:
        check_policy(base.font, base.size, base.text, policy, colours=(base.foreground, base.background))
    if base is None:
        changes = {k: v for group in groups.values() for k, v in group.items()}
        return PlateSpec(**changes)
    shown = _groups(spec_to_controls(base))
    changes = {k: v for name, group in groups.items() if group != shown[name] for k, v in group.items()}
    return base.replace(**changes) if changes else base


#: What the panel says when the text box is empty.
EMPTY_TEXT_HINT = "type the label to draw (e.g. '12' or 'A7'), or press a 'random' button"


def auto_radii(size: int) -> tuple[float, float]:
    """The dot radii a plate gets when the radius controls are 0 (automatic).

    Parameters
    ----------
    size : int
        Plate side in px.

    Returns
    -------
    tuple of float
        ``(min, max)`` in px: 3 and 15 px at 900 px, scaled with the size (`plates.stimuli.ishihara.plate`).
    """
    return MIN_RADIUS_900 * size / 900, MAX_RADIUS_900 * size / 900


def dot_limit(size: int) -> float:
    """The largest dot radius a plate takes: an eighth of its size, rounded down to 0.5 px.

    Parameters
    ----------
    size : int
        Plate side in px.

    Returns
    -------
    float
        The limit in px, a multiple of the sliders' 0.5 px step.
    """
    return math.floor(size / 8 * 2) / 2


def check_dots(dot_min, dot_max, size: int) -> None:
    """Check that the dot radius controls make a valid range for a plate of ``size`` px.

    Each set value must lie within 0.5 px to an eighth of the size, and min <= max, where an automatic end
    takes
    its value at this size (:func:`auto_radii`).

    Parameters
    ----------
    dot_min, dot_max : float or str
        The radius controls in px; 0 (or empty) = automatic.
    size : int
        Plate side in px.

    Raises
    ------
    ValueError
        In the panel's words, naming the bad radius and the allowed range.
    """
    lo_auto, hi_auto = auto_radii(size)
    limit = dot_limit(size)
    values = {}
    for name, value in (("min", dot_min), ("max", dot_max)):
        x = check_number(f"dot radius {name}", value or 0, 0.0, 10**6, text=True)
        if x and not 0.5 <= x <= limit:
            raise ValueError(f"Dot radius {name} {x:g} px does not fit a {size} px plate; allowed: "
                             f"0.5-{limit:g} px (up to an eighth of the plate size), or 0 for automatic")
        values[name] = x
    lo, hi = values["min"], values["max"]
    if lo and hi and lo > hi:
        raise ValueError(f"Dot radius min {lo:g} px is larger than dot radius max {hi:g} px; allowed: "
                         "min <= max")
    if lo and not hi and lo > hi_auto:
        raise ValueError(f"Dot radius min {lo:g} px is larger than the automatic dot radius max at {size} px "
                         f"({hi_auto:.1f} px); allowed: a min up to {math.floor(hi_auto * 2) / 2:g} px, or "
                         f"set Dot radius max to at least {lo:g} px")
    if hi and not lo and hi < lo_auto:
        raise ValueError(f"Dot radius max {hi:g} px is smaller than the automatic dot radius min at {size} "
                         f"px ({lo_auto:.1f} px); allowed: a max of at least "
                         f"{math.ceil(lo_auto * 2) / 2:g} px, or set Dot radius min too")


def dot_slider_limits(spec: PlateSpec) -> tuple[float, float]:
    """Upper ends of the two dot radius sliders for ``spec``, so that the sliders offer valid values only.

    Parameters
    ----------
    spec : PlateSpec
        The plate on screen.

    Returns
    -------
    tuple of float
        ``(min slider, max slider)`` in px: the min slider up to the radius max in use (set or automatic), the
        max slider up to an eighth of the plate size (:func:`dot_limit`).
    """
    limit = dot_limit(spec.size)
    return min(math.floor(spec.r_max * 2) / 2, limit), limit


def _colour_count(value) -> int:
    """How many colours a spec JSON's colour field holds (None, a colour, or a list of colours)."""
    if value is None or isinstance(value, str):
        return 0 if value is None else 1
    if isinstance(value, list | tuple):
        if len(value) == 3 and all(isinstance(v, int) for v in value):
            return 1
        return len(value)
    return 1


def check_policy(font, size, text, policy: Policy, colours=()) -> None:
    """Check a font, size, text and colour lists against ``policy``.

    Public mode takes a font by name only (never a server path), so this runs before anything opens a font
    file.

    Parameters
    ----------
    font : str
        A font name or path.
    size : int or None
        Plate side in px; None skips the size check.
    text : str
        The label to draw.
    policy : Policy
        This server's limits (`plates.explorer.policy.Policy`).
    colours : sequence
        The spec's ``(foreground, background)`` colour fields, each None, a colour or a list of colours (sRGB
        0-255); empty skips the check.

    Raises
    ------
    ValueError
        Naming the font, size, text length or colour count refused and what is allowed.
    """
    if policy.public and font not in font_names():
        raise ValueError(f"font {font!r} is not allowed here; allowed: {', '.join(font_names())}")
    if size is not None:
        check_int("plate size (px)", size, policy.min_plate_size, policy.max_plate_size, text=True)
    if isinstance(text, str) and len(text) > policy.max_text_chars:
        raise ValueError(f"text {text[:40]!r} has {len(text)} characters; allowed: 1-{policy.max_text_chars}")
    for what, value in zip(("foreground", "background"), colours):
        n = _colour_count(value)
        if n > policy.max_colours:
            raise ValueError(f"{what} has {n} colours; allowed: 1-{policy.max_colours} colours a list here")


def spec_to_controls(spec: PlateSpec) -> Controls:
    """The panel's controls that show ``spec`` (the inverse of :func:`controls_to_spec` where it can be).

    For a preset the colour pickers only show colours, so they show the first foreground and background
    colours
    as drawn (sRGB 0-255 hex), after a ΔE2000 target has moved the background: the swatches match the plate.
    For
    custom colours the pickers are the colours given (ΔE2000 moves the background from there; showing the
    moved
    colour would move it again on the next change); :func:`drawn_swatches` shows what is drawn.

    Parameters
    ----------
    spec : PlateSpec
        The plate to show.

    Returns
    -------
    Controls
        The values to put into the panel; jitter as a 0-1 fraction of HueManity's, rounded to 4 places.
    """
    drawn_fg, drawn_bg = spec.colours if spec.palette else (spec.foreground, spec.background)
    jitter = spec.jitter_shift / HUEMANITY_JITTER["jitter_shift"]
    return Controls(
        colour_pair=spec.palette or CUSTOM, foreground=to_hex(drawn_fg[0]), background=to_hex(drawn_bg[0]),
        delta_e=spec.delta_e or 0.0, font=spec.font, text=spec.text,
        dot_min=spec.min_radius or 0.0, dot_max=spec.max_radius or 0.0, density=spec.density,
        jitter=round(min(max(jitter, 0.0), 1.0), 4), size=spec.size, seed=spec.seed, style=spec.style,
    )


#: What the swatches say on a plate whose ``colour_roles`` is "released-code" (HueManity's released code).
ROLE_SWAP_NOTE = ("HueManity's released code paints Table 7's 'Background' colour on the text and its "
                  "'Foreground' on the field, the opposite of the paper's text (colour_roles 'released-code')")


def drawn_swatches(spec: PlateSpec) -> str:
    """HTML swatches of the colours ``spec`` draws, named by what they paint: on the text, then on the field.

    Built only from validated colour triples and fixed text, so it carries no visitor text.

    Parameters
    ----------
    spec : PlateSpec
        The plate on screen.

    Returns
    -------
    str
        An HTML ``div``: one chip per colour (sRGB 0-255 hex, after any ΔE2000 move), the first pair as text,
        and
        the released-code role swap (:data:`ROLE_SWAP_NOTE`) when the spec uses it.
    """

    def chips(colours) -> str:
        return "".join(
            f'<span title="{to_hex(c)}" style="display:inline-block;width:1.4em;height:1.4em;'
            f'margin-right:2px;vertical-align:middle;border:1px solid #8888;border-radius:3px;'
            f'background:{to_hex(c)}"></span>'
            for c in colours)

    text, field = spec.role_colours
    first = f"{to_hex(text[0])} on {to_hex(field[0])}" + (" …" if len(text) + len(field) > 2 else "")
    swap = f'<br><small class="role-swap">{ROLE_SWAP_NOTE}.</small>' if spec.colour_roles == "released-code" else ""
    return (f'<div class="drawn-colours">Drawn: on the text {chips(text)} on the field {chips(field)} '
            f'<code>{first}</code>{swap}</div>')


def plate_caption(plate: Plate) -> str:
    """What the Model tab says about the plate a model will be asked about.

    Parameters
    ----------
    plate : Plate
        The rendered plate.

    Returns
    -------
    str
        Markdown: its text, colours, ΔE2000 drawn (mean over the foreground x background pairs) and asked,
        font,
        size (px) and seed.
    """
    spec, s = plate.spec, plate.stats
    asked = f" (asked {spec.delta_e:.2f})" if spec.delta_e else ""
    return (f"**Asks about the plate on the Plate tab:** text `{spec.text}` · "
            f"{spec.palette or 'custom colours'} · ΔE2000 {s.delta_e:.2f}{asked} · {spec.font} · "
            f"{spec.size} px · seed {spec.seed}. "
            "The model receives it under the condition below.")


# --------------------------------------------------------------------------------------------------- rendering
@dataclass(frozen=True)
class Views:
    """A rendered plate and its views, plus the stats line.

    Attributes
    ----------
    plate : Plate
        The rendered plate.
    images : dict of str to PIL.Image.Image
        Each view (PIL RGB, sRGB 0-255), keyed as :data:`VIEWS`.
    stats : str
        :func:`stats_text`'s line.
    """

    plate: Plate
    images: dict[str, Image.Image]
    stats: str


class PlateCache:
    """The last few rendered plates by spec: asking about the plate on screen does not render it again.

    Thread-safe; one per app, never module state. Calling the cache with a spec returns its plate, drawing it
    with ``render`` when it is not there.

    Parameters
    ----------
    maxsize : int
        How many plates it keeps (least recently used dropped first).
    render : callable
        Spec -> Plate for a plate not there: `render`, or a worker process's
        (`plates.explorer.pool.ExplorerPool.render_plate`).
    """

    def __init__(self, maxsize: int = 16, render: Callable[[PlateSpec], Plate] = render) -> None:
        self.maxsize, self._render = maxsize, render
        self._plates: dict[PlateSpec, Plate] = {}
        self._lock = threading.Lock()

    def __call__(self, spec: PlateSpec) -> Plate:
        with self._lock:
            plate = self._plates.pop(spec, None)
        return self.put(self._render(spec) if plate is None else plate)

    def put(self, plate: Plate) -> Plate:
        """Remember ``plate`` (rendered elsewhere: a worker process) as its spec's, most recently used.

        Parameters
        ----------
        plate : Plate
            The rendered plate.

        Returns
        -------
        Plate
            ``plate`` itself.
        """
        with self._lock:
            self._plates.pop(plate.spec, None)
            self._plates[plate.spec] = plate  # most recently used last
            while len(self._plates) > self.maxsize:
                self._plates.pop(next(iter(self._plates)))
        return plate


def render_views(spec: PlateSpec, *, cvd: bool = True, renderer=render) -> Views:
    """Render ``spec`` and its views: plate, clear plate, mask, and (when ``cvd``) protan/deutan/tritan.

    CVD views simulate dichromacy at severity 1 (`plates.conditions.cvd_view`). The simulation is a function
    of
    each pixel's colour alone, so it is applied to the dots' colours (and the canvas) and the dots are painted
    again: the same pixels as simulating the whole image, far faster.

    Parameters
    ----------
    spec : PlateSpec
        The plate to draw.
    cvd : bool
        Whether to add the three dichromat simulations.
    renderer : callable
        Spec -> Plate (`render`, or a cache: :class:`PlateCache`).

    Returns
    -------
    Views
        The plate, its views (PIL RGB, sRGB 0-255) and the stats line.

    References
    ----------
    Machado, G. M., Oliveira, M. M. and Fernandes, L. A. F. (2009). A physiologically-based model for
    simulation
    of color vision deficiency. IEEE TVCG 15(6), §4 (the simulation matrices at severity 1).
    """
    plate = renderer(spec)
    images = {"plate": plate.image, "clear": plate.variant("clear"), "mask": plate.variant("mask")}
    if cvd:
        # (n + 1, 3) uint8 sRGB 0-255: every dot's colour, then the canvas
        palette = np.concatenate([plate.dot_colours, np.array([spec.canvas], dtype=np.uint8)])
        strip = Image.fromarray(palette[None, :, :], "RGB")
        for kind in ("protan", "deutan", "tritan"):
            seen = np.asarray(cvd_view(strip, kind, 1.0))[0]
            pixels = paint_dots(spec.size, plate.x, plate.y, plate.r, seen[:-1], tuple(int(v) for v in seen[-1]))
            images[kind] = Image.fromarray(np.ascontiguousarray(pixels), "RGB")
    return Views(plate=plate, images=images, stats=stats_text(plate))


def png_bytes(image: Image.Image) -> bytes:
    """Lossless PNG of ``image``: the exact pixels, encoded fast enough for a live view.

    Parameters
    ----------
    image : PIL.Image.Image
        An RGB image (sRGB 0-255). A `plates.images.StoredPng` (an image a worker process encoded with this
        function, `plates.explorer.pool`) gives the bytes it holds.

    Returns
    -------
    bytes
        PNG (`plates.images.encode_png`: unfiltered, ISA-L deflate level 1).
    """
    if isinstance(image, StoredPng) and image.stored is not None:
        return image.stored
    return encode_png(image, 1)


class SentColours:
    """The colours each session's renders last put into the two colour pickers (hex, lower case).

    A picker's ``change`` event fires both on the app's own update and on the visitor's typed or dragged
    colour;
    this tells them apart. During fast ΔE changes an earlier render's colour arrives after the slider has
    moved
    on, and was taken for the visitor's own (the plate went custom with a stale background). Bounded: the last
    ``per_session`` pairs of the last ``sessions`` sessions.

    Parameters
    ----------
    sessions : int
        How many sessions it remembers (least recently used dropped first).
    per_session : int
        How many colour pairs it remembers per session.

    Examples
    --------
    >>> sent = SentColours()
    >>> sent.remember("s1", "#AA0000", "#00aa00")
    >>> sent.was_sent("s1", "#aa0000", "#00AA00"), sent.was_sent("s2", "#aa0000", "#00aa00")
    (True, False)
    """

    def __init__(self, sessions: int = 512, per_session: int = 16) -> None:
        self._pairs: OrderedDict[str, deque[tuple[str, str]]] = OrderedDict()
        self._sessions, self._per_session = sessions, per_session
        self._lock = threading.Lock()

    def remember(self, session: str | None, foreground: str, background: str) -> None:
        """Record a colour pair a render sent to the pickers of ``session``.

        Parameters
        ----------
        session : str or None
            The Gradio session hash; None records nothing.
        foreground, background : str
            ``"#rrggbb"`` (sRGB 0-255), any case.
        """
        if session is None:
            return
        with self._lock:
            pairs = self._pairs.setdefault(session, deque(maxlen=self._per_session))
            self._pairs.move_to_end(session)
            pairs.append((foreground.lower(), background.lower()))
            while len(self._pairs) > self._sessions:
                self._pairs.popitem(last=False)

    def was_sent(self, session: str | None, foreground: str, background: str) -> bool:
        """Whether ``session``'s renders sent this colour pair (the app's own update, not the visitor's).

        Parameters
        ----------
        session : str or None
            The Gradio session hash; None matches nothing.
        foreground, background : str
            ``"#rrggbb"`` (sRGB 0-255), any case.

        Returns
        -------
        bool
            True when the pair is among the session's last sent pairs.
        """
        with self._lock:
            return (foreground.lower(), background.lower()) in self._pairs.get(session or "", ())


def stats_text(plate: Plate) -> str:
    """One line of the plate's stats.

    Parameters
    ----------
    plate : Plate
        The rendered plate.

    Returns
    -------
    str
        Dots, coverage and text coverage (0-1 as %), and the CIEDE2000 achieved (mean over the palette's
        foreground x background pairs, and the smallest pair when they differ) vs asked.
    """
    s = plate.stats
    target = plate.spec.delta_e
    asked = f" (asked {target:.2f})" if target else " (colours as given)"
    spread = f", min {s.delta_e_min:.2f}" if s.delta_e - s.delta_e_min >= 0.005 else ""
    return (
        f"{s.dot_count} dots · coverage {s.coverage:.1%} · text coverage {s.text_coverage:.1%} · "
        f"ΔE2000 {s.delta_e:.2f}{spread}{asked}"
    )
