"""A real OpenAI chat-completions server on 127.0.0.1 for tests, with injectable faults.

It speaks ``POST /v1/chat/completions`` and ``GET /v1/models`` over stdlib ``http.server`` (HTTP/1.1, keep-alive)
in a background thread, answers with a pluggable function, and records every request (arrival and finish
times, in-flight count, the fault it served) so tests can check counts, retry gaps and the concurrency bound.

Faults (``Fault``): an HTTP status (``Fault.http``) with optional ``Retry-After`` / ``retry-after-ms`` headers (429, 500, 503,
401, ...), a slow answer (past the client's timeout), malformed JSON, and a dropped connection (before any
byte, or mid-response). Faults are planned per request by arrival number (``faults=[...]`` or a callable
``(n, body) -> Fault | None``) or per item by text (``faults_by_text={"item-7": [Fault.http(429), None]}``:
the k-th request whose last user text contains the key gets the k-th entry), which stays deterministic
under any concurrency.

    with ChatServer(answer=lambda body: "12", faults_by_text={"B": [Fault.http(503)]}) as server:
        backend = OpenAIBackend("test-model", base_url=server.url, api_key_env=None)
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULT_KINDS = ("status", "slow", "malformed", "drop", "drop-mid")


@dataclass(frozen=True)
class Fault:
    """One injected fault. Build with the class methods: ``http``, ``slow``, ``malformed``, ``drop``."""

    kind: str
    status: int = 200
    retry_after: str | None = None  # the Retry-After header value, sent verbatim (seconds or an HTTP date)
    retry_after_ms: str | None = None  # the retry-after-ms header value
    delay: float = 0.0  # seconds to wait before answering (kind "slow")
    message: str = "injected fault"

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"fault kind {self.kind!r} is not allowed; allowed: {', '.join(FAULT_KINDS)}")

    @classmethod
    def http(cls, code: int, *, retry_after: float | str | None = None, retry_after_ms: float | None = None,
                message: str = "injected fault") -> Fault:
        return cls("status", status=code, message=message,
                   retry_after=None if retry_after is None else str(retry_after),
                   retry_after_ms=None if retry_after_ms is None else str(retry_after_ms))

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls("slow", delay=seconds)

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def drop(cls, *, mid_response: bool = False) -> Fault:
        return cls("drop-mid" if mid_response else "drop")


@dataclass
class RequestRecord:
    """What the server saw of one request (times from time.monotonic(), seconds)."""

    n: int  # arrival number, 0-based
    path: str
    started: float
    finished: float | None = None
    model: str | None = None
    text: str = ""  # the last user turn's text
    images: int = 0  # image parts in the whole conversation
    messages: int = 0
    fault: str | None = None
    status: int | None = None
    authorization_ok: bool = True
    authorization: str = ""  # the Authorization header as received ("" when none)
    body: dict[str, Any] = field(default_factory=dict, repr=False)


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completions request body."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return " ".join(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return ""


def image_urls(body: dict[str, Any]) -> list[str]:
    """Every image URL of a request body, in order (data URLs decode with plates.images.data_url_to_image)."""
    urls = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            urls += [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
    return urls


def echo_answer(body: dict[str, Any]) -> str:
    """The default answer: the last user text, echoed."""
    return f"echo: {last_user_text(body)}"


class ChatServer:
    """A fault-injecting chat-completions server on 127.0.0.1 (a context manager; port chosen by the OS)."""

    def __init__(
        self,
        answer: Callable[[dict[str, Any]], str] = echo_answer,
        *,
        faults: Sequence[Fault | None] | Callable[[int, dict[str, Any]], Fault | None] = (),
        faults_by_text: dict[str, Sequence[Fault | None]] | None = None,
        delay: float = 0.0,
        models: Sequence[str] = ("test-model",),
        api_key: str | None = None,
        fingerprint: str | None = None,
    ) -> None:
        self.answer = answer
        self.fingerprint = fingerprint  # the system_fingerprint each completion carries (None: not sent)
        self.faults = faults
        self.faults_by_text = {k: list(v) for k, v in (faults_by_text or {}).items()}
        self.delay = delay
        self.models = tuple(models)
        self.api_key = api_key
        self.records: list[RequestRecord] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._text_hits: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> ChatServer:
        server = self
        handler = type("Handler", (_Handler,), {"server_ref": server})
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="chat-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the server is not running; use it as a context manager or call start()")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The base URL to give an OpenAI client: ``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- what tests read -------------------------------------------------------------------------------
    @property
    def count(self) -> int:
        """Chat-completion requests received so far."""
        with self._lock:
            return sum(1 for r in self.records if r.path.endswith("/chat/completions"))

    def records_for(self, text: str) -> list[RequestRecord]:
        """Requests whose last user text contains ``text``, in arrival order."""
        with self._lock:
            return [r for r in self.records if text in r.text]

    # ---- used by the handler ---------------------------------------------------------------------------
    def _plan(self, record: RequestRecord, body: dict[str, Any]) -> Fault | None:
        with self._lock:
            for key, plan in self.faults_by_text.items():
                if key in record.text:
                    k = self._text_hits.get(key, 0)
                    self._text_hits[key] = k + 1
                    if k < len(plan):
                        return plan[k]
            if callable(self.faults):
                return self.faults(record.n, body)
            if record.n < len(self.faults):
                return self.faults[record.n]
        return None

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the stdlib's 5 drops SYNs under concurrency: a 1 s stall per dropped connect

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):  # clients hanging up are part of the tests
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_ref: ChatServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the stdlib access log
        pass

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in self.server_ref.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802
        srv = self.server_ref
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        with srv._lock:
            record = RequestRecord(n=len(srv.records), path=self.path, started=time.monotonic())
            srv.records.append(record)
            srv.in_flight += 1
            srv.max_in_flight = max(srv.max_in_flight, srv.in_flight)
        try:
            self._serve(srv, record, raw)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True  # the client gave up (e.g. its timeout): nothing left to do
        finally:
            with srv._lock:
                srv.in_flight -= 1
                record.finished = time.monotonic()

    def _serve(self, srv: ChatServer, record: RequestRecord, raw: bytes) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            record.status = 404
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            record.status = 400
            self._send_json(400, {"error": {"message": "request body is not JSON", "type": "invalid_request"}})
            return
        record.body, record.model = body, body.get("model")
        record.text = last_user_text(body)
        record.images = len(image_urls(body))
        record.messages = len(body.get("messages") or [])
        record.authorization = self.headers.get("Authorization") or ""
        if srv.api_key is not None and self.headers.get("Authorization") != f"Bearer {srv.api_key}":
            record.authorization_ok, record.status = False, 401
            self._send_json(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                            "code": "invalid_api_key"}})
            return
        if srv.models and record.model not in srv.models:
            record.status = 404
            self._send_json(404, {"error": {"message": f"The model `{record.model}` does not exist.",
                                            "type": "invalid_request_error", "code": "model_not_found"}})
            return
        fault = srv._plan(record, body)
        record.fault = fault.kind if fault else None
        srv._wait(srv.delay)
        if fault is not None and fault.kind == "status":
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = fault.retry_after
            if fault.retry_after_ms is not None:
                headers["retry-after-ms"] = fault.retry_after_ms
            record.status = fault.status
            # "{authorization}" in a fault's message echoes the header received, as a careless server might
            message = fault.message.replace("{authorization}", self.headers.get("Authorization") or "")
            self._send_json(fault.status, {"error": {"message": message, "type": "injected",
                                                     "code": str(fault.status)}}, headers)
            return
        if fault is not None and fault.kind == "drop":
            record.status = -1
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault is not None and fault.kind == "drop-mid":
            record.status = -1
            self.close_connection = True
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
                             b'{"id": "chatcmpl-x", "choi')
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault is not None and fault.kind == "slow":
            srv._wait(fault.delay)
        if fault is not None and fault.kind == "malformed":
            record.status = 200
            data = b'{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"index": 0, "mess'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        text = srv.answer(body)
        record.status = 200
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages") or [])
        completion_tokens = len(text.split())
        self._send_json(200, {
            "id": f"chatcmpl-{record.n}", "object": "chat.completion", "created": int(time.time()),
            "model": record.model, **({"system_fingerprint": srv.fingerprint} if srv.fingerprint else {}),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        })
