"""The wire format of an OpenAI-compatible chat-completions request and reply, without an SDK on the hot path.

Why no SDK: the measured share of the client's CPU per request is on docs/benchmarks.md ("Figures moved from
docstrings"). Here a request body is written once per request (not per attempt): the small JSON around
the images is encoded, and each image's base64 is spliced in as bytes where its URL goes. A reply is read as
plain JSON. Images are PNG bytes (`plates.images.image_to_png_bytes`: a stored PNG as it is), never JPEG.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from plates.validation import is_number

#: Options of `OpenAIBackend._request_options` that are not body fields: merged as the SDK merges them.
EXTRA_BODY, EXTRA_HEADERS = "extra_body", "extra_headers"
_PNG_URL = b"data:image/png;base64,"


class Malformed(Exception):
    """The server answered 200 with something that is not a chat completion."""


class HTTPStatusError(Exception):
    """A reply with a status other than 2xx: ``status``, ``headers`` (for Retry-After) and ``detail`` (the
    server's ``error.message`` when it sent the OpenAI error shape, else its body text; unredacted).

    Parameters
    ----------
    status : int
        The HTTP status.
    headers : mapping of str to str
        The reply's headers.
    detail : str
        The server's message.
    """

    def __init__(self, status: int, headers: Mapping[str, str], detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status, self.headers, self.detail = status, headers, detail


def png_base64(png: bytes) -> bytes:
    """A PNG's base64 (ASCII bytes), ready to splice into a body as a ``data:image/png;base64,`` URL.

    Parameters
    ----------
    png : bytes
        A PNG file.

    Returns
    -------
    bytes
        ASCII base64.
    """
    return base64.b64encode(png)


def encode_body(messages: list[dict[str, Any]], options: Mapping[str, Any], images: Sequence[bytes],
                slot: str) -> bytes:
    """The JSON body of one request: ``messages`` whose image URLs are the string ``slot`` (one per image, in
    order of appearance), the request ``options`` (``extra_body`` merged at the top level, ``extra_headers``
    left out: they are headers), and ``images`` (`png_base64` values) spliced into the slots in order as
    PNG data URLs, without copying an image but into the body itself.

    Parameters
    ----------
    messages : list of dict
        Chat messages whose image URLs are ``slot``.
    options : mapping
        The request's other fields.
    images : sequence of bytes
        `png_base64` values, one per slot.
    slot : str
        The placeholder (`new_slot`).

    Returns
    -------
    bytes
        The JSON body.

    Raises
    ------
    RuntimeError
        When the slots and the images differ in number.

    Examples
    --------
    >>> slot = new_slot()
    >>> messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": slot}}]}]
    >>> json.loads(encode_body(messages, {"model": "m"}, [png_base64(b"x")], slot))["messages"][0]["content"][0]
    {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,eA=='}}
    """
    body = {k: v for k, v in options.items() if k not in (EXTRA_BODY, EXTRA_HEADERS)}
    body["messages"] = messages
    body.update(options.get(EXTRA_BODY) or {})
    pieces = json.dumps(body, separators=(",", ":")).encode().split(f'"{slot}"'.encode())
    if len(pieces) != len(images) + 1:  # a slot is a fresh random token: only a bug gets here
        raise RuntimeError(f"request body has {len(pieces) - 1} image slots for {len(images)} images")
    out = [pieces[0]]
    for image, piece in zip(images, pieces[1:]):
        out += [b'"', _PNG_URL, image, b'"', piece]
    return b"".join(out)


def new_slot() -> str:
    """A placeholder for image URLs that no text can contain by chance (a random 128-bit token)."""
    return f"plates-image-{uuid.uuid4().hex}"


def parse_completion(status: int, headers: Mapping[str, str],
                     content: bytes) -> tuple[str, int | None, int | None, str | None]:
    """(text, prompt tokens, completion tokens, revision) of a reply; raises :class:`HTTPStatusError` for a
    status other than 2xx and :class:`Malformed` for a 2xx that is not a chat completion with text. The revision
    is what the server says answered: its ``model`` name, then ``@`` and its ``system_fingerprint`` if sent
    (None without a model name).

    Parameters
    ----------
    status : int
        The HTTP status.
    headers : mapping of str to str
        The reply's headers.
    content : bytes
        The reply's body.

    Returns
    -------
    (str, int or None, int or None, str or None)
        Text, prompt tokens, completion tokens, revision.

    Raises
    ------
    HTTPStatusError
        For a status other than 2xx.
    Malformed
        For a 2xx that is not a chat completion with text.
    """
    if not 200 <= status < 300:
        raise HTTPStatusError(status, headers, _error_detail(content))
    try:
        data = json.loads(content)
        choice = data["choices"][0]
        text = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise Malformed(f"not a chat completion ({type(exc).__name__})") from None
    if not isinstance(text, str):
        raise Malformed(f"no text in the reply (finish_reason={choice.get('finish_reason')!r})")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    model, fingerprint = data.get("model"), data.get("system_fingerprint")
    revision = (f"{model}@{fingerprint}" if fingerprint else str(model)) if model else None
    return text, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")), revision


def _count(value: Any) -> int | None:
    return value if is_number(value, integer=True) else None


def _error_detail(content: bytes) -> str:
    """The server's error message: ``error.message`` of the OpenAI error shape, else the body as text (the
    first 2,000 bytes: untrusted text is bounded before it is parsed)."""
    text = content[:2000].decode("utf-8", "replace").strip()
    try:
        data = json.loads(content) if len(content) <= 65536 else None
    except ValueError:
        return text or "(empty body)"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(error, str):
        return error
    return text or "(empty body)"
