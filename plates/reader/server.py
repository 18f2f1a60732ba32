"""`plates serve-baseline`: the baseline reader behind the OpenAI chat-completions protocol on 127.0.0.1.

Endpoints (the subset of https://platform.openai.com/docs/api-reference/chat that plate prompts use):

- ``POST /v1/chat/completions`` with ``messages`` whose content is a string or a list of ``{"type": "text"}``
  and ``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`` parts. Only data URLs are
  accepted (the server never fetches anything). The reply is the reader's answer to the last user message as an
  OPEN prompt (see :mod:`plates.models.baseline`), with ``usage`` counts (whitespace words + 1 per image).
- ``GET /v1/models``: the one model, ``baseline-cnn``.

Bad requests get OpenAI-style error JSON (``{"error": {"message", "type", "param", "code"}}``) with 400, 404
or 405; nothing about the request is logged.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image, UnidentifiedImageError

from plates.models.base import Query, Turn
from plates.models.baseline import BaselineBackend

MAX_BODY_BYTES = 32 * 1024 * 1024


class RequestError(ValueError):
    """A bad request: HTTP status, OpenAI error type, the parameter at fault.

    Parameters
    ----------
    message : str
        What is wrong, as the client reads it.
    status : int, optional
        The HTTP status (default 400).
    param : str, optional
        The request's parameter at fault.
    code : str, optional
        An OpenAI error code.
    """

    def __init__(self, message: str, status: int = 400, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status, self.param, self.code = status, param, code


def _decode_image(url: Any, where: str) -> Image.Image:
    if not isinstance(url, str) or not url.startswith("data:image/") or ";base64," not in url:
        raise RequestError(f"{where}: only base64 data URLs (data:image/...;base64,...) are accepted", param=where)
    try:
        raw = base64.b64decode(url.split(";base64,", 1)[1], validate=True)
        image = Image.open(io.BytesIO(raw))
        image.load()
    except (binascii.Error, UnidentifiedImageError, OSError) as exc:
        raise RequestError(f"{where}: the image cannot be decoded ({type(exc).__name__})", param=where) from exc
    return image.convert("RGB")


def _turn(message: Any, i: int) -> Turn | None:
    where = f"messages[{i}]"
    if not isinstance(message, dict):
        raise RequestError(f"{where} must be an object", param=where)
    role = message.get("role")
    if role in ("system", "developer"):
        return None  # instructions carry no plate; the reader ignores them
    if role not in ("user", "assistant"):
        raise RequestError(f"{where}.role {role!r} is not allowed; allowed: system, developer, user, assistant",
                           param=f"{where}.role")
    content = message.get("content")
    if isinstance(content, str):
        return Turn(role=role, text=content)
    if not isinstance(content, list):
        raise RequestError(f"{where}.content must be a string or a list of parts", param=f"{where}.content")
    texts, images = [], []
    for j, part in enumerate(content):
        pwhere = f"{where}.content[{j}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "image_url" and isinstance(part.get("image_url"), dict):
            images.append(_decode_image(part["image_url"].get("url"), f"{pwhere}.image_url.url"))
        else:
            raise RequestError(f"{pwhere}: part type {kind!r} is not allowed; allowed: text, image_url", param=pwhere)
    return Turn(role=role, text="\n".join(texts), images=tuple(images))


def parse_request(body: dict[str, Any], model: str) -> Query:
    """A chat-completions request body -> Query (kind "open"); RequestError for anything unsupported.

    Parameters
    ----------
    body : dict
        The request's JSON body.
    model : str
        The one model the server holds.

    Returns
    -------
    Query
        The question (kind "open") and the last user message's image.

    Raises
    ------
    RequestError
        For a body that is not an object, another model (404), streaming, n other than 1, no messages, a last
        message not from the user or without an image, an unknown role or part type, or an image that is not a
        decodable base64 data URL.
    """
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    if body.get("model") != model:
        raise RequestError(f"model {body.get('model')!r} does not exist; allowed: {model}", status=404,
                           param="model", code="model_not_found")
    if body.get("stream"):
        raise RequestError("stream=true is not supported; allowed: false", param="stream")
    if body.get("n", 1) != 1:
        raise RequestError(f"n={body.get('n')!r} is not supported; allowed: 1", param="n")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages must be a non-empty list", param="messages")
    turns = tuple(t for i, m in enumerate(messages) if (t := _turn(m, i)) is not None)
    if not turns or turns[-1].role != "user":
        raise RequestError("the last message must come from the user", param="messages")
    if not turns[-1].images:
        raise RequestError("the last user message has no image; the baseline reader reads plates",
                           param="messages")
    return Query(turns=turns, kind="open")


class _Handler(BaseHTTPRequestHandler):
    server: BaselineServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet: never log requests
        pass

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, exc: RequestError) -> None:
        kind = "invalid_request_error" if exc.status < 500 else "server_error"
        self._send(exc.status, {"error": {"message": str(exc), "type": kind, "param": exc.param, "code": exc.code}})

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": self.server.backend.model, "object": "model", "created": 0, "owned_by": "plates"}
            self._send(200, {"object": "list", "data": [model]})
        else:
            self._error(RequestError(f"no route GET {self.path}; allowed: GET /v1/models", status=404))

    def do_POST(self) -> None:  # noqa: N802
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._error(RequestError(f"no route POST {self.path}; allowed: POST /v1/chat/completions", status=404))
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY_BYTES:
                raise RequestError(f"Content-Length {length} is outside 1-{MAX_BODY_BYTES} bytes")
            try:
                body = json.loads(self.rfile.read(length))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise RequestError(f"the body is not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc})") from exc
            query = parse_request(body, self.server.backend.model)
            reply = self.server.backend.answer(query)
        except RequestError as exc:
            self._error(exc)
            return
        except ValueError as exc:  # bad values caught by Turn/Query validation
            self._error(RequestError(str(exc)))
            return
        if reply.text is None:
            self._error(RequestError(reply.error or "the reader could not answer", status=500))
            return
        usage = {"prompt_tokens": reply.prompt_tokens or 0, "completion_tokens": reply.completion_tokens or 0}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        self._send(200, {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.server.backend.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": usage,
        })


class BaselineServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer holding one :class:`BaselineBackend` (onnxruntime sessions are thread-safe).

    Parameters
    ----------
    port : int, optional
        The TCP port (0: any free port).
    host : str, optional
        The address to listen on (default loopback).
    backend : BaselineBackend, optional
        The reader (default: the shipped model).

    Raises
    ------
    ValueError
        For a port outside 0-65535.
    """

    daemon_threads = True

    def __init__(self, port: int = 0, host: str = "127.0.0.1", backend: BaselineBackend | None = None) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"port {port} is not a TCP port; allowed: 0-65535 (0 = any free port)")
        self.backend = backend if backend is not None else BaselineBackend()
        super().__init__((host, port), _Handler)

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT/v1``: the OpenAI-compatible URL to give a client."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"
