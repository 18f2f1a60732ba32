"""Reading a folder that `plates export hf` wrote: its rows per config, in shard order.

Light on purpose (pyarrow only): the inspect_ai tasks import it inside inspect's own environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

__all__ = ["read_export"]


def read_export(folder: str | Path, config: str | None = None, *,
                images: bool = False) -> dict[str, list[dict[str, Any]]]:
    """The rows of an exported folder per config, in shard order.

    Parameters
    ----------
    folder : str or pathlib.Path
        A folder written by ``plates export hf``.
    config : str or None
        One config, or None for every config.
    images : bool
        Include the ``image`` column (PNG bytes).

    Returns
    -------
    dict of str to list of dict
        Config -> its rows.

    Raises
    ------
    ValueError
        The folder is not an export (no ``data/<config>/`` shards) or lacks ``config``.
    """
    root = Path(folder)
    configs = sorted(p.name for p in (root / "data").iterdir()) if (root / "data").is_dir() else []
    if not configs:
        raise ValueError(f"{str(folder)!r} holds no data/<config>/ shards; allowed: a folder written by "
                         "`plates export hf`")
    if config is not None and config not in configs:
        raise ValueError(f"config {config!r} is not in {str(folder)!r}; allowed: {', '.join(configs)}")
    out: dict[str, list[dict[str, Any]]] = {}
    for name in [config] if config is not None else configs:
        rows: list[dict[str, Any]] = []
        for shard in sorted((root / "data" / name).glob("*.parquet")):
            names = pq.read_schema(shard).names
            columns = names if images else [c for c in names if c != "image"]  # never read the PNGs for nothing
            rows.extend(pq.read_table(shard, columns=columns).to_pylist())
        out[name] = rows
    return out
