"""Where results and sets live: a local folder or an object store (``s3://bucket/prefix``), under one commit rule.

Every writer that must never leave a half-written file visible (results parts, set shards, manifests) publishes
through `Store.commit`, and every reader lists through `Store.list`, which returns committed files only:

* a local folder: a hidden temporary file beside the final name, fsync, ``os.replace`` (atomic on POSIX), fsync
  of the folder;
* an object store, where rename is a copy and a writer's stream can be closed, and so published, half-written by
  an exception on the way out: the object is written under its unique final name, then a small commit record
  ``<folder>/_commits/<name>`` (its size, as JSON) is written last. `Store.list` returns an object only when its
  record exists (one listing finds both: no request per object), so a writer that dies mid-object leaves nothing
  a reader sees (a stray object without a record is ignored). `Store.delete` removes the record first. (Checked
  with pyarrow 26 on moto: an S3 output stream left by an exception completes the upload with the bytes
  written so far, so without records a killed writer could publish half a part.) A killed writer's stray
  object stays in the bucket, unread: nothing here can tell it from a live writer's object whose record is
  on its way, so it is never deleted automatically.

URLs: ``s3://bucket/prefix`` through pyarrow's S3 filesystem (the AWS C++ SDK). Credentials come only from the
standard AWS chain (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``, ``~/.aws``
profiles, instance metadata); a URL carrying credentials or options is refused, so no secret can reach a
result row, a manifest or a log through ``--out``. A server other than AWS (MinIO, Ceph, moto) is named by the
SDKs' standard ``AWS_ENDPOINT_URL_S3`` or ``AWS_ENDPOINT_URL`` (e.g. ``http://127.0.0.1:9000``); the region by
``AWS_REGION`` or ``AWS_DEFAULT_REGION``. The bucket must exist (nothing here creates or deletes buckets).

Examples
--------
>>> is_url("s3://bucket/runs"), is_url("results/runs")
(True, False)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import json
import os
import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:  # pyarrow.fs (pyarrow, numpy: ~0.15 s of CPU) loads where a store is opened or read
    import pyarrow.fs as pafs

__all__ = ["COMMITS", "TEMPORARIES", "Store", "is_url", "mirror", "open_store", "s3_endpoint", "sub_location", "s3_region", "sync_filesystem", "filesystem_flush",
           "temporary_name", "write_atomic", "written_in_place"]

#: The folder (beside the objects it commits) holding each committed object's record, on object stores.
COMMITS = "_commits"
#: URL schemes accepted for object storage.
SCHEMES = ("s3",)


def is_url(location: Any) -> bool:
    """Whether ``location`` names object storage (``scheme://...``) rather than a local path.

    Parameters
    ----------
    location : object
        A location as a user gave it: a URL string, a path string or a path object.

    Returns
    -------
    bool
        True for a string containing ``://``; False for anything else (a `Path` included).
    """
    return isinstance(location, str) and "://" in location


def s3_endpoint() -> tuple[str | None, str | None]:
    """(``host:port``, ``http``/``https``) of the S3 endpoint the environment names, or (None, None): AWS."""
    raw = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if not raw:
        return None, None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise ValueError("AWS_ENDPOINT_URL(_S3) is not valid; allowed: http://HOST[:PORT] or https://HOST[:PORT] "
                         "(credentials belong in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, not in the URL)")
    host = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    return host, parts.scheme


def s3_region(endpoint: str | None) -> str | None:
    """The region of S3 requests: ``AWS_REGION`` or ``AWS_DEFAULT_REGION`` from the environment.

    Parameters
    ----------
    endpoint : str or None
        ``host:port`` of a non-AWS server (`s3_endpoint`), or None for AWS.

    Returns
    -------
    str or None
        The region the environment names; with a non-AWS ``endpoint`` and neither variable set, ``us-east-1``
        (S3-compatible servers answer in any region, but signing needs one). None: the SDK's own default (AWS).
    """
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    return region or "us-east-1" if endpoint is not None else region


def _s3(url: str) -> tuple[pafs.FileSystem, str]:
    import pyarrow.fs as pafs  # lazy: see the module imports

    parts = urlsplit(url)
    shown = f"{parts.scheme}://{parts.hostname or ''}{parts.path}"  # never the user-info part of a bad URL
    if "@" in parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"object-store URL {shown!r} carries credentials or options; allowed: s3://BUCKET[/PREFIX] "
                         "with credentials from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or a "
                         "profile) and a non-AWS server in AWS_ENDPOINT_URL")
    bucket, prefix = parts.netloc, parts.path.strip("/")
    if not bucket or any(p in (".", "..") for p in prefix.split("/")):
        raise ValueError(f"object-store URL {shown!r} is not valid; allowed: s3://BUCKET[/PREFIX] (no '.' or '..')")
    endpoint, scheme = s3_endpoint()
    region = s3_region(endpoint)
    options: dict[str, Any] = {} if region is None else {"region": region}
    if endpoint is not None:
        options.update(endpoint_override=endpoint, scheme=scheme)
    return pafs.S3FileSystem(**options), posixpath.join(bucket, prefix) if prefix else bucket


@dataclass(frozen=True)
class Store:
    """A folder on a file system, local or an object store, under the module's commit rule. Build with
    `open_store`.

    Attributes
    ----------
    url : str
        The location as the user gave it (safe to show: a URL with credentials is refused before a store is made).
    fs : pyarrow.fs.FileSystem
        The file system holding the folder.
    root : str
        The folder's path in ``fs``.
    object_store : bool
        True on an object store: commit records instead of renames.
    """

    url: str
    fs: pafs.FileSystem
    root: str
    object_store: bool

    @property
    def local(self) -> Path | None:
        """The folder as a local path (None on an object store)."""
        return None if self.object_store else Path(self.root)

    def path(self, name: str) -> str:
        """The full path in ``fs`` of a name under the root.

        Parameters
        ----------
        name : str
            A name relative to the root, '/'-separated; ``""`` is the root itself.

        Returns
        -------
        str
            The path in ``fs``.
        """
        return posixpath.join(self.root, name) if name else self.root

    def child(self, name: str) -> Store:
        """The sub-folder ``name`` as a store of its own.

        Parameters
        ----------
        name : str
            A sub-folder name relative to the root, '/'-separated.

        Returns
        -------
        Store
            The same file system rooted at the sub-folder, its ``url`` made by `sub_location`.
        """
        return Store(sub_location(self.url, name), self.fs, self.path(name), self.object_store)

    def shown(self, name: str = "") -> str:
        """``name`` under this store as a user reads it (the URL form on an object store).

        Parameters
        ----------
        name : str, optional
            A name relative to the root; ``""`` (the default) shows the store itself.

        Returns
        -------
        str
            The store's ``url``, or `sub_location` of ``name`` under it.
        """
        return sub_location(self.url, name) if name else self.url

    def list(self, *, prefix: str = "", suffix: str = "", recursive: bool = False) -> list[str]:
        """Committed files under the root whose names start with ``prefix`` and end with ``suffix``, as names
        relative to the root, sorted; names with a component starting with '.' or '_' (temporaries, commit
        records) are left out. A missing root lists nothing.

        Parameters
        ----------
        prefix : str, optional
            Keep the files whose base name starts with it.
        suffix : str, optional
            Keep the files whose base name ends with it (``".parquet"``).
        recursive : bool, optional
            Also list the files in sub-folders (as ``folder/name``); by default only the root's own files.

        Returns
        -------
        list of str
            Names relative to the root, sorted.
        """
        # an object store lists its commit records with the objects (one recursive listing: a prefix scan)
        import pyarrow.fs as pafs  # lazy: see the module imports

        deep = recursive or self.object_store
        infos = self.fs.get_file_info(pafs.FileSelector(self.root, recursive=deep, allow_not_found=True))
        files: list[str] = []
        records: set[str] = set()
        base = len(self.root.rstrip("/")) + 1
        for info in infos:
            if info.type != pafs.FileType.File:
                continue
            rel = info.path[base:]
            folder, name = posixpath.split(rel)
            if posixpath.basename(folder) == COMMITS and self.object_store:
                records.add(posixpath.join(posixpath.dirname(folder), name))
                continue
            if any(c.startswith((".", "_")) for c in rel.split("/")) or (not recursive and folder):
                continue
            if name.startswith(prefix) and name.endswith(suffix):
                files.append(rel)
        return sorted(rel for rel in files if not self.object_store or rel in records)

    def exists(self, name: str) -> bool:
        """Whether ``name`` is a committed file.

        Parameters
        ----------
        name : str
            A name relative to the root.

        Returns
        -------
        bool
            On a local folder, whether the file exists; on an object store, whether its commit record does.
        """
        import pyarrow.fs as pafs  # lazy: see the module imports

        if not self.object_store:
            return self.fs.get_file_info(self.path(name)).type == pafs.FileType.File
        folder, base = posixpath.split(name)
        record = self.fs.get_file_info(self.path(posixpath.join(folder, COMMITS, base)))
        return record.type == pafs.FileType.File

    def open(self, name: str) -> Any:
        """A random-access reader of ``name`` (Parquet reads its footer from it).

        Parameters
        ----------
        name : str
            A name relative to the root.

        Returns
        -------
        pyarrow.NativeFile
            The open file; the caller closes it.

        Raises
        ------
        FileNotFoundError
            When there is no such file.
        """
        return self.fs.open_input_file(self.path(name))

    def read_bytes(self, name: str) -> bytes:
        """The whole content of ``name``.

        Parameters
        ----------
        name : str
            A name relative to the root.

        Returns
        -------
        bytes
            The file's bytes.

        Raises
        ------
        FileNotFoundError
            When there is no such file.
        """
        with self.fs.open_input_stream(self.path(name)) as fh:
            return fh.read()

    def commit(self, name: str, data: bytes) -> str:
        """Publish ``data`` as ``name`` so that a reader sees all of it or nothing (the module doc's rule);
        returns its full path. Names must be unique per writer on an object store (an existing object would be
        replaced in place).

        Parameters
        ----------
        name : str
            A name relative to the root, '/'-separated; missing local sub-folders are made.
        data : bytes
            The whole content.

        Returns
        -------
        str
            The file's full path in ``fs``.
        """
        target = self.path(name)
        if not self.object_store:
            path = Path(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(data, path, sync_folder=True)
            return str(path)
        with self.fs.open_output_stream(target) as out:
            out.write(data)
        folder, base = posixpath.split(name)
        with self.fs.open_output_stream(self.path(posixpath.join(folder, COMMITS, base))) as out:
            out.write(json.dumps({"bytes": len(data)}).encode())
        return target

    def delete(self, names: list[str]) -> None:
        """Remove committed files (their records first on an object store); a missing one is no error.

        Parameters
        ----------
        names : list of str
            Names relative to the root. On a local folder, the folder of the first name is fsynced afterwards.
        """
        for name in names:
            paths = [self.path(name)]
            if self.object_store:
                folder, base = posixpath.split(name)
                paths.insert(0, self.path(posixpath.join(folder, COMMITS, base)))
            for path in paths:
                try:
                    self.fs.delete_file(path)
                except FileNotFoundError:
                    pass
        if not self.object_store and names:
            _fsync_dir(Path(self.path(posixpath.dirname(names[0]))))


def temporary_name(path: Path) -> Path:
    """The hidden temporary file `write_atomic` writes before renaming it to ``path``:
    ``.<name>.<pid>.tmp`` beside it (never ``*.png`` or ``*.parquet``, so globs and `Store.list` skip it; the
    pid tells a dead writer's leftover from a live one's).

    Parameters
    ----------
    path : pathlib.Path
        The final file's path.

    Returns
    -------
    pathlib.Path
        The temporary file's path, in the same folder.
    """
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


#: Matches every leftover of `write_atomic` in a folder (``folder.glob(TEMPORARIES)``).
TEMPORARIES = ".*.*.tmp"


def write_atomic(data: bytes, path: str | os.PathLike, *, sync_folder: bool = False, defer_sync: bool = False) -> int:
    """Write ``data`` to the local file ``path`` atomically and durably: `temporary_name` beside it, fsync,
    ``os.replace`` (atomic on POSIX); with ``sync_folder`` the folder is fsynced too, so the new name survives a
    power cut (results parts and manifests; a set's images skip it: a lost name is drawn again on resume). A
    crash leaves either no file or the whole file. The folder must exist. Returns the bytes written.

    ``defer_sync``: no fsync here where `sync_filesystem` can flush the whole filesystem later (Linux, macOS; on
    a platform without such a flush, Windows, the file is fsynced now as usual). Still atomic against a killed
    process (the rename never shows half a file), but a power cut before that flush may leave the final name
    with missing data. A set's images take it: each fsync waits for a journal commit (its cost per image is on
    docs/benchmarks.md), a resume redraws any image
    that is not a whole PNG (`plates.images.png_intact`), and the set's manifest is written only after
    `sync_filesystem`, so every image a manifest lists is on disk.

    Parameters
    ----------
    data : bytes
        The whole content.
    path : str or os.PathLike
        The final local file; its folder must exist.
    sync_folder : bool, optional
        Also fsync the folder, so the new name survives a power cut.
    defer_sync : bool, optional
        Skip the file's fsync where `sync_filesystem` can flush the filesystem later (see above).

    Returns
    -------
    int
        The number of bytes written.

    Raises
    ------
    OSError
        When the file cannot be written (``FileNotFoundError`` for a missing folder); no temporary file is
        left behind.
    """
    path = Path(path)
    tmp = temporary_name(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            if not (defer_sync and filesystem_flush() is not None):
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    if sync_folder:
        _fsync_dir(path.parent)
    return len(data)


@contextmanager
def written_in_place(path: Path) -> Iterator[Path]:
    """A local file written under `temporary_name` beside ``path`` (the path this yields) and, once the block
    ends without an error, flushed to disk with everything written before it (`sync_filesystem`) and renamed to
    ``path``: no reader ever opens half a file, and its name appears only once its bytes, and the images a set
    wrote before it without an fsync each (`write_atomic`'s ``defer_sync``), are on disk. A failed block leaves
    no temporary file and ``path`` as it was. For writers that stream to a path (Parquet writers); bytes in
    hand take `write_atomic`.

    Parameters
    ----------
    path : pathlib.Path
        The final local file; its folder must exist.

    Yields
    ------
    pathlib.Path
        The temporary path to write to.
    """
    tmp = temporary_name(path)
    try:
        yield tmp
        sync_filesystem(path.parent)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def sync_filesystem(folder: str | os.PathLike) -> None:
    """Flush everything written to the filesystem holding the local ``folder`` to disk, at once, making every
    `write_atomic` with ``defer_sync`` before it durable: Linux's ``syncfs(2)`` (one journal commit for a whole
    set's images, where an fsync per file waits for one each), else ``os.sync()`` (every filesystem; macOS);
    nothing on a platform with neither (Windows), where `write_atomic` fsyncs each file instead.

    Parameters
    ----------
    folder : str or os.PathLike
        Any local folder on the filesystem to flush.

    Raises
    ------
    FileNotFoundError
        When ``folder`` is not an existing folder.
    OSError
        When the flush fails.
    """
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"no folder {str(folder)!r} to flush to disk")
    flush = filesystem_flush()
    if flush is not None:
        flush(folder)


def _syncfs(folder: str | os.PathLike) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        if _libc_syncfs()(fd) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"syncfs failed on {str(folder)!r}: {os.strerror(err)}")
    finally:
        os.close(fd)


def _os_sync(folder: str | os.PathLike) -> None:
    os.sync()


@lru_cache(maxsize=1)
def _libc_syncfs():
    """The C library's ``syncfs``, or None where it has none (not Linux)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True).syncfs
    except (OSError, TypeError, AttributeError):  # no C library found by name, or one without syncfs
        return None


def filesystem_flush():
    """How `sync_filesystem` flushes a folder's filesystem on this platform, or None where it has no way.

    Returns
    -------
    callable or None
        A function of one local folder (str or os.PathLike) that flushes that folder's whole filesystem to disk:
        the C library's ``syncfs`` where there is one (Linux), else ``os.sync`` (macOS and other POSIX), else
        None (Windows): there `write_atomic` fsyncs each deferred write itself.
    """
    if _libc_syncfs() is not None:
        return _syncfs
    return _os_sync if hasattr(os, "sync") else None


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sub_location(location: str | os.PathLike, name: str) -> str:
    """The location of ``name`` under ``location`` as a user writes it: ``s3://b/p`` + ``x`` -> ``s3://b/p/x``,
    a local folder joined as a path.

    Parameters
    ----------
    location : str or os.PathLike
        A local folder or an object-store URL.
    name : str
        A name under it.

    Returns
    -------
    str
        The URL with ``/name`` appended (one slash), or the joined local path.

    Examples
    --------
    >>> sub_location("s3://bucket/sets/", "rcid-contrast")
    's3://bucket/sets/rcid-contrast'
    """
    if is_url(location):
        return str(location).rstrip("/") + "/" + name
    return str(Path(location) / name)


def open_store(location: str | os.PathLike | Store) -> Store:
    """The `Store` of a location: a local folder (need not exist yet) or ``s3://bucket/prefix``.

    Parameters
    ----------
    location : str, os.PathLike or Store
        A local folder (``~`` is expanded), an ``s3://BUCKET[/PREFIX]`` URL, or a store (returned as it is).

    Returns
    -------
    Store
        The store; an S3 one takes its credentials, endpoint and region from the environment.

    Raises
    ------
    ValueError
        For a scheme other than ``s3`` (naming the allowed forms), a URL carrying credentials, a query or a
        fragment, a URL without a bucket or with a ``.`` or ``..`` component, or an invalid
        ``AWS_ENDPOINT_URL(_S3)``.
    """
    if isinstance(location, Store):
        return location
    if is_url(location):
        scheme = str(location).split("://", 1)[0].lower()
        if scheme not in SCHEMES:
            raise ValueError(f"storage scheme {scheme!r} is not supported; allowed: a local folder or "
                             f"{', '.join(s + '://BUCKET/PREFIX' for s in SCHEMES)}")
        fs, root = _s3(str(location))
        return Store(str(location), fs, root, True)
    import pyarrow.fs as pafs  # lazy: see the module imports

    path = Path(location).expanduser()
    return Store(str(location), pafs.LocalFileSystem(), str(path.absolute()), False)


def mirror(location: str | os.PathLike | Store, folder: str | os.PathLike, *, suffix: str = ".parquet") -> int:
    """Make the local ``folder`` hold exactly the committed ``*suffix`` files under ``location`` (recursively,
    same relative names): copy the new and changed ones (by size), each published whole, and delete the local
    ones no longer committed (a compaction merged them away). Returns the number of files copied. What
    `plates dashboard s3://...` serves: DuckDB reads the local copies (its own S3 support is a download).

    Parameters
    ----------
    location : str, os.PathLike or Store
        The source: a local folder or an object store (`open_store`).
    folder : str or os.PathLike
        The local target folder.
    suffix : str, optional
        Mirror only files whose names end with it (default ``".parquet"``).

    Returns
    -------
    int
        The number of files copied.

    Raises
    ------
    ValueError
        When ``folder`` is an object-store URL.
    """
    source, target = open_store(location), open_store(folder)
    if target.object_store:
        raise ValueError(f"mirror target {target.url!r} must be a local folder; allowed: a path")
    wanted = source.list(suffix=suffix, recursive=True)
    sizes = {i.path: i.size for i in source.fs.get_file_info([source.path(n) for n in wanted])}
    copied = 0
    for name in wanted:
        local = Path(target.path(name))
        if not local.is_file() or local.stat().st_size != sizes.get(source.path(name)):
            target.commit(name, source.read_bytes(name))
            copied += 1
    keep = set(wanted)
    target.delete([n for n in target.list(suffix=suffix, recursive=True) if n not in keep])
    return copied
