"""Writing a preset to disk: PNGs (atomic, resumable, in worker processes) and ``manifest.parquet``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from functools import partial
from itertools import islice
from multiprocessing.pool import Pool
from pathlib import Path

import pyarrow as pa
from PIL import Image
from tqdm import tqdm

from plates.datasets.family_presets import FAMILY_PRESETS, presets_by_family, unknown_preset
from plates.datasets.items import (
    MANIFEST_COLUMNS,
    MANIFEST_SCHEMA,
    PLAN_POSITION,
    finish_manifest,
    merge_shard_manifests,
)
from plates.datasets.parquet_set import committed_ids, write_parquet_set
from plates.datasets.presets import PRESETS, get_preset, make_spec, plate_order, relative_path
from plates.datasets.sample import Sample, sample_plates
from plates.datasets.workers import pool_or_none, results_of
from plates.datasets.write import Entry, check_same_set, write_items, write_plate
from plates.leases import set_lease
from plates.shards import Shard
from plates.stimuli import render as render_stimulus
from plates.stimuli.ishihara.plate import PlateSpec, pair_delta_e
from plates.storage import TEMPORARIES, is_url, sub_location
from plates.validation import check_choice, check_int

#: How a set is stored: loose PNG files plus a manifest, or Parquet shards holding the PNG bytes.
FORMATS = ("png", "parquet")


#: Manifest columns after ``spec_json``: the ΔE2000 request and what the plate draws (`plates.stimuli.ishihara.measure`;
#: `plates.datasets.write.measured_values` gives a plate's values).
MEASURED_COLUMNS = MANIFEST_COLUMNS[MANIFEST_COLUMNS.index("spec_json") + 1:]


_MANIFEST_BATCH = 8192  # rows per Parquet row group: memory stays flat however large the set


def manifest_metadata(name: str, sample: Sample | None) -> dict[str, str]:
    """Key-value metadata of the manifest's Parquet schema: the preset's style, colour-role convention, jitter
    rule and the convention it follows in words (`plates.datasets.presets.Preset.convention`), and the sample
    drawn (`plates.datasets.sample.Sample.tag`, or "" for the preset's fixed order).

    Parameters
    ----------
    name : str
        A plate preset's name (a key of `plates.datasets.presets.PRESETS`).
    sample : Sample or None
        The sample drawn, or None for the fixed order.

    Returns
    -------
    dict of str to str
        Keys ``plates.preset``, ``plates.style``, ``plates.colour_roles``, ``plates.jitter_rule``,
        ``plates.convention`` and ``plates.sample``.

    Raises
    ------
    KeyError
        ``name`` is not a plate preset.
    """
    p = PRESETS[name]
    return {"plates.preset": name, "plates.style": p.style, "plates.colour_roles": p.colour_roles,
            "plates.jitter_rule": p.jitter_rule, "plates.convention": p.convention,
            "plates.sample": sample.tag if sample is not None else ""}


def _write_manifest(out: Path, name: str, plates: list[tuple[int, str, str]], size: int, seed: int,
                    measured: dict[tuple, tuple], sample: Sample | None = None, shard: Shard | None = None,
                    plan: list[tuple[int, str, str]] | None = None) -> int:
    """Rewrite ``manifest.parquet`` (atomically; with ``shard``: that shard's part, each row with its position in
    the unsharded manifest of ``plan``, `plates.datasets.items.merge_shard_manifests`) with one row per image of
    ``plates`` present on disk; returns the row count.

    ``delta_e`` is the plate's nominal `PlateStats.delta_e` (mean CIEDE2000 over the colour set's foreground x
    background pairs, before jitter), computed once per colour set. Beside it (`MEASURED_COLUMNS`):
    ``delta_e_target`` (the spec's request, or null), ``delta_e_target_kind`` (which quantity the request sets:
    `plates.stimuli.ishihara.measure.TARGET_KINDS`) and the ΔE2000 over the (foreground dot, background dot)
    pairs the plate draws (min, 5th percentile, median, 95th percentile; jitter included), from ``measured``
    ((index, label, colour set) -> `measured_values` values, filled by the workers). Every variant row of a plate
    carries its standard image's values. The schema's metadata records the style, colour roles and sample
    (`manifest_metadata`); each row's ``spec_json`` holds them too.
    """

    p = PRESETS[name]
    schema = MANIFEST_SCHEMA.with_metadata(manifest_metadata(name, sample))
    columns = list(MANIFEST_COLUMNS)
    position: dict[tuple, int] = {}
    if shard is not None:
        schema = schema.append(pa.field(PLAN_POSITION, pa.int64()))
        columns.append(PLAN_POSITION)
        position = {key: k for k, key in enumerate(plan if plan is not None else plates)}

    def batches() -> Iterator[pa.Table]:
        de_cache: dict[str, float] = {}
        cols: dict[str, list] = {c: [] for c in columns}
        for li, label, pal in plates:
            spec = make_spec(name, label, pal, size=size, seed=seed)
            if pal not in de_cache:
                de_cache[pal] = float(pair_delta_e(*spec.colours).mean())
            js = spec.to_json()
            for j, v in enumerate(p.variants):
                rel = relative_path(name, pal, li, label, v)
                if not (out / rel).is_file():
                    continue
                row = (f"{name}:{pal}:{label}:{v}", name, label, pal, de_cache[pal], v, p.font, size, spec.seed, rel, js,
                       *measured[(li, label, pal)])
                if shard is not None:
                    row = (*row, position[(li, label, pal)] * len(p.variants) + j)
                for c, val in zip(columns, row):
                    cols[c].append(val)
            if len(cols["item_id"]) >= _MANIFEST_BATCH:
                yield pa.table(cols, schema=schema)
                cols = {c: [] for c in columns}
        if cols["item_id"]:
            yield pa.table(cols, schema=schema)

    # durable with the images written before it (without an fsync each), before its name appears; a shard's
    # part is merged (and published) by merge_shard_manifests
    return finish_manifest(batches(), out, shard, schema=schema)


def plate_entries(name: str, label: str, colour_set: str, size: int, seed: int) -> list[Entry]:
    """Every variant of one plate of preset ``name`` as entries sharing one rendering (a worker's job).

    Parameters
    ----------
    name : str
        A plate preset's name.
    label : str
        The plate's label (its text).
    colour_set : str
        The preset's colour set the plate is drawn from.
    size : int
        Image side, px.
    seed : int
        The set's seed (`plates.datasets.presets.make_spec` derives the plate's).

    Returns
    -------
    list of Entry
        One per variant of the preset, ids ``"<name>:<colour set>:<label>:<variant>"``, all holding the one
        rendered plate.
    """
    spec = make_spec(name, label, colour_set, size=size, seed=seed)
    plate = render_stimulus(spec)
    return [Entry(f"{name}:{colour_set}:{label}:{v}", spec, v, label, colour_set, stimulus=plate)
            for v in PRESETS[name].variants]


def _generate_parquet(name: str, out: str | os.PathLike, plan: list[tuple[int, str, str]],
                      plates: list[tuple[int, str, str]], *, size: int, seed: int, workers: int,
                      compress_level: int, progress: bool, sample: Sample | None, shard: Shard | None) -> dict:
    """A plate preset (or its shard ``plates`` of ``plan``) as Parquet shards (`plates.datasets.parquet_set`)."""
    variants = PRESETS[name].variants
    ids = [f"{name}:{pal}:{label}:{v}" for _, label, pal in plan for v in variants]
    done = committed_ids(out)
    todo = [t for t in plates if any(f"{name}:{t[2]}:{t[1]}:{v}" not in done for v in variants)]
    params = {"preset": name, "size": size, "seed": seed, **({"sample": sample.as_dict()} if sample else {})}
    jobs = [partial(plate_entries, name, label, pal, size, seed) for _, label, pal in todo]
    with tqdm(total=len(todo) * len(variants), unit="image", desc=f"plates generate {name}",
              disable=not progress) as bar:
        summary = write_parquet_set(name, jobs, ids, out, workers=workers, compress_level=compress_level,
                                    progress=bar, tag="all" if shard is None else shard.tag, params=params)
    return {**summary, "plates": len(plates), "sample": sample.tag if sample is not None else None}


PARAMS = "generate.json"  # under OUT/<preset>/: the size and seed its images were made with


def _sample_note(params: dict) -> str:
    return f" sample={params['sample']}" if "sample" in params else ""


def _check_same_generation(out: Path, name: str, size: int, seed: int, sample: Sample | None = None) -> None:
    """`plates.datasets.write.check_same_set` for a preset: its record is ``OUT/<preset>/generate.json`` (size,
    seed, sample); a folder made before records existed is taken to hold its first PNG's size."""
    params = {"preset": name, "size": size, "seed": seed}
    if sample is not None:  # only then: folders made before samples existed keep their marker
        params["sample"] = sample.as_dict()
    marker = out / name / PARAMS
    first = None if marker.is_file() or not (out / name).is_dir() else next((out / name).glob("*/*.png"), None)

    def mismatch(held: dict) -> str:
        flags = "--size, --seed and --sample" if "sample" in held or "sample" in params else "--size and --seed"
        return (f"--out {str(out)!r} holds preset {name!r} made with size={held['size']} "
                f"seed={held.get('seed', '?')}{_sample_note(held)}, not size={size} seed={seed}"
                f"{_sample_note(params)}; allowed: the same {flags} to resume it, or another --out")

    check_same_set(out, name, "preset", marker, params, mismatch=mismatch,
                   held=None if first is None else {**params, "size": Image.open(first).size[0]})


def generate(
    name: str,
    out: str | os.PathLike,
    *,
    limit: int | None = None,
    size: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    compress_level: int = 2,
    progress: bool = True,
    chunksize: int | None = None,
    sample: Sample | None = None,
    shard: Shard | None = None,
    fmt: str = "png",
    take_over_lock: bool = False,
    pool: Pool | None = None,
) -> dict:
    """Write preset ``name`` (its first ``limit`` plates when given) as PNGs under ``out`` plus a manifest.

    ``size``: image side in px (None: 900 for a plate preset, the family preset's `FamilyPreset.default_size`
    otherwise; a size a family's stimuli cannot take is refused naming the allowed ones). A family preset
    (illusions, scenes) is written by `plates.datasets.write.write_items` with ``workers`` processes too.

    ``sample``: draw that seeded random subset instead of the fixed order (`plates.datasets.sample`; ``limit``
    then keeps the first plates of the draw); recorded in the manifest's metadata and ``generate.json``.

    Uses ``workers`` processes (default: every core) through ``Pool.imap_unordered`` in chunks; images already
    on disk are skipped, so rerunning after an interruption finishes the rest. PNGs are written by
    `plates.images.encode_png` at deflate level ``compress_level`` (0-9; default 2: ISA-L, fast). Workers come from
    `plates.datasets.workers.family_pool`: forked from a process running no other thread (sharing its pages),
    spawned otherwise, so a threaded script calling this with ``workers > 1`` needs the usual
    ``if __name__ == "__main__":`` guard. Returns a summary dict (plates, written, skipped, bytes, rows).

    ``shard`` (`plates.shards.Shard`): write only the plates (a family preset: the items) this shard owns, and
    its manifest rows as ``OUT/manifest.shards/<I>-of-<N>.parquet``; the shard that finds all N parts written
    writes ``manifest.parquet``, equal to the unsharded one. Shards never remove each other's temporary files.
    A family preset whose items are several images each (`FamilyPreset.entries_per_job`) takes no ``limit``
    with a shard.

    ``fmt``: ``"png"`` (loose PNG files, the default) or ``"parquet"`` (Parquet shards holding the PNG bytes,
    `plates.datasets.parquet_set`; ``out`` may then be an object-store URL, `plates.storage`; shards as above
    for plate presets). On an object store the writer holds a lease (`plates.leases.set_lease`: one writer
    per output, shards side by side, never beside an unsharded writer), and ``take_over_lock`` takes over an
    expired one (a crashed writer's); a local folder takes no lease, and ``take_over_lock`` is refused there.

    ``pool``: for a family preset, a running `plates.datasets.workers.family_pool` of ``workers`` processes to use
    and leave running (`generate_family` shares one across a family's presets).

    Parameters
    ----------
    name : str
        A plate preset (`plates.datasets.presets.PRESETS`) or family preset (`FAMILY_PRESETS`).
    out : str or os.PathLike
        The output folder, or an object-store URL with ``fmt="parquet"``.
    limit : int or None, optional
        Write only the first ``limit`` plates (items).
    size : int or None, optional
        Image side, px, as above.
    seed : int, optional
        The set's seed.
    workers : int or None, optional
        Worker processes (None: every core).
    compress_level : int, optional
        PNG deflate level, 0-9.
    progress : bool, optional
        Show a progress bar.
    chunksize : int or None, optional
        Plates per ``imap_unordered`` chunk (None: chosen from the count and ``workers``).
    sample : Sample or None, optional
        A seeded random subset, as above.
    shard : plates.shards.Shard or None, optional
        Write only this shard's plates, as above.
    fmt : str, optional
        ``"png"`` or ``"parquet"``.
    take_over_lock : bool, optional
        Take over an expired object-store lease.
    pool : multiprocessing.pool.Pool or None, optional
        A running pool for a family preset, as above.

    Returns
    -------
    dict
        The summary: ``preset``, ``plates``, ``written``, ``skipped``, ``bytes``, ``rows``, ``out`` (and, for a
        plate preset, ``sample``).

    Raises
    ------
    ValueError
        An unknown preset or format, a URL without ``fmt="parquet"``, a shard that is not a `plates.shards.Shard`
        or cannot go with this preset, format or ``limit``, ``take_over_lock`` on a local folder, a size the
        preset cannot take, or a folder holding another set.
    """
    check_choice("format", fmt, FORMATS)
    if is_url(out) and fmt != "parquet":
        raise ValueError(f"--out {out!r} is on object storage, which takes a set as Parquet shards only; allowed: "
                         "--format parquet with a URL, or a local folder")
    if shard is not None and not isinstance(shard, Shard):
        raise ValueError(f"shard={shard!r} is not valid; allowed: None or a plates.shards.Shard")
    if shard is not None and fmt == "parquet" and name in FAMILY_PRESETS:
        raise ValueError(f"shard={shard!r} with format 'parquet' is not valid for family preset {name!r}; allowed: "
                         "a shard of a family preset as PNG files (format 'png'), or Parquet without a shard")
    if take_over_lock and not is_url(out):
        raise ValueError(f"--take-over-lock is for an object-store --out (s3://...); {str(out)!r} is a local folder, "
                         "which holds no lease")
    # on an object store, one writer per output (the lease's renewal thread makes the writers' pool spawned,
    # not forked: plates.datasets.workers)
    with set_lease(out, shard, take_over=take_over_lock) if is_url(out) else contextlib.nullcontext():
        return _generate(name, out, limit=limit, size=size, seed=seed, workers=workers,
                         compress_level=compress_level, progress=progress, chunksize=chunksize, sample=sample,
                         shard=shard, fmt=fmt, pool=pool)


def worker_count(workers: int | None) -> int:
    """``workers`` (None: every core) if it is a process count; ValueError naming the allowed values otherwise.

    Parameters
    ----------
    workers : int or None
        Worker processes wanted, at least 1; None for ``os.cpu_count()``.

    Returns
    -------
    int
        The process count.

    Raises
    ------
    ValueError
        ``workers`` is not an integer >= 1 (the message gives this machine's core count).
    """
    cpu = os.cpu_count() or 1
    try:
        return check_int("workers", cpu if workers is None else workers, 1)
    except ValueError as error:
        raise ValueError(f"{error} (this machine has {cpu} cores)") from None


def _generate(name: str, out: str | os.PathLike, *, limit: int | None, size: int | None, seed: int,
              workers: int | None, compress_level: int, progress: bool, chunksize: int | None,
              sample: Sample | None, shard: Shard | None, fmt: str, pool: Pool | None = None) -> dict:
    """`generate` once its lease (on an object store) is held."""
    workers = worker_count(workers)
    if name in FAMILY_PRESETS:  # illusions, scenes: any family's items through the generic writer, in parallel
        if sample is not None:
            raise ValueError(f"sample={sample!r} is not valid for family preset {name!r}; allowed: None (samples "
                             "draw plates of a plate preset, balanced across its colour sets)")
        check_int("limit", limit, 0, none_ok=True)
        fp = FAMILY_PRESETS[name]
        fp.check_limit_with_shard(limit, shard)
        jobs = fp.jobs(size=fp.check_size(size), seed=seed)
        if fmt == "parquet":
            return write_parquet_set(name, jobs, None, out, workers=workers, compress_level=compress_level,
                                     limit=limit, params={"preset": name, "size": fp.check_size(size), "seed": seed},
                                     pool=pool)
        rows = write_items(name, jobs, out, workers=workers, limit=limit, compress_level=compress_level,
                           shard=shard, pool=pool)
        return {"preset": name, "plates": rows, "written": rows, "skipped": 0, "bytes": None, "rows": rows,
                "out": str(out)}
    if name not in PRESETS:
        raise unknown_preset(name)
    size = 900 if size is None else size
    p = get_preset(name)
    PlateSpec(text=p.labels[0], size=size, font=p.font, palette=p.palettes[0], seed=seed)  # validates size, seed
    check_int("limit (plates, not images)", limit, 0, none_ok=True)
    check_int("compress_level", compress_level, 0, 9)
    location, out = out, Path(out)  # location: as given (an object-store URL stays one)
    if sample is not None and not isinstance(sample, Sample):
        raise ValueError(f"sample={sample!r} is not valid; allowed: None or a plates.datasets.sample.Sample")
    plan = list(islice(plate_order(name, seed) if sample is None else iter(sample_plates(name, sample)), limit))
    plates = plan if shard is None else [t for t in plan if shard.owns(f"{name}:{t[2]}:{t[0]}:{t[1]}")]
    if fmt == "parquet":
        return _generate_parquet(name, location, plan, plates, size=size, seed=seed, workers=workers,
                                 compress_level=compress_level, progress=progress, sample=sample, shard=shard)
    _check_same_generation(out, name, size, seed, sample)
    for pal in p.palettes:
        (out / name / pal).mkdir(parents=True, exist_ok=True)
    if shard is None:  # another shard's temporary files are not leftovers: only an unsharded run clears them
        for stale in (out / name).glob(f"*/{TEMPORARIES}"):  # leftovers of a killed run
            stale.unlink(missing_ok=True)
    tasks = (((li, label, pal), str(out), make_spec(name, label, pal, size=size, seed=seed),
              tuple((v, relative_path(name, pal, li, label, v)) for v in p.variants), compress_level)
             for li, label, pal in plates)
    chunksize = chunksize or max(1, min(64, len(plates) // (workers * 8) or 1))
    written = skipped = nbytes = 0
    measured: dict[tuple, tuple] = {}
    with results_of(write_plate, tasks, workers, chunksize) as results, \
            tqdm(total=len(plates), unit="plate", desc=f"plates generate {name}", disable=not progress,
                 smoothing=0.05) as bar:
        for w, s, b, key, values in results:
            written, skipped, nbytes = written + w, skipped + s, nbytes + b
            measured[key] = values
            bar.update(1)
    if shard is None:
        rows = _write_manifest(out, name, plates, size, seed, measured, sample)
    else:
        rows = _write_manifest(out, name, plates, size, seed, measured, sample, shard=shard, plan=plan)
        merge_shard_manifests(out, shard.count, row_group_size=_MANIFEST_BATCH)
    return {"preset": name, "plates": len(plates), "written": written, "skipped": skipped, "bytes": nbytes,
            "rows": rows, "out": str(out), "sample": sample.tag if sample is not None else None}


#: Families `generate_family` writes whole: their presets are a few thousand images each, drawn by one pool.
WHOLE_FAMILIES = ("illusion", "scene")


def family_preset_names(family: str) -> tuple[str, ...]:
    """The presets of ``family`` (one of `WHOLE_FAMILIES`) in `FAMILY_PRESETS` order; ValueError naming the
    allowed families otherwise (the plate presets are several versions of the same sets, each generated
    with ``--preset``).

    Parameters
    ----------
    family : str
        One of `WHOLE_FAMILIES`.

    Returns
    -------
    tuple of str
        The family's preset names.

    Raises
    ------
    ValueError
        ``family`` is not one of `WHOLE_FAMILIES`.
    """
    check_choice("family", family, WHOLE_FAMILIES,
                 extra=" (plate presets: one at a time, with --preset)")
    return presets_by_family()[family]


def generate_family(family: str, out: str | os.PathLike, *, limit: int | None = None, size: int | None = None,
                    seed: int = 0, workers: int | None = None, compress_level: int = 2, progress: bool = True,
                    shard: Shard | None = None, fmt: str = "png", take_over_lock: bool = False) -> dict:
    """Every preset of ``family`` ("illusion" or "scene"), each written by `generate` into ``OUT/<preset>``
    exactly as ``plates generate --preset <preset> --out OUT/<preset>`` writes it (its own manifest, resumable;
    ``out`` may be an object-store URL with ``fmt="parquet"``), one preset after another in this process.

    Why one command: a ``plates generate`` process pays colour-science's import (with pandas and scipy under
    it), which no worker can share and which bounds a small preset's speed-up from a second worker (figures:
    docs/benchmarks.md, "Figures moved from docstrings"); here the import is paid once for the family, and one
    pool of workers, forked from this process with it loaded (`plates.datasets.workers.family_pool`), draws
    every preset.

    ``size`` applies to every preset and is checked against each before anything is written (a size one preset
    cannot take is refused, naming its allowed sizes); ``limit`` and ``shard`` apply to each preset. Returns
    ``{"family", "presets": {name: generate's summary}, "rows", "out"}``.

    Parameters
    ----------
    family : str
        One of `WHOLE_FAMILIES` ("illusion" or "scene").
    out : str or os.PathLike
        The parent folder (or object-store URL); each preset goes to ``out/<preset>``.
    limit, size, seed, workers, compress_level, progress, shard, fmt, take_over_lock
        As `generate`'s, applied to every preset.

    Returns
    -------
    dict
        ``family``, ``presets`` (name -> `generate`'s summary), ``rows`` (their total) and ``out``.

    Raises
    ------
    ValueError
        An unknown family, a size or ``limit`` with ``shard`` that one of its presets refuses (before anything is
        written), or whatever `generate` refuses.
    """
    names = family_preset_names(family)
    for name in names:  # what one preset would refuse, refused before any preset is written
        FAMILY_PRESETS[name].check_size(size)
        FAMILY_PRESETS[name].check_limit_with_shard(limit, shard)
    workers = worker_count(workers)
    # one pool for the family: each preset's workers would otherwise start and warm their caches again
    with pool_or_none(workers) as pool:
        summaries = {name: generate(name, sub_location(out, name), limit=limit, size=size, seed=seed,
                                    workers=workers, compress_level=compress_level, progress=progress, shard=shard,
                                    fmt=fmt, take_over_lock=take_over_lock, pool=pool)
                     for name in names}
    return {"family": family, "presets": summaries, "rows": sum(s["rows"] for s in summaries.values()),
            "out": str(out)}
