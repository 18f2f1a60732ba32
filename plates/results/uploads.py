"""Results files a visitor uploads to the dashboard: checked from their Parquet metadata before anything is
loaded, written to a folder of their own, and deleted after a time to live.

A Parquet file's size says little about what it costs to load: one million rows of one dictionary-encoded
1,000-character text fit in 1 MB and took the People page from 400 MB to 1.9 GB. So `check_uploads` reads only
each file's footer (itself capped: `MAX_FOOTER_BYTES`) and refuses, naming the file as the visitor named it,
more than `plates.admission.UploadLimits.max_rows` rows in all, more than ``max_row_groups`` row groups in a
file, more than ``max_files`` files or ``max_bytes`` bytes; the results view then reads every text column cut to a length
(`plates.results.query.UPLOAD_TEXT_CAPS`). A file whose footer cannot be read is left to the opener, which names it
as skipped with the reason.

`UploadFolders` writes each upload set to a fresh folder under one root and deletes every folder older than
its time to live whenever a new set arrives (`sweep`), so nothing an upload leaves on disk outlives the TTL.
"""

from __future__ import annotations

import re
import shutil
import struct
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from plates.admission import UploadLimits

__all__ = ["MAX_FOOTER_BYTES", "UploadFolders", "check_uploads"]

#: A results part's footer is a few KB (one row group per flush, ~40 columns); a larger one is refused unread.
MAX_FOOTER_BYTES = 1_000_000
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
#: The caps an upload set meets unless a caller gives others.
_DEFAULT_LIMITS = UploadLimits()


def _footer_length(data: bytes) -> int | None:
    """The footer length a Parquet file declares (None: not a Parquet file, left to the opener)."""
    if len(data) < 12 or data[-4:] != b"PAR1" or data[:4] != b"PAR1":
        return None
    return struct.unpack("<I", data[-8:-4])[0]


def check_uploads(files: Sequence[tuple[str, bytes]], limits: UploadLimits = _DEFAULT_LIMITS) -> None:
    """ValueError naming the first cap an upload set of (name as uploaded, bytes) passes (module docstring);
    only footers are read.

    Parameters
    ----------
    files : sequence of (str, bytes)
        (name as uploaded, content) per file.
    limits : UploadLimits, optional
        The caps.

    Raises
    ------
    ValueError
        Naming the first cap passed, or a declared Parquet footer over `MAX_FOOTER_BYTES`. A file that is not
        Parquet passes here (the opener skips it and says why).
    """
    if len(files) > limits.max_files:
        raise ValueError(f"{len(files)} files were uploaded; allowed: at most {limits.max_files} at a time")
    total = sum(len(data) for _, data in files)
    if total > limits.max_bytes:
        raise ValueError(f"the uploaded files hold {total / 1e6:.1f} MB; allowed: at most "
                         f"{limits.max_bytes / 1e6:.0f} MB at a time")
    rows = 0
    for name, data in files:
        shown = Path(name).name
        footer = _footer_length(data)
        if footer is None:
            continue
        if footer > MAX_FOOTER_BYTES:
            raise ValueError(f"{shown!r} declares a {footer:,}-byte Parquet footer; allowed: at most "
                             f"{MAX_FOOTER_BYTES:,} bytes (results parts have a few KB)")
        try:
            meta = pq.ParquetFile(pa.BufferReader(data)).metadata
        except (pa.ArrowException, OSError, ValueError):
            continue  # corrupt: the opener names it as skipped, with the reason
        if meta.num_row_groups > limits.max_row_groups:
            raise ValueError(f"{shown!r} has {meta.num_row_groups:,} row groups; allowed: at most "
                             f"{limits.max_row_groups:,} per file")
        rows += meta.num_rows
        if rows > limits.max_rows:
            raise ValueError(f"the uploaded files hold more than {limits.max_rows:,} rows ({shown!r} brings them to "
                             f"{rows:,}); allowed: at most {limits.max_rows:,} at a time: upload fewer parts, "
                             "or open the folder with `plates dashboard PATH` on your machine")


class UploadFolders:
    """Upload sets on disk under ``root`` (default: a fresh temporary folder), one folder each, deleted
    ``ttl_s`` seconds after they were written (`sweep`, run by every `write`).

    Parameters
    ----------
    root : str or pathlib.Path, optional
        The folder holding upload sets (default: a fresh temporary folder).
    ttl_s : float, optional
        Seconds an upload set lives (> 0).

    Raises
    ------
    ValueError
        When ``ttl_s`` is not > 0.
    """

    def __init__(self, root: str | Path | None = None, *, ttl_s: float = 1800.0) -> None:
        if not ttl_s > 0:
            raise ValueError(f"ttl_s={ttl_s!r} is not allowed; allowed: seconds > 0")
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="plates-uploads-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.ttl_s = float(ttl_s)

    def write(self, files: Sequence[tuple[str, bytes]]) -> tuple[Path, dict[str, str]]:
        """A new folder holding ``files`` (file names from their position and the name's safe characters,
        never a path a visitor typed); returns it and path -> the name as uploaded (for messages).

        Parameters
        ----------
        files : sequence of (str, bytes)
            (name as uploaded, content) per file.

        Returns
        -------
        (pathlib.Path, dict of str to str)
            The folder, and each written path to its name as uploaded.
        """
        self.sweep()
        folder = Path(tempfile.mkdtemp(prefix="set-", dir=self.root))
        names = {}
        for index, (name, data) in enumerate(files):
            shown = Path(name).name
            target = folder / f"{index:03d}-{_SAFE.sub('-', shown)[:80] or 'upload'}"
            target.write_bytes(data)
            names[str(target)] = shown
        return folder, names

    def sweep(self, now: float | None = None) -> int:
        """Delete every upload folder older than the time to live; returns how many were deleted.

        Parameters
        ----------
        now : float, optional
            Seconds since the epoch (default: now).

        Returns
        -------
        int
            The folders deleted.
        """
        now = time.time() if now is None else now
        gone = 0
        for folder in self.root.glob("set-*"):
            try:
                old = now - folder.stat().st_mtime >= self.ttl_s
            except OSError:
                continue
            if old:
                shutil.rmtree(folder, ignore_errors=True)
                gone += 1
        return gone

    def bytes_held(self) -> int:
        """Bytes of every upload folder now on disk."""
        return sum(p.stat().st_size for p in self.root.glob("set-*/*") if p.is_file())
