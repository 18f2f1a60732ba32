"""Presets of the families other than plates: name -> how to make its items (illusions, scenes).

A `FamilyPreset` makes `plates.datasets.write.Entry` values for a size and seed; `plates generate --preset` writes
them (`plates.datasets.write.write_items`) and `plates run --dataset NAME` renders them in memory. Plate presets
live in `plates.datasets.presets` (their writer is tuned for the 84k-image HueManity set).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from types import MappingProxyType

from plates.datasets import illusions as ill
from plates.datasets import scenes as sc
from plates.datasets.presets import PRESETS
from plates.datasets.write import Entry
from plates.stimuli.illusions.spec import SIZES as ILLUSION_SIZES
from plates.stimuli.scenes.spec import SIZES as SCENE_SIZES
from plates.validation import check_int, suggestion

__all__ = ["FAMILY_PRESETS", "FamilyPreset", "presets_by_family", "presets_listing", "unknown_preset"]


@dataclass(frozen=True)
class FamilyPreset:
    """A benchmark set of one family. ``jobs(size=, seed=)`` yields its work in a fixed order: entries, or
    picklable callables that each make a few (a scene item renders its scene to fix its question), which
    `plates.datasets.write.write_items` spreads over worker processes; ``entries(size=, seed=)`` makes the
    items here, in the same order. ``sizes``: the image sizes its stimuli allow (px, inclusive; the family spec's ``SIZES``, or narrower). A job is what
    a shard owns (`plates.shards`); ``entries_per_job`` says how many images each makes (None: several).

    Parameters
    ----------
    name : str
        The preset's name (a key of `FAMILY_PRESETS`).
    family : str
        The stimulus family (`plates.stimuli.STIMULI`).
    source : str
        The paper and section the set follows.
    jobs : callable
        ``jobs(size=, seed=)`` yielding entries or picklable callables returning entries, in a fixed order.
    default_size : int, optional
        Image side when none is asked, px.
    sizes : tuple of (int, int), optional
        The smallest and largest image side its stimuli allow, px (inclusive).
    entries_per_job : int or None, optional
        Images each job makes; None when several (e.g. a robustness seed's variants).
    """

    name: str
    family: str
    source: str
    jobs: Callable[..., Iterator[Entry | Callable[[], Iterable[Entry]]]]
    default_size: int = 512
    sizes: tuple[int, int] = ILLUSION_SIZES
    entries_per_job: int | None = 1  # images each job makes (None: several, e.g. a robustness seed's variants)

    def entries(self, *, size: int | None = None, seed: int = 0) -> Iterator[Entry]:
        """Every item of the preset in order, made in this process.

        Parameters
        ----------
        size : int or None, optional
            Image side, px (None: `default_size`).
        seed : int, optional
            The set's seed.

        Yields
        ------
        Entry
            The items, in order.
        """
        return chain.from_iterable([job] if isinstance(job, Entry) else job()
                                   for job in self.jobs(size=self.check_size(size), seed=seed))

    def check_limit_with_shard(self, limit: int | None, shard: object) -> None:
        """ValueError when a ``limit`` comes with a ``shard`` (`plates.shards.Shard`) and the preset's items are
        several images each: a shard cannot tell where another shard's images end.

        Parameters
        ----------
        limit : int or None
            The ``--limit``.
        shard : Shard or None
            The ``--shard``.

        Raises
        ------
        ValueError
            When both are given and the preset's items are several images each.
        """
        if shard is not None and limit is not None and self.entries_per_job != 1:
            raise ValueError(f"limit={limit!r} cannot be combined with a shard for preset {self.name!r}, whose items "
                             "are several images each (a shard cannot tell where another shard's images end); "
                             "allowed: no limit with a shard, or a limit without one")

    def check_size(self, size: int | None) -> int:
        """``size`` (None: `default_size`) if the preset's stimuli can be drawn at it; ValueError naming the
        allowed sizes otherwise (never replaced by another size).

        Parameters
        ----------
        size : int or None
            Image side, px.

        Returns
        -------
        int
            The size.

        Raises
        ------
        ValueError
            For a size outside the preset's ``sizes``.
        """
        if size is None:
            return self.default_size
        return check_int("size", size, *self.sizes,
                         note=f" for preset {self.name!r} (px; default {self.default_size})")


def _presets() -> dict[str, FamilyPreset]:
    out = [
        FamilyPreset("rcid-contrast", "illusion", "RCID §3 contrast kind (procedural; controls, illusions, traps)",
                     lambda **kw: ill.rcid_entries("rcid-contrast", **kw)),
        FamilyPreset("rcid-stripe", "illusion", "RCID §3 stripe kind (White's / Munker-White; three directions)",
                     lambda **kw: ill.rcid_entries("rcid-stripe", **kw)),
        FamilyPreset("rcid-filter", "illusion", "RCID §3 filter kind (a colour cast; colour names)",
                     lambda **kw: ill.rcid_entries("rcid-filter", **kw)),
        # their White's-illusion items draw 40 stripes, each at least 1 px wide: 80 px and up
        FamilyPreset("illusions-classic", "illusion", "the classic colour illusions (research/illusions.md)",
                     ill.classic_entries, sizes=(80, 2048)),
        FamilyPreset("illusion-magnitude", "illusion", "signed-difference sweeps for points of subjective equality",
                     ill.magnitude_entries, sizes=(80, 2048)),
    ]
    scene_sizes = SCENE_SIZES
    for task in sc.SCENE_TASK_NAMES:
        out.append(FamilyPreset(f"colorbench-{task}", "scene", f"ColorBench Table 7 {task} on synthetic scenes",
                                lambda task=task, **kw: sc.scene_jobs(task, **kw), sizes=scene_sizes))
    out.append(FamilyPreset("colorbench-robustness", "scene", "ColorBench §2.3 / App. C robustness on scenes",
                            sc.robustness_jobs, sizes=scene_sizes, entries_per_job=None))
    out.append(FamilyPreset(
        "colorbench-synthetic", "scene", "every ColorBench scene task, balanced difficulty, plus robustness",
        lambda **kw: chain(*(sc.scene_jobs(t, **kw) for t in sc.SCENE_TASK_NAMES), sc.robustness_jobs(**kw)),
        sizes=scene_sizes, entries_per_job=None))
    return {p.name: p for p in out}


#: Preset name -> FamilyPreset (read-only).
FAMILY_PRESETS: Mapping[str, FamilyPreset] = MappingProxyType(_presets())


def presets_by_family() -> dict[str, tuple[str, ...]]:
    """Every preset name, grouped by family: ``{"plate": (...), "illusion": (...), "scene": (...)}`` (plate
    presets from `plates.datasets.presets.PRESETS`, the others from :data:`FAMILY_PRESETS`)."""
    out: dict[str, tuple[str, ...]] = {"plate": tuple(PRESETS)}
    for p in FAMILY_PRESETS.values():
        out[p.family] = (*out.get(p.family, ()), p.name)
    return out


def presets_listing() -> str:
    """One line per family, ``"plate: a, b; illusion: c; scene: d"``, for errors and ``--help``.

    Examples
    --------
    >>> presets_listing().startswith("plate: colorblindnesseval, ")
    True
    """
    return "; ".join(f"{family}: {', '.join(names)}" for family, names in presets_by_family().items())


def unknown_preset(name: object) -> ValueError:
    """The error for a preset name that no family has: every family's presets, grouped by family
    (:func:`presets_listing`), with ``did you mean`` for a near-miss name (`plates.validation.suggestion`).
    Returned, not raised.

    Parameters
    ----------
    name : object
        The name given.

    Returns
    -------
    ValueError
        The error, to raise.
    """
    names = [n for group in presets_by_family().values() for n in group]
    close = suggestion(name, names)
    hint = f"; did you mean {close!r}?" if close else ""
    return ValueError(f"preset {name!r} is not known; allowed: {presets_listing()}{hint}")
