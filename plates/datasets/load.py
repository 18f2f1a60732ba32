"""Loading a benchmark set: from a folder written by `plates generate` (its manifest) or from a preset name.

Manifests of every age load: a plate set's (``colour_set`` is the few-shot group), one written with
`plates.datasets.items.COMMON_COLUMNS` and each family's own columns (``group``), and an illusion or scene set
written before families declared their columns (every family in the plate columns).
"""

from __future__ import annotations

import json
import os
from itertools import islice
from pathlib import Path

import pyarrow.parquet as pq

from plates.datasets.family_presets import FAMILY_PRESETS
from plates.datasets.items import COMMON_COLUMNS, DRAWN_COLUMNS, MANIFEST, QUESTION_COLUMN, DatasetItem
from plates.datasets.parquet_set import is_parquet_set, load_parquet_set
from plates.datasets.presets import PRESETS, preset_items
from plates.stimuli import spec_from_json
from plates.storage import is_url
from plates.validation import check_int


def load_dataset(dir_or_preset: str | os.PathLike, limit: int | None = None) -> list[DatasetItem]:
    """The items of a generated set or of a preset.

    Parameters
    ----------
    dir_or_preset : str or os.PathLike
        A generated folder (its ``manifest.parquet``: loose PNGs, or a Parquet set's shards,
        `plates.datasets.parquet_set`, also at an object-store URL), or a preset name (rendered in memory).
    limit : int, optional
        The first ``limit`` items only.

    Returns
    -------
    list of DatasetItem
        In the set's order; a preset's items carry their spec and no path (images render on demand).

    Raises
    ------
    ValueError
        Neither a folder nor a preset (the message lists the presets), or a folder without a readable manifest.

    Examples
    --------
    >>> item = load_dataset("colorblindnesseval", limit=1)[0]
    >>> item.item_id, item.spec.palette, item.spec.size
    ('colorblindnesseval:colorblindnesseval-1:0:standard', 'colorblindnesseval-1', 900)
    """
    check_int("limit", limit, 0, none_ok=True)
    if is_url(dir_or_preset) or (Path(dir_or_preset).is_dir() and is_parquet_set(dir_or_preset)):
        if not is_parquet_set(dir_or_preset):
            raise ValueError(f"{str(dir_or_preset)!r} holds no committed {MANIFEST} of a Parquet set; allowed on "
                             "object storage: a set written by `plates generate --format parquet --out URL`")
        return load_parquet_set(dir_or_preset, limit=limit)
    path = Path(dir_or_preset)
    if path.is_dir():
        man = path / MANIFEST
        if not man.is_file():
            raise ValueError(f"folder {str(path)!r} has no {MANIFEST}; allowed: a folder written by `plates generate`")
        try:
            table = pq.read_table(man)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds for a file that is not Parquet
            raise ValueError(f"{str(man)!r} cannot be read as Parquet ({exc}); allowed: a manifest written by "
                             "`plates generate`") from None
        needed = ("item_id", "dataset", "spec_json", "variant", "path")
        missing = [c for c in needed if c not in table.column_names]
        if "group" not in table.column_names and "colour_set" not in table.column_names:
            missing.append("group")  # a plate manifest (or one written before families had columns) has colour_set
        if missing:
            raise ValueError(f"{str(man)!r} lacks column(s) {', '.join(missing)}; allowed: a manifest written by "
                             f"`plates generate` (columns {', '.join(COMMON_COLUMNS)} and the family's own)")
        if limit is not None:
            table = table.slice(0, limit)
        cols = table.to_pydict()
        absent = next((p for p in cols["path"] if not (path / p).is_file()), None)
        if absent is not None:
            raise ValueError(f"{str(path / absent)!r} is listed in {str(man)!r} but missing; allowed: a complete "
                             "folder (rerun the `plates generate` command that wrote it to finish it)")
        n = table.num_rows
        none = [None] * n
        groups = cols["group"] if "group" in cols else cols["colour_set"]
        # the answer as text: a plate's label; a scene's correct option (answer_text); "" where none is stored
        labels = [lab if lab is not None else (text or "") for lab, text in
                  zip(cols.get("label") or none, cols.get("answer_text") or none)]
        questions = cols.get(QUESTION_COLUMN) or none  # plate manifests have none
        recorded = all(c in cols for c in DRAWN_COLUMNS)  # manifests written before the measurement have none
        nominal = cols.get("delta_e") or [None] * table.num_rows  # a hand-made manifest may lack it
        return [
            DatasetItem(
                cols["item_id"][i], cols["dataset"][i], spec_from_json(cols["spec_json"][i]), cols["variant"][i],
                labels[i], groups[i] or "", path / cols["path"][i], questions[i],
                {c: cols[c][i] for c in DRAWN_COLUMNS} if recorded and cols["delta_e_drawn_median"][i] is not None
                else None,
                delta_e=nominal[i],
            )
            for i in range(n)
        ]
    if str(dir_or_preset) in PRESETS:
        return list(islice(preset_items(str(dir_or_preset)), limit))
    if str(dir_or_preset) in FAMILY_PRESETS:
        return family_preset_items(str(dir_or_preset), limit=limit)
    raise ValueError(
        f"dataset {str(dir_or_preset)!r} is neither a folder nor a preset; allowed: a generated folder or "
        f"{', '.join([*PRESETS, *FAMILY_PRESETS])}"
    )


def family_preset_items(name: str, *, limit: int | None = None, size: int | None = None,
                        seed: int = 0) -> list[DatasetItem]:
    """The first ``limit`` items of family preset ``name`` (`plates.datasets.family_presets`), rendered in memory
    on demand (a scene preset renders each scene once here to fix its question).

    Parameters
    ----------
    name : str
        A key of `plates.datasets.family_presets.FAMILY_PRESETS`.
    limit : int or None, optional
        Items wanted (None: all).
    size : int or None, optional
        Image side, px (None: the preset's default).
    seed : int, optional
        The set's seed.

    Returns
    -------
    list of DatasetItem
        Without paths: the images are rendered from the specs when asked.

    Raises
    ------
    KeyError
        ``name`` is not a family preset.
    ValueError
        A size the preset cannot take.
    """
    p = FAMILY_PRESETS[name]
    entries = islice(p.entries(size=size or p.default_size, seed=seed), limit)
    return [DatasetItem(e.item_id, name, e.spec, e.variant, e.label, e.group, None,
                        None if e.question is None else json.dumps(e.question, sort_keys=True)) for e in entries]
