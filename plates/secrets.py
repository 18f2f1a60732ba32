"""Keeping API keys and server paths out of every message: one redaction used by the backends, the runner and
both apps (`clean_message`: what a page may show a visitor).

A key can reach an error message not only as sent but escaped: in the repr of a str or of the header bytes (a
key read from a file with its trailing newline makes an illegal header whose error text carries
``b'Bearer sk-...\\n'``), or in JSON. Every one of those spellings is replaced.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

__all__ = ["clean_message", "key_forms", "redact"]

MASK = "***"


def key_forms(key: str) -> list[str]:
    """The key and its escaped spellings (repr of str and of UTF-8 bytes, JSON), longest first.

    Parameters
    ----------
    key : str
        A secret.

    Returns
    -------
    list of str
        Its spellings, longest first.
    """
    forms = {key, repr(key)[1:-1], json.dumps(key)[1:-1], json.dumps(key, ensure_ascii=False)[1:-1],
             repr(key.encode())[2:-1]}
    return sorted((f for f in forms if f), key=len, reverse=True)


def redact(text: str | None, secrets: Sequence[str | None], *, min_length: int = 1) -> str | None:
    """``text`` with every spelling of every secret at least ``min_length`` long replaced by ``***``;
    None stays None. Empty and None secrets are ignored.

    Parameters
    ----------
    text : str or None
        The text.
    secrets : sequence of str or None
        The secrets.
    min_length : int, optional
        Shorter secrets are left.

    Returns
    -------
    str or None
        The redacted text.

    Examples
    --------
    >>> redact("key sk-123 failed", ["sk-123", None])
    'key *** failed'
    """
    if text is None:
        return None
    for secret in secrets:
        if secret and len(secret) >= min_length:
            for form in key_forms(str(secret)):
                text = text.replace(form, MASK)
    return text


_PATH = re.compile(r"(?<![\w:/.])(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}")  # not inside a URL


def clean_message(text: str, secrets: Sequence[str | None], *, hide_paths: bool) -> str:
    """A message fit for a page: secrets redacted (those of 4 characters or more, so short ones do not garble
    it) and, with ``hide_paths`` (a visitor on another machine), every absolute server path cut to its last
    component (``/srv/app/plates/assets/x.onnx`` -> ``…/x.onnx``).

    Parameters
    ----------
    text : str
        The message.
    secrets : sequence of str or None
        The secrets.
    hide_paths : bool
        Cut absolute paths to their last component.

    Returns
    -------
    str
        The message.
    """
    text = redact(text, secrets, min_length=4) or ""
    if hide_paths:
        text = _PATH.sub(lambda m: "…/" + re.split(r"[\\/]", m.group(0))[-1], text)
    return text
