"""The contract every stimulus family meets: a frozen spec renders to a :class:`Stimulus`.

A *family* (Ishihara plates, colour illusions, synthetic colour scenes, ...) is a frozen, validated spec type
plus a pure ``render(spec) -> Stimulus``. The spec decides every pixel (its seed included), so a results row
that stores the spec's tagged JSON regenerates its image exactly (`plates.stimuli.spec_from_json`).

Colours: images are PIL RGB, sRGB 0-255; masks are bool arrays (H, W) in image pixel coordinates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
from PIL import Image

__all__ = ["FAMILY_KEY", "StimulusSpec", "Stimulus", "Family", "tagged_json"]

#: The key under which a spec's JSON names its family ({"family": "illusion", ...}). Plate specs written
#: before families existed carry no tag and read as "ishihara".
FAMILY_KEY = "family"


@runtime_checkable
class StimulusSpec(Protocol):
    """What a family's spec type provides: a frozen dataclass validated in ``__post_init__`` (a ValueError
    naming the bad value and what is allowed), with a ``seed`` and a ``size`` (image side in px)."""

    FAMILY: ClassVar[str]
    seed: int
    size: int

    def to_dict(self) -> dict: ...

    def to_json(self) -> str: ...

    def replace(self, **changes: Any) -> StimulusSpec: ...


@dataclass(frozen=True, eq=False)
class Stimulus:
    """A rendered stimulus.

    ``image``: PIL RGB, sRGB 0-255 (the "standard" variant). ``masks``: region name -> bool (H, W) array
    (plates: "text"; illusions: the targets "A" and "B"; scenes: one per region). ``truth``: JSON-able ground
    truth (plates: {"label": ...}; illusions: pixel truth and the perceptual prediction; scenes: counts,
    shares, colours). ``stats``: JSON-able measurements of what was drawn. ``variants``: other images of the
    same stimulus by name (e.g. a plate's "clear" and "mask"), made on demand.
    """

    spec: Any
    image: Image.Image
    masks: Mapping[str, np.ndarray] = field(default_factory=dict)
    truth: Mapping[str, Any] = field(default_factory=dict)
    stats: Mapping[str, Any] = field(default_factory=dict)
    variants: Mapping[str, Callable[[], Image.Image]] = field(default_factory=dict)

    @property
    def pixels(self) -> np.ndarray:
        """The image as a (H, W, 3) uint8 array, sRGB 0-255."""
        return np.asarray(self.image)

    def variant(self, name: str) -> Image.Image:
        """The PIL RGB image of variant ``name`` ("standard" is ``image``); ValueError listing the others."""
        if name == "standard":
            return self.image
        if name in self.variants:
            return self.variants[name]()
        raise ValueError(f"variant {name!r} is not known; allowed: {', '.join(('standard', *self.variants))}")


@dataclass(frozen=True)
class Family:
    """One entry of `plates.stimuli.STIMULI`: a family name, its spec type, its renderer, the variants its
    stimuli offer, and the papers it follows."""

    name: str
    spec_type: type
    render: Callable[[Any], Any]
    variants: tuple[str, ...] = ("standard",)
    source: str = ""


def tagged_json(family: str, fields: Mapping[str, Any]) -> str:
    """Compact JSON of ``fields`` with ``{"family": family}`` added, keys sorted: equal specs, equal strings."""
    if FAMILY_KEY in fields:
        raise ValueError(f"a spec field may not be called {FAMILY_KEY!r} (it tags the family)")
    return json.dumps({FAMILY_KEY: family, **fields}, sort_keys=True, separators=(",", ":"))
