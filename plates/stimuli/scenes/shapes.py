"""The shapes a scene draws: unit outlines, their areas, names and how far they may turn.

Every shape is a polygon in a unit frame whose circumscribed circle has radius 1 (a circle is the circle
itself), so an object of bounding radius ``r`` never leaves the disc of radius ``r`` about its centre: the
placement in `plates.stimuli.scenes.draw` reasons about those discs only. Outlines are ours (ColorBench
§2.2 draws its synthetic images with code it does not print). Image coordinates: x right, y down, px.
"""

from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from plates.validation import lookup

__all__ = ["SHAPES", "SHAPE_AREA", "SHAPE_TURN", "outline", "plural"]


def _regular(n: int, phase: float = -math.pi / 2) -> np.ndarray:
    t = phase + 2 * math.pi * np.arange(n) / n
    return np.stack([np.cos(t), np.sin(t)], axis=1)


def _star(points: int = 5, inner: float = 0.45) -> np.ndarray:
    t = -math.pi / 2 + math.pi * np.arange(2 * points) / points
    r = np.where(np.arange(2 * points) % 2 == 0, 1.0, inner)
    return np.stack([r * np.cos(t), r * np.sin(t)], axis=1)


def _heart(n: int = 48) -> np.ndarray:
    # the classic parametric heart (x = 16 sin^3 t, y = 13 cos t - 5 cos 2t - 2 cos 3t - cos 4t), y flipped
    # for image coordinates, centred on its bounding circle and scaled to radius 1
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    p = np.stack([x, y], axis=1)
    p -= (p.max(axis=0) + p.min(axis=0)) / 2
    return p / np.max(np.hypot(p[:, 0], p[:, 1]))


def _unit(points: list[tuple[float, float]]) -> np.ndarray:
    p = np.asarray(points, dtype=np.float64)
    p -= (p.max(axis=0) + p.min(axis=0)) / 2
    return p / np.max(np.hypot(p[:, 0], p[:, 1]))


def _cross(a: float) -> np.ndarray:
    return _unit([(-a, -1), (a, -1), (a, -a), (1, -a), (1, a), (a, a), (a, 1), (-a, 1), (-a, a), (-1, a),
                  (-1, -a), (-a, -a)])


_CROSS_ARM = 0.36  # half-width of a cross arm, in units of its half-length
_OUTLINES = {
    "circle": None,  # drawn as an ellipse
    "square": _regular(4, -math.pi / 4),
    "triangle": _regular(3),
    "star": _star(),
    "diamond": _unit([(0, -1), (0.62, 0), (0, 1), (-0.62, 0)]),
    "hexagon": _regular(6, 0.0),
    "cross": _cross(_CROSS_ARM),
    "heart": _heart(),
    "house": _unit([(-0.8, 1), (0.8, 1), (0.8, 0), (1, 0), (0, -1), (-1, 0), (-0.8, 0)]),
    "arrow": _unit([(-1, -0.28), (0.25, -0.28), (0.25, -0.65), (1, 0), (0.25, 0.65), (0.25, 0.28), (-1, 0.28)]),
}

#: Shape names, in the order a spec lists them; "heart", "house" and "arrow" are the simple objects.
SHAPES: tuple[str, ...] = tuple(_OUTLINES)


def _area(poly: np.ndarray | None) -> float:
    if poly is None:
        return math.pi
    x, y = poly[:, 0], poly[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


#: Area of each shape at bounding radius 1 (px² per px² of radius): the object's area is ``SHAPE_AREA * r²``.
SHAPE_AREA = MappingProxyType({name: _area(p) for name, p in _OUTLINES.items()})

#: Largest rotation (degrees, either way) a shape may get: upright objects and the square/diamond pair stay
#: near their canonical pose so they remain recognisable (a square turned 45° is a diamond); the others turn
#: freely.
SHAPE_TURN = MappingProxyType({
    "circle": 180.0, "square": 15.0, "triangle": 180.0, "star": 180.0, "diamond": 15.0, "hexagon": 180.0,
    "cross": 30.0, "heart": 20.0, "house": 15.0, "arrow": 180.0,
})

_PLURAL = MappingProxyType({"cross": "crosses"})


def plural(shape: str) -> str:
    """English plural of a shape name ("star" -> "stars", "cross" -> "crosses").

    Parameters
    ----------
    shape : str
        A shape name.

    Returns
    -------
    str
        Its plural.

    Examples
    --------
    >>> plural("star"), plural("cross")
    ('stars', 'crosses')
    """
    return _PLURAL.get(shape, shape + "s")


def outline(shape: str, cx: float, cy: float, r: float, angle_deg: float) -> list[tuple[float, float]] | None:
    """The polygon of ``shape`` centred at (cx, cy) px with bounding radius ``r`` px, turned by ``angle_deg``
    (clockwise on screen), as a list of (x, y) vertices for ``ImageDraw.polygon``; None for a circle.

    Parameters
    ----------
    shape : str
        A name in `SHAPES`.
    cx, cy : float
        The centre, px.
    r : float
        The bounding radius, px.
    angle_deg : float
        The turn, degrees clockwise on screen.

    Returns
    -------
    list of (float, float) or None
        The vertices, px; None for a circle.

    Raises
    ------
    ValueError
        When ``shape`` is not a known shape.
    """
    poly = lookup(_OUTLINES, shape, "shape")
    if poly is None:
        return None
    t = math.radians(angle_deg)
    c, s = math.cos(t), math.sin(t)
    x = cx + r * (c * poly[:, 0] - s * poly[:, 1])
    y = cy + r * (s * poly[:, 0] + c * poly[:, 1])
    return list(zip(x.tolist(), y.tolist()))
