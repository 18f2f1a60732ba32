"""Export an experiment's rows as a Hugging Face dataset folder: Parquet shards and a dataset card.

Layout (what ``datasets.load_dataset(folder)`` and the Hub read)::

    README.md                                    the dataset card: YAML front matter + how it was made
    data/<config>/test-00000-of-00002.parquet    one config per prompt x condition (`rows.config_name`)

Each shard is plain Parquet written by pyarrow: the ``image`` column is ``struct<bytes: binary, path: string>``
and the schema metadata ``huggingface`` carries the `datasets` features (``{"_type": "Image"}`` for it), so
`datasets` decodes it to PIL while the bytes stay the PNG as written (no JPEG, no re-encode of unchanged
plates). A shard closes once its images pass ``shard_bytes`` (row groups of `ROW_GROUP` rows keep the Hub's
viewer and streaming readers light).

``push_to_hub`` uploads the folder with ``huggingface_hub.HfApi.upload_folder``: in huggingface_hub 2.x it is
the large-folder route (streamed, committed in batches, resumable; the separate ``upload_large_folder`` of 0.x
was folded into it), avoiding the memory and speed problems of ``Dataset.push_to_hub`` on large image sets.
The token is read from the environment and handed to the client, never written anywhere.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from plates.install import extra_hint
from plates.integrations.card import dataset_card
from plates.integrations.rows import SCHEMA, ExportRow, export_rows
from plates.runs.experiment import Experiment
from plates.storage import temporary_name

__all__ = ["ExportSummary", "export_hf", "features", "push_to_hub"]

#: Rows per Parquet row group.
ROW_GROUP = 64
#: Default bound on a shard's image bytes (the Hub advises shards well under 1 GB).
SHARD_BYTES = 256 * 2**20
SPLIT = "test"


@dataclass
class ExportSummary:
    """What an export wrote.

    Parameters
    ----------
    out : str
        The export's folder.
    rows : dict of str to int
        Rows per config.
    config_bytes : dict of str to int
        Image bytes per config.
    shards : dict of str to list of str
        The shard files per config, relative to ``out``.
    bytes : int
        Bytes in all.
    """

    out: str
    rows: dict[str, int] = field(default_factory=dict)
    config_bytes: dict[str, int] = field(default_factory=dict)
    shards: dict[str, list[str]] = field(default_factory=dict)
    bytes: int = 0

    @property
    def total(self) -> int:
        """Rows written, over every config."""
        return sum(self.rows.values())


def _value(dtype: pa.DataType) -> dict[str, str]:
    names = {pa.string(): "string", pa.int32(): "int32", pa.int64(): "int64", pa.float64(): "float64",
             pa.bool_(): "bool"}
    return {"dtype": names[dtype], "_type": "Value"}


def features(schema: pa.Schema = SCHEMA) -> dict[str, Any]:
    """The `datasets` features of ``schema`` as its JSON form.

    Parameters
    ----------
    schema : pyarrow.Schema
        The export's schema.

    Returns
    -------
    dict
        ``{"_type": "Image"}`` for the image column, ``{"dtype": ..., "_type": "Value"}`` for the others.

    Examples
    --------
    >>> features()["image"]
    {'_type': 'Image'}
    """
    return {f.name: {"_type": "Image"} if f.name == "image" else _value(f.type) for f in schema}


def _schema_with_features() -> pa.Schema:
    info = {"info": {"features": features()}}
    return SCHEMA.with_metadata({b"huggingface": json.dumps(info).encode()})


class _Shards:
    """The open shard of one config; a new one starts when the images written pass ``limit`` bytes."""

    def __init__(self, folder: Path, limit: int) -> None:
        self.folder, self.limit = folder, limit
        self.files: list[Path] = []
        self.writer: pq.ParquetWriter | None = None
        self.pending: list[dict[str, Any]] = []
        self.size = 0

    def add(self, values: dict[str, Any]) -> int:
        n = len(values["image"]["bytes"])
        if self.size and self.size + n > self.limit:  # this shard is full: close it (pending rows included)
            self.close()
        self.pending.append(values)
        self.size += n
        if len(self.pending) >= ROW_GROUP:
            self._flush()
        return n

    def _flush(self) -> None:
        if not self.pending:
            return
        if self.writer is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.files.append(self.folder / f".part-{len(self.files):05d}.parquet")
            self.writer = pq.ParquetWriter(self.files[-1], _schema_with_features(), compression="zstd")
        self.writer.write_table(pa.Table.from_pylist(self.pending, schema=_schema_with_features()),
                                row_group_size=ROW_GROUP)
        self.pending = []

    def close(self) -> None:
        self._flush()
        if self.writer is not None:
            self.writer.close()
            self.writer, self.size = None, 0

    def finish(self) -> list[Path]:
        """Close, and name the shards ``test-XXXXX-of-YYYYY.parquet`` now that their number is known."""
        self.close()
        named = []
        for i, tmp in enumerate(self.files):
            final = tmp.with_name(f"{SPLIT}-{i:05d}-of-{len(self.files):05d}.parquet")
            os.replace(tmp, final)
            named.append(final)
        return named


def write_rows(rows: Iterable[ExportRow], out: Path, *, shard_bytes: int = SHARD_BYTES) -> ExportSummary:
    """Write ``rows`` under ``out/data/<config>/``; returns what was written.

    Parameters
    ----------
    rows : iterable of ExportRow
        The rows.
    out : pathlib.Path
        The dataset folder.
    shard_bytes : int, optional
        About how many bytes a Parquet shard holds.

    Returns
    -------
    ExportSummary
        Rows and shards per config.
    """
    summary = ExportSummary(out=str(out))
    shards: dict[str, _Shards] = {}
    for row in rows:
        config = row.values["config"]
        if config not in shards:
            shards[config] = _Shards(out / "data" / config, shard_bytes)
        n = shards[config].add(row.values)
        summary.bytes += n
        summary.config_bytes[config] = summary.config_bytes.get(config, 0) + n
        summary.rows[config] = summary.rows.get(config, 0) + 1
    for config, s in shards.items():
        summary.shards[config] = [p.relative_to(out).as_posix() for p in s.finish()]
    return summary


def export_hf(exp: Experiment, out: str | os.PathLike, *, command: str, items: Sequence[Any] | None = None,
              shard_bytes: int = SHARD_BYTES) -> ExportSummary:
    """Write the dataset folder of ``exp`` (`plates.integrations.rows.export_rows`) to ``out``: Parquet shards
    and the ``README.md`` dataset card, whose "regenerate" section quotes ``command``.

    The folder is written under a temporary name beside ``out`` and moved into place when complete.

    Parameters
    ----------
    exp : Experiment
        The experiment whose rows are exported (`plates.runs.experiment`).
    out : str or os.PathLike
        A new or empty folder.
    command : str
        The command line quoted in the card.
    items : sequence or None
        Replaces the dataset loader (`plates.runs.plan.load_items`).
    shard_bytes : int
        Target size of one Parquet shard.

    Returns
    -------
    ExportSummary

    Raises
    ------
    ValueError
        ``out`` exists and is not an empty folder (an old export's shards would mix in), or any
        `plates.integrations.rows.export_rows` error (few-shot rows).
    """
    if shard_bytes < 1:
        raise ValueError(f"shard_bytes {shard_bytes} is not allowed; expected an integer >= 1")
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"--out {str(out)!r} exists and is not an empty folder; allowed: a new or empty folder "
                         "(an earlier export's shards would mix in)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_name(out)
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        summary = write_rows(export_rows(exp, items), tmp, shard_bytes=shard_bytes)
        if not summary.rows:
            raise ValueError(f"the experiment plans no rows for dataset {exp.dataset!r} (limit {exp.limit}); "
                             "allowed: a dataset, prompts and limit that ask at least one item")
        (tmp / "README.md").write_text(dataset_card(exp, summary.rows, features(), command=command,
                                                    split=SPLIT, sizes=summary.config_bytes), encoding="utf-8")
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    summary.out = str(out)
    return summary


def push_to_hub(folder: str | os.PathLike, repo_id: str, *, token_env: str = "HF_TOKEN",
                private: bool = False) -> Any:
    """Upload ``folder`` to the dataset repository ``repo_id`` (created if missing) with
    ``huggingface_hub.HfApi.upload_folder``.

    Parameters
    ----------
    folder : str or os.PathLike
        An export (`export_hf`).
    repo_id : str
        ``owner/name`` of the dataset repository.
    token_env : str
        The environment variable holding the token (read, never written).
    private : bool
        Create the repository private.

    Returns
    -------
    object
        The client's commit info.

    Raises
    ------
    ValueError
        ``token_env`` is unset or empty (the message names the variable, never a value).
    """
    try:
        from huggingface_hub import HfApi
    except ImportError:
        raise ImportError(f"pushing to the Hub needs huggingface_hub: {extra_hint('hub')}") from None
    token = os.environ.get(token_env)
    if not token:
        raise ValueError(f"the environment variable {token_env} is not set (or empty): export a Hugging Face "
                         "token with write access in it, or name another variable with --token-env")
    if not (Path(folder) / "README.md").is_file():
        raise ValueError(f"{str(folder)!r} has no README.md; allowed: a folder written by `plates export hf`")
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    return api.upload_folder(repo_id=repo_id, folder_path=str(folder), repo_type="dataset",
                             commit_message="plates export hf")
