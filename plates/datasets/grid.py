"""A custom benchmark set from a grid file: labels x colour sets x fonts x ΔE2000 x sizes -> PNGs + manifest.

``plates generate --grid my-set.toml --out data/my-set`` writes every plate of the grid as PNGs (atomically,
resumable, in worker processes, as `plates.datasets.generate` does for the presets) and a
``manifest.parquet`` that `plates.datasets.load_dataset` and ``plates run --dataset data/my-set`` read::

    name = "red-green-sweep"                 # the dataset's name (letters, digits, - and _)
    labels = ["12", "74", "A7"]              # or {space = "cbe", count = 20} (a seeded sample): see _labels
    colour_sets = ["colorblindnesseval-1", "huemanity-06"]   # names of plates.stimuli.ishihara.palettes
    fonts = ["liberation-sans-bold", "dejavu-sans-bold-oblique"]
    delta_e = [0, 2, 4, 8, 16]               # CIEDE2000 targets; 0 = the colours as given
    sizes = [512, 900]                       # px
    variants = ["standard", "clear"]         # standard | clear | mask
    seed = 0
    directions = "distributed"               # or "palette": each ΔE2000 level on the palette's own CIELAB line

    [[colours]]                              # your own colour sets (sRGB 0-255: hex or [r, g, b])
    name = "brick-on-sage"
    foreground = ["#b22222", "#c0392b"]
    background = ["#8fbc8f"]

    [plate]                                  # any other PlateSpec field, the same for every plate
    density = 0.7
    jitter = "huemanity"                     # shorthand for HueManity §3's three jitters

A ΔE2000 target puts the background at that distance from the foreground reference (the CIELAB mean of the
foreground colours). ``directions = "distributed"`` (default) draws, per plate, a CIELAB direction around the
foreground and one background colour along it, within 0.05 ΔE2000 of the target as drawn in 8 bits
(`plates.stimuli.ishihara.directions`; seeded by the plate's seed and the target; the direction is in the
spec, so in every row's spec_json): a sweep then measures ΔE2000, not the few 8-bit colours one palette line
gives. ``directions = "palette"`` moves each background colour along the CIELAB line towards it instead
(`PlateSpec.delta_e` alone; the behaviour of grids before directions existed). The manifest has the preset manifests'
columns: ``delta_e`` (mean CIEDE2000 over the colour set's foreground x background colours), ``delta_e_target``
(what was asked; null = the colours as given) and the distribution over the dot pairs actually drawn
(``delta_e_drawn_min/p05/median/p95``, jitter included), so a multi-colour set's spread is visible.

Seeds: each plate's seed derives from (grid seed, name, colour set, label, font, size) through SHA-256
(`plates.datasets.presets.item_seed`), not from ΔE2000, so the plates of one label differ across ΔE2000 only
in colour: the dots are the same, which is what a threshold sweep wants.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from itertools import islice, product
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pyarrow as pa
from tqdm import tqdm

from plates.colour import parse_colour
from plates.datasets.generate import worker_count
from plates.datasets.items import MANIFEST_SCHEMA, finish_manifest
from plates.datasets.presets import item_seed
from plates.datasets.workers import results_of
from plates.datasets.write import check_same_set, write_plate
from plates.shards import Shard
from plates.stimuli.ishihara.directions import DIRECTION_MODES, with_direction
from plates.stimuli.ishihara.glyphs import check_text
from plates.stimuli.ishihara.labels import LABEL_SPACES
from plates.stimuli.ishihara.palettes import PALETTES
from plates.stimuli.ishihara.plate import HUEMANITY_JITTER, VARIANTS, PlateSpec, pair_delta_e
from plates.storage import TEMPORARIES
from plates.toml_files import read_toml
from plates.validation import check_int, check_keys, check_list, check_number

#: Top-level keys of a grid file.
GRID_KEYS = (
    "name",
    "labels",
    "colour_sets",
    "colours",
    "fonts",
    "delta_e",
    "sizes",
    "variants",
    "seed",
    "plate",
    "directions",
)
#: PlateSpec fields the grid itself sets (so [plate] may not).
GRID_FIELDS = ("text", "size", "font", "palette", "foreground", "background", "delta_e", "seed",
               "delta_e_direction")
#: Where the grid a folder was made from is kept (beside its images), to refuse resuming with another one.
GRID_RECORD = "grid.json"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


@dataclass(frozen=True)
class ColourSet:
    """A named colour set: a palette of plates.stimuli.ishihara.palettes (``palette``), or your own
    ``foreground`` and ``background`` lists (sRGB 0-255 triples).

    Parameters
    ----------
    name : str
        1-64 letters, digits, ``-`` and ``_``, starting with a letter or digit.
    palette : str or None, optional
        A palette name; None needs both colour lists.
    foreground, background : tuple of (int, int, int) or None, optional
        sRGB 0-255 colours of the figure and the ground.

    Raises
    ------
    ValueError
        A bad name, or no palette and a colour list missing.
    """

    name: str
    palette: str | None = None
    foreground: tuple[tuple[int, int, int], ...] | None = None
    background: tuple[tuple[int, int, int], ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(
                f"colour set name {self.name!r} is not valid; allowed: 1-64 letters, digits, - and _ "
                "(starting with a letter or digit)"
            )
        if self.palette is None and (not self.foreground or not self.background):
            raise ValueError(
                f"colour set {self.name!r} needs both foreground and background colours (or a palette "
                "name in colour_sets)"
            )

    def spec_fields(self) -> dict[str, Any]:
        """The PlateSpec fields this colour set fills in."""
        if self.palette is not None:
            return {"palette": self.palette}
        return {"palette": None, "foreground": self.foreground, "background": self.background}


@dataclass(frozen=True)
class Grid:
    """A benchmark grid: every label x colour set x font x ΔE2000 x size, in ``variants``; ``plate`` holds
    PlateSpec fields shared by every plate. Validated on construction: every label has a glyph in every font,
    every ΔE2000 target is reachable in sRGB from every colour set, every size takes the ``plate`` fields.

    Parameters
    ----------
    name : str
        The grid's name (1-64 letters, digits, ``-`` and ``_``); the dataset column and the output sub-folder.
    labels : sequence of str
        The plates' texts.
    colour_sets : sequence of ColourSet
        Distinctly named colour sets.
    fonts : sequence of str, optional
        Font names (`plates.stimuli.ishihara.glyphs.FONTS`) or .ttf paths.
    delta_e : sequence of float or None, optional
        CIEDE2000 targets, 0-200; None (or 0) keeps the colour set's colours as given.
    sizes : sequence of int, optional
        Image sides, px.
    variants : sequence of str, optional
        Names of `plates.stimuli.ishihara.plate.VARIANTS`.
    seed : int, optional
        0 <= seed < 2**63.
    plate : mapping, optional
        Other `PlateSpec` fields shared by every plate (not those of `GRID_FIELDS`); ``jitter = "huemanity"``
        stands for HueManity's jitter settings.
    directions : str, optional
        "distributed" (a CIELAB direction drawn per plate) or "palette" (the palette's own lines;
        `plates.stimuli.ishihara.directions.DIRECTION_MODES`).

    Raises
    ------
    ValueError
        An empty or repeating list, an unknown variant, key or direction mode, a bad name or seed, a ΔE2000 out
        of range or unreachable, a label without a glyph, or a size the ``plate`` fields refuse.
    """

    name: str
    labels: tuple[str, ...]
    colour_sets: tuple[ColourSet, ...]
    fonts: tuple[str, ...] = (PlateSpec.__dataclass_fields__["font"].default,)
    delta_e: tuple[float | None, ...] = (None,)
    sizes: tuple[int, ...] = (900,)
    variants: tuple[str, ...] = ("standard",)
    seed: int = 0
    plate: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    directions: str = "distributed"

    def __post_init__(self) -> None:
        s = object.__setattr__
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(
                f"name {self.name!r} is not valid; allowed: 1-64 letters, digits, - and _ "
                "(starting with a letter or digit)"
            )
        for key in ("labels", "colour_sets", "fonts", "delta_e", "sizes", "variants"):
            value = tuple(getattr(self, key))
            if not value:
                raise ValueError(f"{key} is empty; allowed: a list of one or more values")
            if len(set(value)) != len(value):
                raise ValueError(f"{key} {list(value)!r} lists a value twice; allowed: distinct values")
            s(self, key, value)
        names = [c.name for c in self.colour_sets]
        if len(set(names)) != len(names):
            raise ValueError(f"colour set names {names!r} repeat; allowed: distinct names")
        bad = [v for v in self.variants if v not in VARIANTS]
        if bad:
            raise ValueError(f"variants {bad!r} are not known; allowed: {', '.join(VARIANTS)}")
        s(self, "delta_e", tuple(None if not d else check_number("delta_e", d, 0.0, 200.0) for d in self.delta_e))
        if self.directions not in DIRECTION_MODES:
            raise ValueError(f"directions {self.directions!r} is not known; allowed: {', '.join(DIRECTION_MODES)}")
        check_int("seed", self.seed, 0, 2**63 - 1)
        plate = dict(self.plate)
        if plate.get("jitter") == "huemanity":
            plate = {**{k: v for k, v in plate.items() if k != "jitter"}, **HUEMANITY_JITTER}
        allowed = [f.name for f in fields(PlateSpec) if f.name not in GRID_FIELDS]
        unknown = sorted(set(plate) - set(allowed))
        if unknown:
            raise ValueError(
                f"[plate] keys {unknown} are not allowed; allowed: {', '.join(allowed)} "
                '(and jitter = "huemanity"); the grid sets ' + ", ".join(GRID_FIELDS)
            )
        s(self, "plate", MappingProxyType(plate))
        self._validate_plates()

    def _validate_plates(self) -> None:
        label = self.labels[0]
        for lab, font in product(self.labels, self.fonts):
            check_text(lab, font)  # ValueError naming the missing glyphs
        for size in self.sizes:
            self.spec(label, self.colour_sets[0], self.fonts[0], None, size)
        for colours, de in product(self.colour_sets, self.delta_e):
            try:
                self.spec(label, colours, self.fonts[0], de, min(self.sizes))
            except ValueError as exc:
                raise ValueError(f"colour set {colours.name!r} at delta_e {de}: {exc}") from None

    def spec(self, label: str, colours: ColourSet, font: str, delta_e: float | None, size: int) -> PlateSpec:
        """The PlateSpec of one plate of the grid (its seed from :func:`plate_seed`; with ``directions``
        "distributed" and a target, the background's direction from the plate's seed and the target).

        Parameters
        ----------
        label : str
            The plate's text.
        colours : ColourSet
            Its colour set.
        font : str
            Its font.
        delta_e : float or None
            Its ΔE2000 target.
        size : int
            Its side, px.

        Returns
        -------
        PlateSpec
            The plate's spec.
        """
        seed = plate_seed(self, colours.name, label, font, size)
        distributed = self.directions == "distributed" and delta_e is not None
        spec = PlateSpec(
            text=label,
            size=size,
            font=font,
            delta_e=None if distributed else delta_e,
            **colours.spec_fields(),
            seed=seed,
            **self.plate,
        )
        if not distributed:
            return spec
        return with_direction(spec, delta_e, item_seed(seed, self.name, colours.name, f"direction\x1f{delta_e!r}"))

    @property
    def plate_count(self) -> int:
        """Plates in the grid (images = plates x variants)."""
        return (
            len(self.labels) * len(self.colour_sets) * len(self.fonts) * len(self.delta_e) * len(self.sizes)
        )


def plate_seed(grid: Grid, colour_set: str, label: str, font: str, size: int) -> int:
    """A plate's seed: SHA-256 of (grid seed, name, colour set, label, font, size); ΔE2000 is left out so a
    label's plates differ across ΔE2000 in colour only.

    Parameters
    ----------
    grid : Grid
        The grid.
    colour_set, label, font : str
        The plate's colour set, text and font.
    size : int
        Its side, px.

    Returns
    -------
    int
        The seed, 0 to 2**63 - 1.
    """
    return item_seed(grid.seed, grid.name, colour_set, f"{label}\x1f{font}\x1f{size}")



def _list(data: Mapping[str, Any], key: str, default: list) -> list:
    """``data[key]`` (``default`` when absent): a list, possibly empty."""
    return check_list(key, data.get(key, default), empty_ok=True, example=f"{key} = {default or ['...']!r}")


def _labels(value: Any, seed: int) -> tuple[str, ...]:
    """``labels``: a list of strings, or {space = NAME, count = N}: all of a label space, or N of them drawn
    without replacement by a PCG64 stream of the grid seed, in the space's order."""
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise ValueError(
                f'labels {value!r:.80} are not all strings; allowed: quoted labels, e.g. ["12", "A7"]'
            )
        return tuple(value)
    if isinstance(value, dict):
        extra = sorted(set(value) - {"space", "count"})
        space = value.get("space")
        if extra or space not in LABEL_SPACES:
            raise ValueError(
                f"labels = {value!r} is not valid; allowed: a list of strings or {{space = one of "
                f"{', '.join(LABEL_SPACES)}, count = N}}"
            )
        pool = LABEL_SPACES[space]
        count = value.get("count", len(pool))
        check_int(f"labels count (space {space!r})", count, 1, len(pool))
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        chosen = np.sort(rng.choice(len(pool), size=count, replace=False))
        return tuple(pool[i] for i in chosen)
    raise ValueError(
        f"labels = {value!r} is not valid; allowed: a list of strings or {{space = ..., count = N}}"
    )


def parse_grid(data: Mapping[str, Any]) -> Grid:
    """A :class:`Grid` from a grid file's parsed TOML (module doc); ValueError naming the bad key or value.

    Parameters
    ----------
    data : mapping
        The parsed TOML.

    Returns
    -------
    Grid
        The validated grid.

    Raises
    ------
    ValueError
        Naming the bad key or value.
    """
    check_keys("grid", data, GRID_KEYS)
    if "name" not in data or "labels" not in data:
        raise ValueError('a grid needs name and labels; e.g. name = "my-set" and labels = ["12", "74"]')
    seed = data.get("seed", 0)
    colour_sets = []
    for name in _list(data, "colour_sets", []):
        if name not in PALETTES:
            raise ValueError(
                f"colour set {name!r} is not a palette; allowed: {', '.join(PALETTES)}, or your own "
                "in a [[colours]] table"
            )
        colour_sets.append(ColourSet(name, palette=name))
    for i, table in enumerate(_list(data, "colours", [])):
        if not isinstance(table, dict) or sorted(set(table) - {"name", "foreground", "background"}):
            raise ValueError(
                f"[[colours]] #{i + 1} = {table!r:.80} is not valid; allowed keys: name, foreground, "
                "background"
            )
        lists = {}
        for key in ("foreground", "background"):
            value = table.get(key)
            value = [value] if isinstance(value, str) else value
            if not isinstance(value, list) or not value:
                raise ValueError(
                    f"[[colours]] {table.get('name')!r}: {key} = {table.get(key)!r} is not valid; "
                    "allowed: a list of colours ('#rrggbb' or [r, g, b] with 0-255)"
                )
            lists[key] = tuple(tuple(int(c) for c in parse_colour(v)) for v in value)
        colour_sets.append(ColourSet(str(table.get("name")), None, lists["foreground"], lists["background"]))
    if not colour_sets:
        raise ValueError("no colour set: give colour_sets = [palette names] and/or [[colours]] tables")
    plate = data.get("plate", {})
    if not isinstance(plate, dict):
        raise ValueError(f"plate = {plate!r} is not a table; allowed: [plate] with PlateSpec fields")
    return Grid(
        name=data["name"],
        labels=_labels(data["labels"], seed if isinstance(seed, int) else 0),
        colour_sets=tuple(colour_sets),
        fonts=tuple(_list(data, "fonts", [Grid.__dataclass_fields__["fonts"].default[0]])),
        delta_e=tuple(_list(data, "delta_e", [0])),
        sizes=tuple(_list(data, "sizes", [900])),
        variants=tuple(_list(data, "variants", ["standard"])),
        seed=seed,
        plate=plate,
        directions=data.get("directions", "distributed"),
    )


def load_grid(path: str | os.PathLike) -> Grid:
    """Read and validate a grid file (TOML; module doc).

    Parameters
    ----------
    path : str or os.PathLike
        A grid file.

    Returns
    -------
    Grid
        The validated grid.

    Raises
    ------
    ValueError
        For an unreadable or invalid file.
    """
    return parse_grid(read_toml(path, "grid"))


@dataclass(frozen=True)
class GridPlate:
    """One plate of a grid: where it sits, its spec, and its images' paths relative to the output folder.

    Parameters
    ----------
    label_index : int
        The label's index in ``Grid.labels``.
    colour_set : str
        The colour set's name.
    delta_e_target : float or None
        The CIEDE2000 target asked, or None for the colours as given.
    spec : PlateSpec
        The plate's spec.
    paths : tuple of (str, str)
        ``(variant, path relative to the output folder)`` per image.
    """

    label_index: int
    colour_set: str
    delta_e_target: float | None
    spec: PlateSpec
    paths: tuple[tuple[str, str], ...]  # (variant, relative path)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-") or "x"


def grid_plates(grid: Grid) -> Iterator[GridPlate]:
    """Every plate of ``grid`` in a fixed order: label-major, then colour set, font, size, ΔE2000.

    Parameters
    ----------
    grid : Grid
        The grid.

    Yields
    ------
    GridPlate
        Its plates.
    """
    for (li, label), colours, font, size, de in product(
        enumerate(grid.labels), grid.colour_sets, grid.fonts, grid.sizes, grid.delta_e
    ):
        spec = grid.spec(label, colours, font, de, size)
        folder = f"{grid.name}/{colours.name}/{_slug(font)}-{size}px-de{'given' if de is None else f'{de:g}'}"
        paths = tuple((v, f"{folder}/{li:04d}_{_slug(label)}_{v}.png") for v in grid.variants)
        yield GridPlate(li, colours.name, de, spec, paths)


def grid_record(grid: Grid) -> dict[str, Any]:
    """The grid as plain JSON values (what ``GRID_RECORD`` holds): equal grids give equal records.

    Parameters
    ----------
    grid : Grid
        The grid.

    Returns
    -------
    dict
        JSON values.
    """
    return {
        "name": grid.name,
        "labels": list(grid.labels),
        "fonts": list(grid.fonts),
        "sizes": list(grid.sizes),
        "delta_e": list(grid.delta_e),
        "variants": list(grid.variants),
        "seed": grid.seed,
        "plate": dict(grid.plate),
        "directions": grid.directions,
        "colour_sets": [
            {
                "name": c.name,
                "palette": c.palette,
                "foreground": c.foreground and [list(x) for x in c.foreground],
                "background": c.background and [list(x) for x in c.background],
            }
            for c in grid.colour_sets
        ],
    }


def write_manifest(out: Path, dataset: str, plates: list[GridPlate], measured: dict[int, tuple],
                   item_id: Callable[[GridPlate, str], str] | None = None, *, numbers: list[int] | None = None,
                   shard: Shard | None = None) -> int:
    """Rewrite ``manifest.parquet`` atomically (with ``shard``: write that shard's part and merge the parts
    once all are there, `plates.datasets.items.merge_shard_manifests`): one row per image on disk, in the
    preset manifests' columns
    (`plates.datasets.items.MANIFEST_COLUMNS`): ``delta_e`` is the mean CIEDE2000 over the colour set's
    foreground x background colours as resolved (as PlateStats.delta_e), ``delta_e_target`` the request (null:
    the colours as given), and the ``delta_e_drawn_*`` columns the distribution over the dot pairs the plate
    draws (`plates.stimuli.ishihara.measure`; ``measured``: plate index -> those values, from the workers).
    ``dataset``: the dataset column; ``item_id(plate, variant)``: each image's id (default: the grid's, from
    the dataset name, colour set, font, size, ΔE2000 target, label and variant); ``numbers``: each plate's
    number in the whole set, the keys of ``measured`` (default 0, 1, ...).

    Parameters
    ----------
    out : pathlib.Path
        The output folder the paths are relative to.
    dataset : str
        The dataset column.
    plates : list of GridPlate
        The plates, in order.
    measured : dict of int to tuple
        Plate number -> its ``delta_e_drawn_*`` values.
    item_id : callable or None, optional
        ``item_id(plate, variant) -> str``; None for the grid's ids.
    numbers : list of int or None, optional
        Each plate's number in the whole set.
    shard : plates.shards.Shard or None, optional
        Write this shard's part, and merge when every part is there.

    Returns
    -------
    int
        Rows written (this shard's rows with ``shard``).
    """
    schema = MANIFEST_SCHEMA
    drawn: dict[tuple, float] = {}
    rows: dict[str, list] = {name: [] for name in schema.names}
    positions: list[int] = []
    for index, p in zip(range(len(plates)) if numbers is None else numbers, plates):
        # one background per (colour set, target) on the palette's lines; a direction per plate otherwise
        key = (p.colour_set, p.delta_e_target, p.spec.delta_e_direction)
        if key not in drawn:
            drawn[key] = float(pair_delta_e(*p.spec.colours).mean())  # as PlateStats.delta_e
        for j, (variant, rel) in enumerate(p.paths):
            if not (out / rel).is_file():
                continue
            positions.append(index * len(p.paths) + j)
            de = "given" if p.delta_e_target is None else f"{p.delta_e_target:g}"
            values = (
                item_id(p, variant) if item_id is not None
                else f"{dataset}:{p.colour_set}:{p.spec.font}:{p.spec.size}px:de{de}:{p.spec.text}:{variant}",
                dataset,
                p.spec.text,
                p.colour_set,
                drawn[key],
                variant,
                p.spec.font,
                p.spec.size,
                p.spec.seed,
                rel,
                p.spec.to_json(),
                *measured[index],
            )
            for name, value in zip(schema.names, values):
                rows[name].append(value)
    return finish_manifest(pa.table(rows, schema=schema), out, shard, positions)


def generate_grid(
    grid: Grid,
    out: str | os.PathLike,
    *,
    limit: int | None = None,
    workers: int | None = None,
    compress_level: int = 2,
    progress: bool = True,
    shard: Shard | None = None,
) -> dict:
    """Write ``grid`` (its first ``limit`` plates when given) as PNGs under ``out`` plus ``manifest.parquet``.

    Resumable: images already on disk are skipped, a killed run leaves no half-written file, and a folder
    made from another grid is refused. ``workers`` processes (default: every core) come from
    `plates.datasets.workers.family_pool` (forked, or spawned from a threaded caller: a script calling this with
    ``workers > 1`` needs the ``if __name__ == "__main__":`` guard). Returns a summary dict.
    ``shard`` (`plates.shards.Shard`): only the plates it owns (plate n's key is ``"<grid name>:<n>"``), its
    manifest rows as a part that the last shard merges: N shards into one ``out`` equal the unsharded set.

    Parameters
    ----------
    grid : Grid
        The grid.
    out : str or os.PathLike
        The output folder; the images go under ``out/<grid name>``.
    limit : int or None, optional
        Write only the first ``limit`` plates (plates, not images).
    workers : int or None, optional
        Worker processes (None: every core).
    compress_level : int, optional
        PNG deflate level, 0-9.
    progress : bool, optional
        Show a progress bar.
    shard : plates.shards.Shard or None, optional
        Write only the plates this shard owns.

    Returns
    -------
    dict
        ``grid``, ``plates``, ``written``, ``skipped``, ``bytes``, ``rows`` and ``out``.

    Raises
    ------
    ValueError
        A bad ``limit``, ``compress_level``, ``workers`` or ``shard``, or a folder made from another grid.
    """
    if shard is not None and not isinstance(shard, Shard):
        raise ValueError(f"shard={shard!r} is not valid; allowed: None or a plates.shards.Shard")
    check_int("limit (plates, not images)", limit, 1, none_ok=True)
    check_int("compress_level", compress_level, 0, 9)
    workers = worker_count(workers)
    out = Path(out)
    plates = [(i, p) for i, p in enumerate(islice(grid_plates(grid), limit))
              if shard is None or shard.owns(f"{grid.name}:{i}")]
    record = out / grid.name / GRID_RECORD
    check_same_set(out, grid.name, "grid", record, grid_record(grid),
                   mismatch=lambda held: f"--out {str(out)!r} holds grid {grid.name!r} made from another grid file "
                                         f"({record}); allowed: the same grid to resume it, or another --out or name")
    if shard is None:  # another shard's temporary files are not leftovers: only an unsharded run clears them
        for stale in (out / grid.name).rglob(TEMPORARIES):  # leftovers of a killed run
            stale.unlink(missing_ok=True)
    tasks = [(i, str(out), p.spec, p.paths, compress_level) for i, p in plates]
    written = skipped = nbytes = 0
    measured: dict[int, tuple] = {}
    chunksize = max(1, min(64, len(tasks) // (workers * 8) or 1))
    with results_of(write_plate, tasks, min(workers, len(tasks)), chunksize) as results, \
            tqdm(total=len(tasks), unit="plate", desc=f"plates generate {grid.name}", disable=not progress) as bar:
        for w, s, b, i, values in results:
            written, skipped, nbytes = written + w, skipped + s, nbytes + b
            measured[i] = values
            bar.update(1)
    rows = write_manifest(out, grid.name, [p for _, p in plates], measured, numbers=[i for i, _ in plates],
                          shard=shard)
    return {
        "grid": grid.name,
        "plates": len(plates),
        "written": written,
        "skipped": skipped,
        "bytes": nbytes,
        "rows": rows,
        "out": str(out),
    }
