"""Small hand-made result rows in the results schema, for the chart, view and dashboard tests.

`rows(...)` fills every column of `plates.results.SCHEMA` with a sensible default, so a test only states what
it is about (model, correct, grayscale, ...). `write_part` writes rows as one Parquet part with that schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from plates.results import COLUMNS, SCHEMA

DEFAULTS = {
    "run_id": "run-1",
    "model": "model-a",
    "backend": "baseline",
    "dataset": "colorblindnesseval",
    "task": "cbe-open",
    "target": "12",
    "expected": "12",
    "prompt_name": "cbe-open",
    "prompt_text": "What number is in the image?",
    "options_json": None,
    "variant": "standard",
    "colour_set": "colorblindnesseval-1",
    "delta_e": 20.0,
    "font": "LiberationSans-Bold",
    "size": 900,
    "grayscale": False,
    "hue_shift": 0.0,
    "cvd": "none",
    "cvd_severity": 0.0,
    "shots": 0,
    "spec_json": None,
    "reply": "12",
    "parsed": "12",
    "parse_status": "ok",
    "correct": True,
    "failure_mode": None,
    "latency_s": 0.1,
    "prompt_tokens": None,
    "completion_tokens": None,
    "attempts": 1,
    "error": None,
    "timestamp": pd.Timestamp("2026-01-01", tz="UTC"),
    "plates_version": "0.1.0",
}


def rows(n: int = 1, **columns) -> pd.DataFrame:
    """``n`` rows; each keyword is a scalar (repeated) or a list of length ``n``; the rest get DEFAULTS."""
    data = {}
    for name in COLUMNS:
        value = columns.pop(name, DEFAULTS.get(name))
        data[name] = list(value) if isinstance(value, (list, tuple)) else [value] * n
        if len(data[name]) != n:
            raise ValueError(f"column {name!r} has {len(data[name])} values, want {n}")
    if columns:
        raise ValueError(f"unknown columns {sorted(columns)}; allowed: {list(COLUMNS)}")
    data["item_id"] = (
        data["item_id"] if data["item_id"][0] is not None else [f"item-{i:04d}" for i in range(n)]
    )
    if "row_key" in COLUMNS:  # one key per row (the runner keeps the latest row per key)
        data["row_key"] = [
            f"{r}|{m}|{i}|{p}|{k}"
            for k, (r, m, i, p) in enumerate(
                zip(data["run_id"], data["model"], data["item_id"], data["prompt_name"])
            )
        ]
    return typed(pd.DataFrame(data))


def typed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as it reads back from Parquet: the schema's types."""
    return pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False).to_pandas()


def outcomes(model: str, k: int, n: int, **columns) -> pd.DataFrame:
    """``n`` rows of ``model``, the first ``k`` correct and the rest wrong."""
    wrong = dict(reply="77", parsed="77", failure_mode=None)
    frame = rows(n, model=model, correct=[i < k for i in range(n)], **columns)
    frame.loc[k:, list(wrong)] = list(wrong.values())
    return frame


def concat(*frames: pd.DataFrame) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True)


def write_part(path: Path, frame: pd.DataFrame) -> Path:
    """One Parquet part in the results schema at ``path`` (folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False), path)
    return path


def spec_json(text: str = "12", size: int = 300, seed: int = 0) -> str:
    """A PlateSpec JSON for drill-down tests (only fields the contract names; the engine fills the rest)."""
    from plates.stimuli.ishihara.plate import PlateSpec

    return (
        PlateSpec(text=text, size=size, seed=seed).to_json()
        if hasattr(PlateSpec, "to_json")
        else json.dumps({})
    )
