"""inspect_ai logs read as plain data: the ``eval`` header and the samples of a ``.json`` or ``.eval`` log.

inspect_ai writes two log formats. ``--log-format json`` is one JSON document (``eval``, ``samples``, ...). Its
default, ``.eval``, is a zip of JSON entries (``header.json``, ``_journal/start.json``,
``samples/<id>_epoch_<n>.json``, ...) that inspect_ai compresses with Zstandard: zip method 93 (PKWARE
APPNOTE 6.3.10 §4.4.5), which Python's `zipfile` before 3.14 cannot read ("That compression method is not
supported"). A ``.eval`` log is read

- by inspect_ai's own `inspect_ai.log.read_eval_log` when inspect_ai is importable (``via="inspect_ai"``), its
  `EvalLog` dumped to the JSON form of the log, or
- by this module's zip reader (``via="zip"``): `zipfile` for its own methods (stored, deflate, bzip2, LZMA) and
  the `zstandard` package for method 93, each entry's length and CRC-32 checked against the zip's directory.

A ``.json`` log is JSON and is read as such, whichever reader is chosen. The result is the same plain data either
way: ``(header, samples)``, the log without its samples (``status``, ``eval``, ``results`` ...) and its samples,
as the JSON log would hold them. This
module needs neither inspect_ai nor anything heavy (it runs inside a harness's own venv too).

References
----------
inspect_ai, ``inspect_ai/log/_recorders/eval.py`` (the ``.eval`` layout) and ``_file.py`` (`read_eval_log`).
PKWARE, .ZIP File Format Specification 6.3.10, §4.3.7 (local file header), §4.4.5 (compression methods).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import zstandard

__all__ = ["MAX_ENTRY_BYTES", "READERS", "ZIP_METHODS", "read_inspect_log"]

#: Zip compression methods the zip reader reads (APPNOTE §4.4.5 number -> name): `zipfile`'s own four and
#: Zstandard, inspect_ai's default for ``.eval`` logs.
ZIP_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2",
               zipfile.ZIP_LZMA: "LZMA", 93: "Zstandard"}
#: Largest uncompressed entry read from a ``.eval`` zip (a sample entry holds its images as base64 text).
MAX_ENTRY_BYTES = 512 * 1024 * 1024
#: Who reads a ``.eval`` zip: None picks inspect_ai when it is importable, else the zip reader.
READERS = ("inspect_ai", "zip")
_ZSTANDARD = 93
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # APPNOTE §4.3.7: the 30 bytes before an entry's name


def read_inspect_log(path: str | Path, *, via: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``eval`` header and the samples of the inspect_ai log at ``path``.

    Parameters
    ----------
    path
        A ``.eval`` log (a zip, inspect_ai's default format) or a ``.json`` log (``--log-format json``).
    via
        Who reads a ``.eval`` zip: ``"inspect_ai"`` (its `read_eval_log`), ``"zip"`` (`zipfile` plus
        `zstandard`), or None: inspect_ai when it is importable, else the zip reader.

    Returns
    -------
    tuple
        ``(header, samples)``: the log without its samples (``status``, ``eval`` with task and model,
        ``results`` ...) and its samples, as dicts in the form of inspect's JSON log (``metadata``, ``scores``,
        ``output``, ``error`` ...), a zip's sorted by entry name.

    Raises
    ------
    ValueError
        ``path`` is missing, is neither a zip nor JSON, is not an inspect log, uses a zip method neither reader
        reads (naming it and the methods allowed), or ``via`` is not one of `READERS`.
    """
    if via is not None and via not in READERS:
        raise ValueError(f"via={via!r} is not a reader; allowed: None, {', '.join(map(repr, READERS))}")
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"inspect log {str(path)!r} does not exist; allowed: a .json or .eval log file")
    if not zipfile.is_zipfile(path):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{str(path)!r} is neither an inspect .eval zip nor a JSON log ({exc})") from None
        if not isinstance(data, dict) or "eval" not in data:
            raise ValueError(f"{str(path)!r} is JSON but not an inspect log (no 'eval' header)")
        return {k: v for k, v in data.items() if k != "samples"}, data.get("samples") or []
    if via is None:
        try:
            import inspect_ai.log  # noqa: F401  lazy: an optional harness, installed in its own venv
        except ImportError:
            via = "zip"
        else:
            via = "inspect_ai"
    return _read_with_inspect_ai(path) if via == "inspect_ai" else _read_zip(path)


def _read_with_inspect_ai(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """inspect_ai's own reader; its log dumped to the JSON log's form."""
    from inspect_ai.log import read_eval_log  # lazy: an optional harness, installed in its own venv

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # noqa: BLE001  inspect's errors are many kinds: each is reported, none swallowed
        raise ValueError(f"inspect_ai could not read {str(path)!r}: {type(exc).__name__}: {exc}") from exc
    data = log.model_dump(mode="json")
    return {k: v for k, v in data.items() if k != "samples"}, data.get("samples") or []


def _read_zip(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`zipfile` and `zstandard`: the header entry and every ``samples/*.json`` entry."""
    with zipfile.ZipFile(path) as z, open(path, "rb") as raw:
        names = z.namelist()
        head_name = "header.json" if "header.json" in names else "_journal/start.json"
        if head_name not in names:
            raise ValueError(f"{str(path)!r} is a zip without header.json; allowed: an inspect .eval log")
        header = json.loads(_entry(z, raw, z.getinfo(head_name), path))
        samples = [json.loads(_entry(z, raw, z.getinfo(n), path))
                   for n in sorted(names) if n.startswith("samples/") and n.endswith(".json")]
    return header, samples


def _entry(z: zipfile.ZipFile, raw: io.BufferedReader, info: zipfile.ZipInfo, path: Path) -> bytes:
    """The uncompressed bytes of one entry, its method one of `ZIP_METHODS`, its size and CRC-32 checked."""
    where = f"entry {info.filename!r} of {str(path)!r}"
    if info.compress_type not in ZIP_METHODS:
        raise ValueError(f"{where} uses zip compression method {info.compress_type}, which neither inspect_ai's "
                         f"reader nor the zip reader reads; allowed: "
                         + ", ".join(f"{n} ({name})" for n, name in ZIP_METHODS.items()))
    if info.flag_bits & 0x1:
        raise ValueError(f"{where} is encrypted; allowed: an unencrypted inspect .eval log")
    if info.file_size > MAX_ENTRY_BYTES:
        raise ValueError(f"{where} holds {info.file_size} bytes; allowed: at most {MAX_ENTRY_BYTES}")
    if info.compress_type != _ZSTANDARD:
        try:
            return z.read(info)  # zipfile checks the CRC itself
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise ValueError(f"{where}: {exc}; the zip is damaged") from None
    raw.seek(info.header_offset)
    head = raw.read(_LOCAL_HEADER.size)
    if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
        raise ValueError(f"{where}: no local file header at offset {info.header_offset}; the zip is damaged")
    fields = _LOCAL_HEADER.unpack(head)
    raw.seek(info.header_offset + _LOCAL_HEADER.size + fields[10] + fields[11])  # past the name and extra field
    packed = raw.read(info.compress_size)
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(packed), read_across_frames=True) as reader:
            chunks, size = [], 0
            while size <= info.file_size and (chunk := reader.read(info.file_size + 1 - size)):
                chunks.append(chunk)  # bounded: never more than one byte past the size the directory states
                size += len(chunk)
        data = b"".join(chunks)
    except zstandard.ZstdError as exc:
        raise ValueError(f"{where}: its Zstandard data do not decompress ({exc}); the zip is damaged") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise ValueError(f"{where}: {len(data)} bytes with CRC-32 {zlib.crc32(data):08x} where the zip's "
                         f"directory says {info.file_size} bytes, {info.CRC:08x}; the zip is damaged")
    return data
