"""A real HTTP server on 127.0.0.1 that answers every request with a redirect.

Every request is recorded (method, path, body length) and answered with ``status`` (301, 302, 307, 308) and a
``Location`` pointing at ``target`` + the request's path after ``/v1``, plus a body naming the target, as a
misconfigured or hostile "allowed" endpoint might send. Used with tests/support/chat_server.py's ChatServer as the
target, standing in for an address on the server's own network.

    with ChatServer(answer=lambda b: "internal") as inner, RedirectServer(inner.url, 307) as outer:
        backend = OpenAIBackend("test-model", base_url=outer.url, api_key_env=None, follow_redirects=False)
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class RedirectServer:
    """Redirects every GET and POST to ``target`` (a base URL ending in /v1) with HTTP ``status``."""

    def __init__(self, target: str, status: int = 307, body: bytes = b"") -> None:
        if status not in (301, 302, 303, 307, 308):
            raise ValueError(f"status {status} is not a redirect; allowed: 301, 302, 303, 307, 308")
        self.target, self.status = target.rstrip("/"), status
        self.body = body or f'{{"error": {{"message": "moved to {self.target}"}}}}'.encode()
        self.requests: list[tuple[str, str, int]] = []  # (method, path, body bytes)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def __enter__(self) -> RedirectServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _redirect(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                with owner._lock:
                    owner.requests.append((self.command, self.path, length))
                rest = self.path.split("/v1", 1)[1] if "/v1" in self.path else self.path
                self.send_response(owner.status)
                self.send_header("Location", owner.target + rest)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(owner.body)))
                self.end_headers()
                self.wfile.write(owner.body)

            do_GET = do_POST = _redirect  # noqa: N815

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def url(self) -> str:
        """The base URL to give a client: ``http://127.0.0.1:<port>/v1``."""
        if self._httpd is None:
            raise RuntimeError("the server is not running; use it as a context manager")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
