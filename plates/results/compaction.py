"""Compaction: a finished run's many small parts merged into one (crash-safe: the merged part names what it
replaces, so a crash between writing it and deleting them loses and duplicates nothing)."""

from __future__ import annotations

import json
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from plates.results.reader import read_parts, union_tables, visible_parts
from plates.results.schema import (
    REPLACES_KEY,
    SAFE_RUN_ID,
    SUPERSEDES_KEY,
)
from plates.results.writer import write_part
from plates.storage import Store, open_store


def _remove_stale_temporaries(out_dir: Path, run_id: str) -> None:
    """Delete this run's temporaries left by a writer process that died (``kill -9`` mid-write)."""
    for tmp in out_dir.glob(f".{run_id}-*.parquet.*.tmp"):
        pid = tmp.name.rsplit(".", 2)[-2]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def compact_run(out_dir: str | Path | Store, run_id: str) -> Path | str | None:
    """Merge the parts of run ``run_id`` directly under ``out_dir`` (a folder or an object-store URL,
    `plates.storage`) into one part; returns it (None if <= 1).

    The merged part (published whole, `plates.storage.Store.commit`) lists the parts it replaces in its
    metadata, then they are deleted: a crash in between leaves both, and ``load_results`` reads only the merged
    one. Keeps loading fast (one file per run instead of one per second of running).

    Parameters
    ----------
    out_dir : str, pathlib.Path or plates.storage.Store
        The run's output folder or object-store URL.
    run_id : str
        The run whose parts are merged (part names start with it).

    Returns
    -------
    pathlib.Path, str or None
        The merged part, or None when there was at most one part.
    """
    if not isinstance(run_id, str) or not SAFE_RUN_ID.match(run_id):
        raise ValueError(f"run_id {run_id!r} must be 1-128 characters of letters, digits, '.', '_' or '-'")
    store = open_store(out_dir)
    if store.local is not None:
        _remove_stale_temporaries(store.local, run_id)
        files = sorted(p for p in store.local.glob(f"{run_id}-*.parquet") if p.is_file())
        parts = read_parts(files)
    else:
        files = [PurePosixPath(store.path(n)) for n in store.list(prefix=f"{run_id}-", suffix=".parquet")]
        parts = read_parts(files, store=store)
    keep = visible_parts(files, parts)
    if len(keep) <= 1:
        return None
    tables = [parts[i].table for i in keep]
    meta = {REPLACES_KEY: json.dumps([files[i].name for i in range(len(files)) if parts[i].table is not None]).encode()}
    if any(parts[i].supersedes for i in keep):
        meta[SUPERSEDES_KEY] = b"1"
    merged_table = union_tables(tables).replace_schema_metadata(meta)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    merged = write_part(merged_table, f"{run_id}-{stamp}-{os.getpid()}-{secrets.token_hex(3)}-merged.parquet", store)
    store.delete([f.name for i, f in enumerate(files) if parts[i].table is not None])
    return merged
