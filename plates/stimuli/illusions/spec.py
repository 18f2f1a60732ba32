"""IllusionSpec: everything that decides an illusion image's pixels, validated when built.

Colours are CIELAB (D65, 2°) triples; `lab` turns a hex or sRGB 0-255 colour into one. The spec's JSON is
tagged with the family ("illusion", `plates.stimuli.base.tagged_json`), so a results row regenerates its
image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from plates import colour as C
from plates.stimuli.base import SpecBase
from plates.stimuli.illusions.colours import CAST_ALPHA, in_gamut, max_cast_alpha, rgb8, target_pair, uncast
from plates.stimuli.illusions.kinds import (
    DIRECTIONS,
    ILLUSION_TYPES,
    LAYOUTS,
    STRIPE_KINDS,
    IllusionType,
    Lab,
)
from plates.validation import check_choice, check_number, is_number, lookup

__all__ = ["FAMILY_NAME", "SIZES", "IllusionSpec", "lab"]

FAMILY_NAME = "illusion"
#: The image sizes (px, side, inclusive) an illusion may be drawn at.
SIZES = (64, 2048)
_MAX_DELTA_E = 100.0
_EDGE_NOISE_MAX = 0.05


def lab(colour) -> Lab:
    """CIELAB (D65, 2°) of a colour, rounded to 0.01: the form `IllusionSpec` takes colours in (its 8-bit sRGB
    comes back as the same pixel).

    Parameters
    ----------
    colour : str or sequence of 3 int
        A hex string (``"#808080"``), ``"rgb(r, g, b)"`` or an sRGB 0-255 triple (`plates.colour.parse_colour`).

    Returns
    -------
    tuple of 3 float
        L* (0-100), a*, b*.

    Raises
    ------
    ValueError
        When ``colour`` is not one of those forms.

    Examples
    --------
    >>> lab("#ffffff")
    (100.0, 0.01, 0.0)
    """
    v = C.srgb255_to_lab(C.parse_colour(colour))
    return (round(float(v[0]), 2), round(float(v[1]), 2), round(float(v[2]), 2))



def _lab(name: str, value) -> Lab:
    ok = (
        isinstance(value, tuple | list | np.ndarray)
        and len(value) == 3
        and all(is_number(v) and math.isfinite(v) for v in value)
    )
    if not ok or not 0 <= value[0] <= 100 or not all(-128 <= v <= 128 for v in value[1:]):
        raise ValueError(
            f"{name}={value!r} is not valid; allowed: a CIELAB triple (L* 0-100, a* and b* -128..128), e.g. "
            "(55, 0, 0) or lab('#808080')"
        )
    out = (float(value[0]), float(value[1]), float(value[2]))
    if not bool(in_gamut(out)):
        srgb = np.round(C.lab_to_srgb255(out), 1).tolist()
        raise ValueError(
            f"{name}={out!r} is outside sRGB (it maps to sRGB 0-255 {srgb}); "
            "allowed: a CIELAB colour inside sRGB"
        )
    return out


@dataclass(frozen=True)
class IllusionSpec(SpecBase):
    """One procedurally drawn colour illusion (a kind of `ILLUSION_TYPES`). Colours: CIELAB (D65, 2°).

    Every field, its unit and its range are described on the documentation's illusions page
    (docs/illusions.md, "The fields of an IllusionSpec").

    Parameters
    ----------
    kind : str
        A name of `ILLUSION_TYPES`.
    size : int, optional
        Image width = height, px (64-2048).
    seed : int, optional
        0 <= seed < 2**63; seeds numpy PCG64 streams (ignored by kinds that draw nothing at random).
    strength : float, optional
        Inducer strength 0-1; 0 is a control with equal inducer contexts.
    delta_e : float, optional
        Signed CIEDE2000 between targets A and B (positive: A lighter), |delta_e| <= 100, met within 0.5 on the
        8-bit pixels.
    target : CIELAB triple or None, optional
        The targets' base colour; None for the kind's default.
    inducers : sequence of CIELAB triple or None, optional
        The kind's inducer colours, as many as it names; None for its defaults.
    layout : str, optional
        "left-right" or "up-down".
    swap : bool, optional
        Mirror the scene so A and B trade inducer contexts.
    direction : str or None, optional
        Stripe kinds only: "horizontal", "vertical" or "diagonal"; None for the kind's default.
    count : int or None, optional
        Stripes, checks, steps or lattice lines, within the kind's range; None for its default.
    edge_noise : float or None, optional
        rcid-contrast and rcid-stripe only: outline noise amplitude as a fraction of ``size``, 0-0.05.

    Raises
    ------
    ValueError
        A value out of its range, a field the kind does not take, or a difference not reachable in sRGB,
        naming it and what is allowed.

    References
    ----------
    Mao et al. 2025 (RCID), §3.1-3.2 (the RCID kinds; docs/illusions.md for the others).
    """

    FAMILY: ClassVar[str] = FAMILY_NAME

    kind: str
    size: int = 512
    seed: int = 0
    strength: float = 1.0
    delta_e: float = 0.0
    target: Lab | None = None
    inducers: tuple[Lab, ...] | None = None
    layout: str = "left-right"
    swap: bool = False
    direction: str | None = None
    count: int | None = None
    edge_noise: float | None = None

    def __post_init__(self) -> None:
        s = object.__setattr__
        lookup(ILLUSION_TYPES, self.kind, "kind")
        s(self, "size", check_number("size", self.size, *SIZES, integer=True))
        s(self, "seed", check_number("seed", self.seed, 0, 2**63 - 1, integer=True))
        s(self, "strength", check_number("strength", self.strength, 0.0, 1.0))
        s(self, "delta_e", check_number("delta_e", self.delta_e, -_MAX_DELTA_E, _MAX_DELTA_E) + 0.0)  # -0.0 -> 0.0
        if self.target is not None:
            s(self, "target", _lab("target", self.target))
        info = self.info
        if self.inducers is not None:
            if not isinstance(self.inducers, tuple | list) or len(self.inducers) != len(info.inducers):
                raise ValueError(
                    f"inducers={self.inducers!r} is not valid for {self.kind}; allowed: None or "
                    f"{len(info.inducers)} CIELAB triple(s): {'; '.join(info.inducers)}"
                )
            s(self, "inducers", tuple(_lab(f"inducers[{i}]", v) for i, v in enumerate(self.inducers)))
        check_choice("layout", self.layout, LAYOUTS)
        if not isinstance(self.swap, bool):
            raise ValueError(f"swap={self.swap!r} is not valid; allowed: True or False")
        self._check_direction(info)
        self._check_count(info)
        if self.edge_noise is not None:
            if info.edge_noise is None:
                with_noise = ", ".join(k for k, t in ILLUSION_TYPES.items() if t.edge_noise is not None)
                raise ValueError(f"edge_noise applies to {with_noise} only, not {self.kind}; allowed: None")
            s(self, "edge_noise", check_number("edge_noise", self.edge_noise, 0.0, _EDGE_NOISE_MAX))
        _ = self.target_srgb  # an unreachable difference fails here, naming the reachable range
        if self.kind == "rcid-filter":
            self._check_cast()

    def _check_direction(self, info: IllusionType) -> None:
        if self.direction is None:
            return
        if info.default_direction is None:
            raise ValueError(
                f"direction applies to {', '.join(STRIPE_KINDS)} only, not {self.kind}; allowed: None"
            )
        check_choice("direction", self.direction, DIRECTIONS, extra=" or None")

    def _check_count(self, info: IllusionType) -> None:
        if self.count is not None and info.count is None:
            with_count = ", ".join(k for k, t in ILLUSION_TYPES.items() if t.count is not None)
            raise ValueError(f"count applies to {with_count} only, not {self.kind}; allowed: None")
        if self.count is not None:
            lo, hi = info.count_range  # type: ignore[misc]
            object.__setattr__(
                self, "count", check_number(f"count ({info.count})", self.count, lo, hi, integer=True)
            )
        n = self.resolved_count
        if n is None:
            return
        if self.kind in STRIPE_KINDS and self.size / (2 * n) < 1:
            raise ValueError(
                f"count={n} at size={self.size} gives a stripe width of {self.size / (2 * n):.2f} px, under "
                f"1 px; allowed: count <= {self.size // 2} at this size "
                "(stripe width = size / (2 * count) >= 1 px)"
            )
        if self.kind == "checker-shadow" and n % 2:
            raise ValueError(
                f"count={n} is not valid for checker-shadow; allowed: an even number of checks 6-16"
            )
        if self.kind == "chevreul" and n % 2 == 0:
            raise ValueError(f"count={n} is not valid for chevreul; allowed: an odd number of steps 3-31")

    def _check_cast(self) -> None:
        a, b = self.target_srgb
        cast = rgb8(self.resolved_inducers[0])
        alpha = CAST_ALPHA * self.strength
        if np.all((uncast([a, b], cast, alpha) >= -0.5) & (uncast([a, b], cast, alpha) < 255.5)):
            return
        top = max_cast_alpha([a, b], cast) / CAST_ALPHA
        raise ValueError(
            f"strength={self.strength:g} casts targets {list(a)} / {list(b)} (sRGB 0-255) with cast "
            f"{list(cast)}, but no sRGB colour lies behind them under that cast; allowed: strength <= "
            f"{top:.3f} for these colours (or a target nearer mid-grey, or a smaller |delta_e|)"
        )

    # ---- resolved values -------------------------------------------------------------------------------
    @property
    def info(self) -> IllusionType:
        """The kind's `IllusionType` (description, source, defaults)."""
        return ILLUSION_TYPES[self.kind]

    @property
    def resolved_target(self) -> Lab:
        """The targets' base colour, CIELAB."""
        return self.target if self.target is not None else self.info.default_target

    @property
    def resolved_inducers(self) -> tuple[Lab, ...]:
        """The inducer colours at strength 1, CIELAB."""
        return self.inducers if self.inducers is not None else self.info.default_inducers

    @property
    def resolved_direction(self) -> str | None:
        """The stripe direction in the final image (None for kinds without stripes)."""
        return self.direction if self.direction is not None else self.info.default_direction

    @property
    def resolved_count(self) -> int | None:
        """The spec's ``count``, or its kind's default (None for kinds without a count)."""
        return self.count if self.count is not None else self.info.default_count

    @property
    def resolved_edge_noise(self) -> float:
        """Edge-noise amplitude as a fraction of the size (0 for kinds without edge noise)."""
        if self.edge_noise is not None:
            return self.edge_noise
        return self.info.edge_noise or 0.0

    @cached_property
    def target_srgb(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(A, B) target colours as drawn, sRGB 0-255 int triples (`colours.target_pair`)."""
        return target_pair(self.resolved_target, self.delta_e)
