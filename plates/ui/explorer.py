"""The live plate explorer's logic (issue 6), apart from any widget: ``app.py`` is a thin Gradio layer over it.

Plate side: controls -> :class:`~plates.stimuli.ishihara.plate.PlateSpec`, the views shown side by side (plate, clear plate, mask,
and the Machado 2009 colour-vision-deficiency simulations), the stats line, random labels per label space, and a
compact share code for a spec (URL-safe base64 of zlib-compressed JSON) so a plate travels in a URL query string.

Model side lives in :mod:`plates.ui.explorer_models` (model choice and cache, public-mode policy, asking, the ΔE
sweep, the session history as Parquet in the results schema).

Colours at this boundary are hex strings ``"#rrggbb"`` (sRGB 0-255); images are PIL RGB (sRGB 0-255).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import re
import threading
import time
import uuid
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from plates.stimuli.ishihara import palettes
from plates.colour import to_hex
from plates.images import encode_png
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.labels import random_label as _random_label
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, Plate, PlateSpec, paint_dots, render
from plates.conditions import cvd_view

#: Views shown side by side, in display order.
VIEWS = ("plate", "clear", "mask", "protan", "deutan", "tritan")
#: The colour-pair choice meaning "use the two colour pickers".
CUSTOM = "custom"
#: Query-string parameter carrying a share code.
QUERY_PARAM = "spec"
#: Longest share code accepted (characters) and largest decompressed spec (bytes): guards against zip bombs.
MAX_CODE_CHARS = 8192
MAX_SPEC_BYTES = 65536
_CODE_RE = re.compile(r"^[A-Za-z0-9_-]+$")


# ----------------------------------------------------------------------------------------------------------- policy
@dataclass(frozen=True)
class Policy:
    """What a visitor may ask for. Public mode (env ``PLATES_PUBLIC=1``) is the safe-to-leave-running Space.

    ``allowed_base_urls``: OpenAI-compatible endpoints a visitor may use in public mode (env
    ``PLATES_ALLOWED_BASE_URLS``, comma-separated; empty = none). ``allowed_hf_models``: Hugging Face ids that
    may be loaded in public mode (env ``PLATES_ALLOWED_HF_MODELS``; empty = none). Sizes are pixels.
    """

    public: bool = False
    allowed_base_urls: tuple[str, ...] = ()
    allowed_hf_models: tuple[str, ...] = ()
    max_plate_size: int = 2048
    max_sweep_points: int = 41
    min_plate_size: int = 64
    max_text_chars: int = 12

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Policy:
        """Read the policy from environment variables (``os.environ`` by default)."""
        env = os.environ if environ is None else environ
        flag = env.get("PLATES_PUBLIC", "").strip().lower()
        if flag not in ("", "0", "1", "true", "false", "yes", "no"):
            raise ValueError(f"PLATES_PUBLIC={flag!r} is not allowed; allowed: 1/0, true/false, yes/no")
        public = flag in ("1", "true", "yes")

        def _list(name: str) -> tuple[str, ...]:
            return tuple(x.strip().rstrip("/") for x in env.get(name, "").split(",") if x.strip())

        return cls(
            public=public,
            allowed_base_urls=_list("PLATES_ALLOWED_BASE_URLS"),
            allowed_hf_models=_list("PLATES_ALLOWED_HF_MODELS"),
            max_plate_size=1024 if public else 2048,
            max_sweep_points=12 if public else 41,
            max_text_chars=8 if public else 12,
        )


# -------------------------------------------------------------------------------------------- controls -> spec
def colour_pair_choices() -> list[str]:
    """The colour-pair dropdown: the papers' presets (CBE App. D sets 1-5, HueManity Table 7) then ``custom``."""
    return [*palettes.PALETTES, CUSTOM]


def font_choices() -> list[str]:
    """Font names a visitor may pick (plates.stimuli.ishihara.glyphs.FONTS); in public mode only these are accepted."""
    from plates.stimuli.ishihara.glyphs import FONTS

    return list(FONTS)


def label_space_choices() -> list[str]:
    """Label spaces for the "random label" buttons: ``cbe`` (CBE "0"-"99"), HueManity numeric and alnum."""
    return list(LABEL_SPACES)


def random_label(space: str, seed: int | None = None) -> str:
    """A random label from ``space`` (plates.stimuli.ishihara.labels.LABEL_SPACES); seeded when ``seed`` is given."""
    if space not in LABEL_SPACES:
        raise ValueError(f"unknown label space {space!r}; allowed: {', '.join(LABEL_SPACES)}")
    return _random_label(space, np.random.default_rng(seed))


def parse_hex(value: str, what: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` / ``"rgb(r,g,b)"`` (sRGB 0-255) -> triple, or ValueError naming ``what`` and the forms."""
    from plates.colour import parse_colour

    try:
        return tuple(int(c) for c in parse_colour(value))  # type: ignore[return-value]
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"{what} colour {value!r} is not a colour; allowed: '#rrggbb' or 'rgb(r, g, b)' with 0-255 ({exc})"
        ) from None


@dataclass(frozen=True)
class Controls:
    """Everything the plate panel sets, as plain values.

    Colours: ``"#rrggbb"`` sRGB 0-255 (used when ``colour_pair`` is :data:`CUSTOM`). ``delta_e``: CIEDE2000
    target, 0 = the colours as given. ``dot_min``/``dot_max``: dot radii in px, 0 = automatic (4-15 px at
    900 px, scaled). ``density``: dot coverage 0.05-0.80. ``jitter``: 0-1 times HueManity §3's jitter.
    ``size``: px. ``seed``: integer >= 0.
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


def preset_hex(name: str) -> tuple[str, str]:
    """The first foreground and background colours of a preset, as ``"#rrggbb"`` (sRGB 0-255)."""
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
    j = _number("jitter", c.jitter, 0.0, 1.0)
    return {
        "colours": colours,
        "delta_e": dict(delta_e=None if not c.delta_e else _number("ΔE2000", c.delta_e, 0.0, 200.0)),
        "font": dict(font=c.font),
        "text": dict(text=c.text.strip() if isinstance(c.text, str) else c.text),
        "dots": dict(min_radius=float(c.dot_min) or None, max_radius=float(c.dot_max) or None),
        "density": dict(density=_number("density", c.density, 0.0, 1.0)),
        "jitter": {k: v * j for k, v in HUEMANITY_JITTER.items()},
        "size": dict(size=int(_number("plate size", c.size, 1, 10**6))),
        "seed": dict(seed=int(_number("seed", c.seed, 0, 2**63 - 1))),
    }


def _number(name: str, value, lo: float, hi: float) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} {value!r} is not a number; allowed: {lo}-{hi}") from None
    if not lo <= x <= hi:
        raise ValueError(f"{name} {value!r} is out of range; allowed: {lo}-{hi}")
    return x


def controls_to_spec(c: Controls, policy: Policy = Policy(), base: PlateSpec | None = None) -> PlateSpec:
    """The validated spec for the panel's controls (ValueError naming any bad value and what is allowed).

    With ``base`` (a pasted, uploaded or linked spec), only the controls whose value differs from what
    ``base`` shows change it: fields the controls cannot show (several colours, separate jitters, gap, canvas)
    survive, so a pasted spec reproduces its plate exactly.
    """
    if not isinstance(c.text, str) or not c.text.strip():
        raise ValueError(f"text {c.text!r} is empty; give the label to draw (e.g. '12' or 'A7')")
    check_policy(c.font, _number("plate size", c.size, 1, 10**6), c.text.strip(), policy)
    if c.dot_min and c.dot_max and c.dot_min > c.dot_max:
        raise ValueError(f"dot radius range {c.dot_min}-{c.dot_max} px is empty; allowed: min <= max")
    groups = _groups(c)
    if base is not None:
        check_policy(base.font, base.size, base.text, policy)
    if base is None:
        changes = {k: v for group in groups.values() for k, v in group.items()}
        return PlateSpec(**changes)
    shown = _groups(spec_to_controls(base))
    changes = {k: v for name, group in groups.items() if group != shown[name] for k, v in group.items()}
    return base.replace(**changes) if changes else base


def check_policy(font, size, text, policy: Policy) -> None:
    """ValueError unless the font, size (px) and text are allowed by ``policy``. Public mode takes a font
    by name only (never a server path), so this runs before anything opens a font file."""
    if policy.public and font not in font_choices():
        raise ValueError(f"font {font!r} is not allowed here; allowed: {', '.join(font_choices())}")
    if size is not None:
        px = int(_number("plate size", size, 1, 10**6))
        if not policy.min_plate_size <= px <= policy.max_plate_size:
            raise ValueError(
                f"plate size {px} px is not allowed; allowed: {policy.min_plate_size}-{policy.max_plate_size} px")
    if isinstance(text, str) and len(text) > policy.max_text_chars:
        raise ValueError(f"text {text[:40]!r} has {len(text)} characters; allowed: 1-{policy.max_text_chars}")


def spec_to_controls(spec: PlateSpec) -> Controls:
    """The panel's controls that show ``spec`` (the inverse of :func:`controls_to_spec` where it can be)."""
    pal_fg = spec.foreground or palettes.get_palette(spec.palette).foreground
    pal_bg = spec.background or palettes.get_palette(spec.palette).background
    jitter = spec.jitter_shift / HUEMANITY_JITTER["jitter_shift"]
    return Controls(
        colour_pair=spec.palette or CUSTOM, foreground=to_hex(pal_fg[0]), background=to_hex(pal_bg[0]),
        delta_e=spec.delta_e or 0.0, font=spec.font, text=spec.text,
        dot_min=spec.min_radius or 0.0, dot_max=spec.max_radius or 0.0, density=spec.density,
        jitter=round(min(max(jitter, 0.0), 1.0), 4), size=spec.size, seed=spec.seed,
    )


# --------------------------------------------------------------------------------------------------- rendering
@dataclass(frozen=True)
class Views:
    """A rendered plate and its views (PIL RGB, sRGB 0-255), keyed as :data:`VIEWS`, plus the stats line."""

    plate: Plate
    images: dict[str, Image.Image]
    stats: str


class PlateCache:
    """The last few rendered plates by spec (an LRU of ``maxsize``), so asking a model about the plate on
    screen does not render it again. Thread-safe; one per app, never module state."""

    def __init__(self, maxsize: int = 16) -> None:
        self.maxsize = maxsize
        self._plates: dict[PlateSpec, Plate] = {}
        self._lock = threading.Lock()

    def __call__(self, spec: PlateSpec) -> Plate:
        with self._lock:
            plate = self._plates.pop(spec, None)
        if plate is None:
            plate = render(spec)
        with self._lock:
            self._plates[spec] = plate  # most recently used last
            while len(self._plates) > self.maxsize:
                self._plates.pop(next(iter(self._plates)))
        return plate


def render_views(spec: PlateSpec, *, cvd: bool = True, renderer=render) -> Views:
    """Render ``spec`` and its views: plate, clear plate, mask, and (when ``cvd``) protan/deutan/tritan.

    CVD views simulate dichromacy at severity 1 (Machado et al. 2009, plates.conditions.cvd_view). The
    simulation is a function of each pixel's colour alone, so it is applied to the dots' colours (and the
    canvas) and the dots are painted again: the same pixels as simulating the whole image, far faster.
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
    """Lossless PNG of ``image`` (plates.images.encode_png, unfiltered zlib level 1): the exact pixels,
    encoded fast enough for a live view."""
    return encode_png(image, 1)


class Scratch:
    """A folder of files the explorer names itself (never from user input), pruned of files older than
    ``max_age_s`` seconds as new ones are written, so a long-running Space does not fill its disk."""

    def __init__(self, root: str | os.PathLike, max_age_s: float = 900.0) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_age_s = max_age_s
        self._last_prune = 0.0

    def write(self, stem: str, suffix: str, data: bytes) -> str:
        """Write ``data`` to a fresh file ``<stem>-<random>.<suffix>`` and return its path."""
        if not re.fullmatch(r"[a-z0-9-]{1,40}", stem) or suffix not in ("png", "json", "parquet"):
            raise ValueError(f"scratch name {stem!r}.{suffix!r} is not allowed; allowed: [a-z0-9-] and png/json/parquet")
        now = time.time()
        if now - self._last_prune > 60:
            self._last_prune = now
            for old in self.root.iterdir():
                with contextlib.suppress(OSError):
                    if now - old.stat().st_mtime > self.max_age_s:
                        old.unlink()
        path = self.root / f"{stem}-{uuid.uuid4().hex[:12]}.{suffix}"
        path.write_bytes(data)
        return str(path)


def stats_text(plate: Plate) -> str:
    """One line of the plate's stats: dots, coverage (0-1 as %), text coverage, and the CIEDE2000 achieved
    (mean over the palette's foreground x background pairs, and the smallest pair when they differ) vs asked."""
    s = plate.stats
    target = plate.spec.delta_e
    asked = f" (asked {target:.2f})" if target else " (colours as given)"
    spread = f", min {s.delta_e_min:.2f}" if s.delta_e - s.delta_e_min >= 0.005 else ""
    return (
        f"{s.dot_count} dots · coverage {s.coverage:.1%} · text coverage {s.text_coverage:.1%} · "
        f"ΔE2000 {s.delta_e:.2f}{spread}{asked}"
    )


# ----------------------------------------------------------------------------------------- spec <-> share code
def spec_to_json(spec: PlateSpec) -> str:
    """The spec as pretty JSON (what the download and the paste box hold)."""
    return json.dumps(json.loads(spec.to_json()), indent=2, sort_keys=True)


def spec_from_text(text: str | bytes, policy: Policy | None = None) -> PlateSpec:
    """Parse a pasted or uploaded spec (JSON text or bytes; never a path) -> PlateSpec, or a clear ValueError.

    With a public ``policy`` the font must be a name and the size within the cap, checked on the raw JSON
    before any PlateSpec is built (building one opens the font file).
    """
    if isinstance(text, bytes):
        if len(text) > MAX_SPEC_BYTES:
            raise ValueError(f"spec file is {len(text)} bytes; allowed: at most {MAX_SPEC_BYTES} bytes of JSON")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("spec file is not UTF-8 text; allowed: a JSON spec saved by the explorer") from None
    if not text or not text.strip():
        raise ValueError("spec is empty; paste the JSON of a spec (the explorer's 'spec JSON' download)")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"spec is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    if policy is not None and isinstance(raw, dict):
        check_policy(raw.get("font", PlateSpec.__dataclass_fields__["font"].default), raw.get("size"),
                     raw.get("text"), policy)
    try:
        return PlateSpec.from_json(text)
    except (TypeError, KeyError) as exc:
        raise ValueError(f"spec JSON does not describe a plate: {exc}") from None


def encode_spec(spec: PlateSpec) -> str:
    """Compact share code: URL-safe base64 (no padding) of zlib-compressed, minified JSON of the spec."""
    raw = json.dumps(json.loads(spec.to_json()), separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def decode_spec(code: str, policy: Policy | None = None) -> PlateSpec:
    """Share code (from :func:`encode_spec`) -> PlateSpec, or ValueError saying what is wrong with it."""
    code = (code or "").strip().rstrip("=")
    if not code or len(code) > MAX_CODE_CHARS:
        raise ValueError(f"share code of {len(code)} characters is not allowed; allowed: 1-{MAX_CODE_CHARS}")
    try:
        if not _CODE_RE.match(code):
            raise ValueError("it has characters outside A-Z a-z 0-9 - _")
        packed = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_SPEC_BYTES)
        if inflater.unconsumed_tail:
            raise ValueError(f"share code expands past {MAX_SPEC_BYTES} bytes")
        if not inflater.eof:
            raise ValueError("it is cut short")
    except (binascii.Error, zlib.error, ValueError) as exc:
        raise ValueError(f"share code is not one the explorer made ({exc}); allowed: the code after ?spec=") from None
    return spec_from_text(raw, policy)


def share_link(spec: PlateSpec, page_url: str | None = None) -> str:
    """The link that reopens ``spec``: the page's URL (scheme, host, path; its own query dropped) with
    ``?spec=<code>``, or the bare query string (a relative link) when the page URL is unknown or not http(s)."""
    from urllib.parse import urlsplit, urlunsplit

    query = share_query(spec)
    if page_url:
        parts = urlsplit(page_url)
        if parts.scheme in ("http", "https") and parts.netloc:
            return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query[1:], ""))
    return query


def share_query(spec: PlateSpec) -> str:
    """The query string that reproduces ``spec`` when appended to the explorer's URL: ``?spec=<code>``."""
    return f"?{QUERY_PARAM}={encode_spec(spec)}"
