"""Compact codes that carry JSON in a URL, and the links built from them (no widget, no plate knowledge).

A code is URL-safe base64 (no padding) of zlib-compressed, minified JSON. Decoding is bounded before it is
parsed: at most :data:`MAX_CODE_CHARS` characters in, at most a caller's byte cap out (a zip bomb stops at the
cap), so a hostile link costs a few kilobytes whatever it holds. `plates.explorer.specs` packs a plate's spec
this way (``?spec=``), `plates.explorer.share` the Model tab's state (``?ask=``).

Examples
--------
>>> code = pack_json({"b": 1, "a": [1, 2]})
>>> unpack_json(code, 1000)
{'a': [1, 2], 'b': 1}
>>> page_link("https://x.hf.space/?__theme=dark#top", {"spec": "abc", "ask": "d-e"})
'https://x.hf.space/?spec=abc&ask=d-e'
>>> page_link(None, {"spec": "abc"})
'?spec=abc'
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping
from urllib.parse import urlencode, urlsplit, urlunsplit

__all__ = ["MAX_CODE_CHARS", "pack_json", "page_link", "unpack_json"]

#: Longest code accepted (characters).
MAX_CODE_CHARS = 8192
_CODE_RE = re.compile(r"^[A-Za-z0-9_-]+$")


def pack_json(value) -> str:
    """``value`` as a code: URL-safe base64, no padding, of zlib (level 9) minified JSON with sorted keys.

    Equal values give equal codes.

    Parameters
    ----------
    value : object
        JSON-serialisable.

    Returns
    -------
    str
        The code.
    """
    raw = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def unpack_bytes(code: str, max_bytes: int, what: str = "code") -> bytes:
    """The JSON bytes a code carries, bounded before anything is parsed.

    Parameters
    ----------
    code : str
        The code (padding optional).
    max_bytes : int
        The most bytes it may expand to (a zip bomb stops here).
    what : str
        What the code is, named in the error.

    Returns
    -------
    bytes
        The decompressed JSON.

    Raises
    ------
    ValueError
        Saying what is wrong: empty or over :data:`MAX_CODE_CHARS`, characters outside the URL-safe alphabet,
        not
        zlib, cut short, or expanding past ``max_bytes``.
    """
    code = (code or "").strip().rstrip("=")
    if not code or len(code) > MAX_CODE_CHARS:
        raise ValueError(f"{what} of {len(code)} characters is not allowed; allowed: 1-{MAX_CODE_CHARS}")
    try:
        if not _CODE_RE.match(code):
            raise ValueError("it has characters outside A-Z a-z 0-9 - _")
        packed = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, max_bytes)
        if inflater.unconsumed_tail:
            raise ValueError(f"it expands past {max_bytes} bytes")
        if not inflater.eof:
            raise ValueError("it is cut short")
    except (binascii.Error, zlib.error, ValueError) as exc:
        raise ValueError(f"{what} is not one the explorer made ({exc})") from None
    return raw


def unpack_json(code: str, max_bytes: int, what: str = "code"):
    """The JSON value a code carries (:func:`unpack_bytes`, then parsed).

    Parameters
    ----------
    code : str
        The code.
    max_bytes : int
        The most bytes it may expand to.
    what : str
        What the code is, named in the error.

    Returns
    -------
    object
        The parsed JSON value.

    Raises
    ------
    ValueError
        As :func:`unpack_bytes`, or when the bytes are not JSON.
    """
    raw = unpack_bytes(code, max_bytes, what)
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{what} is not one the explorer made (not JSON: {exc})") from None


def page_link(page_url: str | None, params: Mapping[str, str]) -> str:
    """A link to the page with ``params`` as its query.

    Parameters
    ----------
    page_url : str or None
        The page's URL as the browser sees it.
    params : mapping of str to str
        The query's parameters, in order.

    Returns
    -------
    str
        The page's URL (scheme, host, path; its own query and fragment dropped) with the query, or the bare
        query
        string (a relative link) when the page URL is unknown or not http(s).
    """
    query = urlencode(dict(params))
    if page_url:
        parts = urlsplit(page_url)
        if parts.scheme in ("http", "https") and parts.netloc:
            return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))
    return f"?{query}"
