"""A dataset of exact plates: PlateSpecs as they are (from the explorer's spec download, a row's ``spec_json``).

``plates generate --spec FILE_OR_JSON --out DIR`` writes each spec's plate as a PNG and a ``manifest.parquet``
in the grid's columns (`plates.datasets.grid.write_manifest`), so ``plates run --dataset DIR`` asks about
exactly those plates: the way the explorer's "Reproduce" box (`plates.explorer.reproduce`) hands a plate on
screen to the CLI. A grid derives every seed from its own name; a spec keeps its own seed, colours and
every other field.

Item ids are ``<name>:<first 12 hex digits of the spec JSON's SHA-256>:<variant>``, so the same spec written
again is the same item (resumable: images already on disk are skipped), and a folder that holds other items
is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq

from plates.datasets.grid import GridPlate, write_manifest
from plates.datasets.items import MANIFEST
from plates.datasets.write import write_plate
from plates.stimuli.ishihara.plate import VARIANTS, PlateSpec
from plates.validation import check_int

__all__ = ["DATASET_NAME", "generate_specs", "read_spec_argument"]

#: The dataset column of a specs dataset.
DATASET_NAME = "specs"
#: Largest spec JSON read from a file or an argument (bytes).
MAX_SPEC_BYTES = 65536


def read_spec_argument(value: str) -> PlateSpec:
    """A ``--spec`` value: the spec's JSON itself (it starts with ``{``) or the path of a JSON file holding it
    (the explorer's "Download spec JSON"); ValueError naming what is wrong.

    Parameters
    ----------
    value : str
        The ``--spec`` argument.

    Returns
    -------
    PlateSpec

    Raises
    ------
    ValueError
        Neither JSON nor a file, a file over ``MAX_SPEC_BYTES``, invalid JSON, not an object, or no plate's spec.
    """
    text = value.strip()
    if not text.startswith("{"):
        path = Path(value)
        if not path.is_file():
            raise ValueError(f"--spec {value[:80]!r} is neither a spec's JSON nor a file; allowed: a JSON file "
                             "saved by the explorer, or the JSON itself ('{...}')")
        if path.stat().st_size > MAX_SPEC_BYTES:
            raise ValueError(f"--spec file {value!r} is over {MAX_SPEC_BYTES} bytes; allowed: one plate's spec")
        text = path.read_text(encoding="utf-8")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--spec {value[:80]!r} is not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"--spec {value[:80]!r} is not a JSON object; allowed: a plate's spec")
    try:
        return PlateSpec.from_json(json.dumps(raw))
    except (TypeError, KeyError) as exc:
        raise ValueError(f"--spec {value[:80]!r} does not describe a plate: {exc}") from None


def _digest(spec: PlateSpec) -> str:
    return hashlib.sha256(spec.to_json().encode()).hexdigest()[:12]


def generate_specs(specs: Sequence[PlateSpec], out: str | os.PathLike, *, variants: Sequence[str] = ("standard",),
                   compress_level: int = 2) -> dict:
    """Write the plate of each spec (in each of ``variants``) as PNGs under ``out`` plus ``manifest.parquet``;
    a summary dict. The colour set column is the spec's palette, or "custom" for its own colours.

    Parameters
    ----------
    specs : sequence of PlateSpec
        One or more distinct plates.
    out : str or os.PathLike
        The output folder.
    variants : sequence of str, optional
        Names of `plates.stimuli.ishihara.plate.VARIANTS`.
    compress_level : int, optional
        PNG deflate level, 0-9.

    Returns
    -------
    dict
        ``specs``, ``written``, ``skipped``, ``bytes``, ``rows`` and ``out``.

    Raises
    ------
    ValueError
        No spec, a spec given twice, an unknown variant, a bad ``compress_level``, or an ``out`` holding other
        plates.
    """
    if not specs:
        raise ValueError("no spec given; allowed: one or more --spec")
    bad = [v for v in variants if v not in VARIANTS]
    if bad or not variants:
        raise ValueError(f"variants {list(variants)!r} are not allowed; allowed: one or more of {', '.join(VARIANTS)}")
    check_int("compress_level", compress_level, 0, 9)
    digests = [_digest(s) for s in specs]
    if len(set(digests)) != len(digests):
        raise ValueError("a spec is given twice; allowed: each plate once")
    out = Path(out)
    plates = [GridPlate(i, spec.palette or "custom", spec.delta_e, spec,
                        tuple((v, f"{DATASET_NAME}/{d}_{v}.png") for v in variants))
              for i, (spec, d) in enumerate(zip(specs, digests))]

    def item_id(plate: GridPlate, variant: str) -> str:
        return f"{DATASET_NAME}:{_digest(plate.spec)}:{variant}"

    wanted = {item_id(p, v) for p in plates for v, _ in p.paths}
    if (out / MANIFEST).is_file():
        held = set(pq.read_table(out / MANIFEST, columns=["item_id"]).column("item_id").to_pylist())
        if not held <= wanted:
            raise ValueError(f"--out {str(out)!r} already holds other plates ({min(held - wanted)!r}); allowed: "
                             "a separate --out for these specs")
    written = skipped = nbytes = 0
    measured = {}
    for p in plates:
        w, s, b, index, values = write_plate((p.label_index, str(out), p.spec, p.paths, compress_level))
        written, skipped, nbytes, measured[index] = written + w, skipped + s, nbytes + b, values
    rows = write_manifest(out, DATASET_NAME, plates, measured, item_id=item_id)
    return {"specs": len(plates), "written": written, "skipped": skipped, "bytes": nbytes, "rows": rows,
            "out": str(out)}
