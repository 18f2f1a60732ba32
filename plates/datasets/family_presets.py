"""Presets of the families other than plates: name -> how to make its items (illusions, scenes).

A `FamilyPreset` makes `plates.datasets.write.Entry` values for a size and seed; `plates generate --preset` writes
them (`plates.datasets.write.write_items`) and `plates run --dataset NAME` renders them in memory. Plate presets
live in `plates.datasets.presets` (their writer is tuned for the 84k-image HueManity set).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from types import MappingProxyType

from plates.datasets import illusions as ill
from plates.datasets import scenes as sc
from plates.datasets.presets import PRESETS
from plates.datasets.write import Entry
from plates.validation import suggestion

__all__ = ["FAMILY_PRESETS", "FamilyPreset", "get_family_preset", "presets_by_family", "presets_listing",
           "unknown_preset"]


@dataclass(frozen=True)
class FamilyPreset:
    """A benchmark set of one family: ``entries(size=, seed=)`` makes its items in a fixed order."""

    name: str
    family: str
    source: str
    entries: Callable[..., Iterator[Entry]]
    default_size: int = 512


def _presets() -> dict[str, FamilyPreset]:
    out = [
        FamilyPreset("rcid-contrast", "illusion", "RCID §3 contrast kind (procedural; controls, illusions, traps)",
                     lambda **kw: ill.rcid_entries("rcid-contrast", **kw)),
        FamilyPreset("rcid-stripe", "illusion", "RCID §3 stripe kind (White's / Munker-White; three directions)",
                     lambda **kw: ill.rcid_entries("rcid-stripe", **kw)),
        FamilyPreset("rcid-filter", "illusion", "RCID §3 filter kind (a colour cast; colour names)",
                     lambda **kw: ill.rcid_entries("rcid-filter", **kw)),
        FamilyPreset("illusions-classic", "illusion", "the classic colour illusions (research/illusions.md)",
                     ill.classic_entries),
        FamilyPreset("illusion-magnitude", "illusion", "signed-difference sweeps for points of subjective equality",
                     ill.magnitude_entries),
    ]
    for task in sc.SCENE_TASK_NAMES:
        out.append(FamilyPreset(f"colorbench-{task}", "scene", f"ColorBench Table 7 {task} on synthetic scenes",
                                lambda task=task, **kw: sc.scene_entries(task, **kw)))
    out.append(FamilyPreset("colorbench-robustness", "scene", "ColorBench §2.3 / App. C robustness on scenes",
                            sc.robustness_entries))
    out.append(FamilyPreset(
        "colorbench-synthetic", "scene", "every ColorBench scene task, balanced difficulty, plus robustness",
        lambda **kw: chain(*(sc.scene_entries(t, **kw) for t in sc.SCENE_TASK_NAMES), sc.robustness_entries(**kw))))
    return {p.name: p for p in out}


#: Preset name -> FamilyPreset (read-only).
FAMILY_PRESETS: Mapping[str, FamilyPreset] = MappingProxyType(_presets())


def get_family_preset(name: str) -> FamilyPreset:
    """The family preset called ``name``; ValueError listing them otherwise."""
    if name not in FAMILY_PRESETS:
        raise unknown_preset(name)
    return FAMILY_PRESETS[name]


def presets_by_family() -> dict[str, tuple[str, ...]]:
    """Every preset name, grouped by family: ``{"plate": (...), "illusion": (...), "scene": (...)}`` (plate
    presets from `plates.datasets.presets.PRESETS`, the others from :data:`FAMILY_PRESETS`)."""
    out: dict[str, tuple[str, ...]] = {"plate": tuple(PRESETS)}
    for p in FAMILY_PRESETS.values():
        out[p.family] = (*out.get(p.family, ()), p.name)
    return out


def presets_listing() -> str:
    """One line per family, ``"plate: a, b; illusion: c; scene: d"``, for errors and ``--help``.

    >>> presets_listing().startswith("plate: colorblindnesseval, ")
    True
    """
    return "; ".join(f"{family}: {', '.join(names)}" for family, names in presets_by_family().items())


def unknown_preset(name: object) -> ValueError:
    """The error for a preset name that no family has: every family's presets, grouped by family
    (:func:`presets_listing`), with ``did you mean`` for a near-miss name (`plates.validation.suggestion`).
    Returned, not raised."""
    names = [n for group in presets_by_family().values() for n in group]
    close = suggestion(name, names)
    hint = f"; did you mean {close!r}?" if close else ""
    return ValueError(f"preset {name!r} is not known; allowed: {presets_listing()}{hint}")
