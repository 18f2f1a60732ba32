"""Fonts by name and the text masks that decide which dots belong to the figure.

ColorBlindnessEval App. E.1 renders numbers 0-99 in black on white as "reference images" (Arial, §3 note 2:
here the metric-compatible Liberation Sans). HueManity §3 renders each string in white on black with DejaVu
Sans Bold Oblique at size 550 on a 900 x 900 canvas. We render with FreeType through Pillow (basic layout, no
system shaping library, so masks are identical everywhere), threshold the anti-aliased glyphs at 50%, centre
the ink's bounding box on the plate, and shrink the font below the paper's size only when needed so that
every ink pixel lies inside the disc minus a margin (the plate passes its largest dot radius): HueManity's own
generator clips 10.9% of its labels at the plate edge, ours clips none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from plates.validation import not_known

__all__ = [
    "FONTS",
    "FONT_ALIASES",
    "FONT_DIR",
    "TEXT_SCALE",
    "available_fonts",
    "resolve_font",
    "check_text",
    "text_mask",
    "fit_font_size",
]

# name -> TrueType file name (looked up in FONT_DIRS); read-only
FONTS: Mapping[str, str] = MappingProxyType({
    "liberation-sans": "LiberationSans-Regular.ttf",
    "liberation-sans-bold": "LiberationSans-Bold.ttf",
    "liberation-sans-italic": "LiberationSans-Italic.ttf",
    "liberation-sans-bold-italic": "LiberationSans-BoldItalic.ttf",
    "dejavu-sans": "DejaVuSans.ttf",
    "dejavu-sans-bold": "DejaVuSans-Bold.ttf",
    "dejavu-sans-oblique": "DejaVuSans-Oblique.ttf",
    "dejavu-sans-bold-oblique": "DejaVuSans-BoldOblique.ttf",
})
# italic and oblique name the same face in each family; read-only
FONT_ALIASES: Mapping[str, str] = MappingProxyType({
    "liberation-sans-regular": "liberation-sans",
    "liberation-sans-oblique": "liberation-sans-italic",
    "liberation-sans-bold-oblique": "liberation-sans-bold-italic",
    "dejavu-sans-regular": "dejavu-sans",
    "dejavu-sans-italic": "dejavu-sans-oblique",
    "dejavu-sans-bold-italic": "dejavu-sans-bold-oblique",
})
#: The bundled font files (Liberation Sans 2.1.5 under the SIL OFL, DejaVu Sans 2.37; see fonts/README.md):
#: every name of `FONTS` resolves here and nowhere else, so the same spec draws the same pixels on any machine.
FONT_DIR: Path = Path(__file__).resolve().parent / "fonts"
TEXT_SCALE = 550 / 900  # HueManity §3: font size 550 on a 900 px canvas
_MISSING_PROBE = "\U0010fffd"  # a private-use code point no text font maps: renders as .notdef


def _user_font_dirs() -> tuple[str, ...]:
    """Folders (``PLATES_FONT_DIRS``, separated like PATH) searched for a font given by bare file name, e.g.
    ``font="Arial.ttf"``; bundled names never look there."""
    return tuple(p for p in os.environ.get("PLATES_FONT_DIRS", "").split(os.pathsep) if p)


def available_fonts() -> list[str]:
    """The font names of `FONTS` (all bundled with the package)."""
    return [n for n, f in FONTS.items() if (FONT_DIR / f).is_file()]


def resolve_font(name_or_path: str) -> str:
    """Absolute path of a font given by name (`FONTS`, `FONT_ALIASES`) or by a .ttf/.otf path.

    Raises ValueError (listing the available names) for an unknown name, a missing file, or a path that is not
    a readable TrueType/OpenType font. Never falls back to another font.

    Parameters
    ----------
    name_or_path : str
        A bundled font's name or alias, or a path to a .ttf / .otf file.

    Returns
    -------
    str
        The font file's absolute path.

    Raises
    ------
    ValueError
        For an unknown name, a missing file, or a file that is not a readable TrueType/OpenType font.
    """
    if not isinstance(name_or_path, str) or not name_or_path:
        raise ValueError(f"font {name_or_path!r} is not valid; allowed: {', '.join(available_fonts())} or a .ttf path")
    name = FONT_ALIASES.get(name_or_path, name_or_path)
    if name in FONTS:
        path = FONT_DIR / FONTS[name]
        if not path.is_file():  # only a damaged install gets here: the files ship with the package
            raise ValueError(
                f"font {name_or_path!r}: the bundled file {str(path)!r} is missing (a damaged install: reinstall "
                f"plates); available: {', '.join(available_fonts()) or 'none'} or a .ttf path"
            )
        return str(path)
    if name.lower().endswith((".ttf", ".otf", ".ttc")) or os.sep in name or "/" in name:
        p = Path(name).expanduser()
        if not p.is_file() and os.sep not in name and "/" not in name:
            p = next((Path(d) / name for d in _user_font_dirs() if (Path(d) / name).is_file()), p)
        if not p.is_file():
            raise ValueError(
                f"font file {name_or_path!r} does not exist; allowed: {', '.join(available_fonts())} or an existing .ttf path"
            )
        try:
            ImageFont.truetype(str(p), 16)
        except OSError as exc:
            raise ValueError(f"font file {name_or_path!r} is not a readable TrueType/OpenType font ({exc})") from None
        return str(p.resolve())
    raise not_known("font", name_or_path, available_fonts(), extra=" or a .ttf path")


@lru_cache(maxsize=64)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=4096)
def _has_glyph(path: str, ch: str) -> bool:
    """True when the font maps ``ch`` to a glyph other than .notdef (compares bitmaps with a probe)."""
    f = _font(path, 48)
    probe = f.getmask(_MISSING_PROBE)
    m = f.getmask(ch)
    if m.size != probe.size:
        return True
    return bytes(m) != bytes(probe)


def check_text(text: str, font: str) -> str:
    """Validate ``text`` for ``font`` (name or path); returns the font path.

    Text must be a non-empty printable string with at least one non-space character, and the font must
    have a glyph for every character (ValueError naming the missing characters otherwise).

    Parameters
    ----------
    text : str
        The plate's text.
    font : str
        A font name or path (`resolve_font`).

    Returns
    -------
    str
        The font file's absolute path.

    Raises
    ------
    ValueError
        For empty or unprintable text, a character the font has no glyph for, or a font `resolve_font`
        refuses.
    """
    if not isinstance(text, str) or not text.strip() or not text.isprintable():
        raise ValueError(f"text {text!r} is not valid; allowed: a non-empty printable string (digits, letters, ...)")
    path = resolve_font(font)
    missing = sorted({c for c in text if not c.isspace() and not _has_glyph(path, c)})
    if missing:
        raise ValueError(
            f"font {font!r} has no glyph for {', '.join(repr(c) for c in missing)} in text {text!r}; "
            "allowed: characters the font covers (digits and Latin letters in every font of FONTS), "
            f"or another font: {', '.join(available_fonts())}"
        )
    return path


@lru_cache(maxsize=8)  # text_mask renders again what fit_font_size just measured
def _render(text: str, path: str, fs: int) -> np.ndarray:
    """Ink of ``text`` at font size ``fs`` as a bool array cropped to its ink bounding box (read-only)."""
    f = _font(path, fs)
    left, top, right, bottom = f.getbbox(text)
    pad = 4 + fs // 8
    img = Image.new("L", (right - left + 2 * pad, bottom - top + 2 * pad), 0)
    ImageDraw.Draw(img).text((pad - left, pad - top), text, font=f, fill=255)
    a = np.asarray(img) >= 128
    rows = np.flatnonzero(a.any(axis=1))
    cols = np.flatnonzero(a.any(axis=0))
    if rows.size == 0:
        raise ValueError(f"text {text!r} draws no ink in font {path!r}; allowed: text with visible characters")
    ink = a[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    ink.setflags(write=False)
    return ink


def _place(ink: np.ndarray, size: int) -> tuple[int, int]:
    """Top-left offset that centres the ink box on the plate."""
    h, w = ink.shape
    return (size - h) // 2, (size - w) // 2


def _max_ink_distance(ink: np.ndarray, size: int) -> float:
    """Largest distance (px) from the plate centre to any corner of an ink pixel, once placed.

    Only each row's leftmost and rightmost ink pixels can be farthest, so only those are measured.
    """
    oy, ox = _place(ink, size)
    has = ink.any(axis=1)
    rows = np.flatnonzero(has)
    first = ink[rows].argmax(axis=1)
    last = ink.shape[1] - 1 - ink[rows, ::-1].argmax(axis=1)
    ys = np.concatenate([rows, rows]).astype(np.float64) + oy
    xs = np.concatenate([first, last]).astype(np.float64) + ox
    c = size / 2.0
    dy = np.maximum(np.abs(ys - c), np.abs(ys + 1 - c))
    dx = np.maximum(np.abs(xs - c), np.abs(xs + 1 - c))
    return float(np.sqrt(dx * dx + dy * dy).max())


@lru_cache(maxsize=8192)
def fit_font_size(text: str, font: str, size: int, margin: float, text_scale: float = TEXT_SCALE) -> int:
    """Font size (px) for ``text``: ``round(text_scale * size)`` (HueManity: 550 at 900 px), shrunk until every
    ink pixel lies within ``size / 2 - margin`` of the plate centre.

    Parameters
    ----------
    text : str
        The plate's text.
    font : str
        A font name or path (`resolve_font`).
    size : int
        The plate's side, px.
    margin : float
        Px kept free between the ink and the plate's edge.
    text_scale : float, optional
        The font size as a fraction of the plate size before any shrinking (default `TEXT_SCALE`).

    Returns
    -------
    int
        The font size, px (>= 4).

    Raises
    ------
    ValueError
        For text or a font `check_text` refuses, a margin that leaves 4 px or less, or text that does not fit
        after 12 shrinks.

    References
    ----------
    HueManity §3 (a 550 px font on a 900 px plate).
    """
    path = check_text(text, font)
    limit = size / 2.0 - margin
    if limit <= 4:
        raise ValueError(f"margin {margin!r} leaves no room on a {size} px plate; allowed: margin < {size / 2 - 4}")
    fs = max(4, int(round(text_scale * size)))
    for _ in range(12):
        d = _max_ink_distance(_render(text, path, fs), size)
        if d <= limit:
            return fs
        fs = max(4, int(fs * limit / d * 0.995))
    raise ValueError(f"text {text!r} ({len(text)} characters) cannot be fitted on a {size} px plate with margin "
                     f"{margin}; allowed: a shorter text or a larger size (64-4096 px)")


@lru_cache(maxsize=16)  # 16 x 0.8 MB at 900 px; generation walks labels in order, so a few suffice
def text_mask(text: str, font: str, size: int, margin: float, text_scale: float = TEXT_SCALE) -> np.ndarray:
    """Binary text mask: bool (size, size), True on the figure's ink (read-only array; copy before editing).

    Parameters
    ----------
    text : str
        The plate's text.
    font : str
        A font name or path (`resolve_font`).
    size : int
        The plate's side, px.
    margin : float
        Px kept free between the ink and the plate's edge.
    text_scale : float, optional
        The font size as a fraction of the plate size before any shrinking (default `TEXT_SCALE`).

    Returns
    -------
    numpy.ndarray of bool, shape (size, size)
        Read-only.

    Raises
    ------
    ValueError
        For text or a font `check_text` refuses, a margin that leaves 4 px or less, or text that does not fit
        after 12 shrinks.
    """
    fs = fit_font_size(text, font, size, margin, text_scale)
    ink = _render(text, resolve_font(font), fs)
    oy, ox = _place(ink, size)
    out = np.zeros((size, size), dtype=bool)
    out[oy : oy + ink.shape[0], ox : ox + ink.shape[1]] = ink
    out.setflags(write=False)
    return out
