"""A lean HTTP/1.1 client for the hot path: chat completions to a plain-``http://`` server (a local vLLM, SGLang or
Ollama), the case where a server can answer hundreds of requests a second and the client must keep up.

Why not httpx on this path: the measured share of the client's CPU is on docs/benchmarks.md ("Figures moved
from docstrings"). Here each request is one ``write`` of a prepared
head and the body on a kept-alive asyncio stream, and one read of the reply's head and body. ``https://`` URLs,
proxied hosts and redirects the caller asked to follow go through httpx (`HttpxLane`, chosen by `make_lanes`):
TLS, proxies and redirect rules are not reimplemented here.

Bounds (untrusted replies): a reply head of at most 64 kB, a body of at most `MAX_BODY` bytes.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

MAX_BODY = 64 * 1024 * 1024  # bytes of one reply body
LANE_SIZE = 8  # connections per httpx client (see make_lanes)
_HEAD_LIMIT = 64 * 1024


class ConnectFailed(Exception):
    """No connection could be opened (nothing listens, the host is unknown, the connect timed out)."""


class Dropped(Exception):
    """The connection failed or closed before a whole reply arrived, or the reply is not HTTP/1.x."""


@dataclass(frozen=True)
class Response:
    """What the server answered: status, headers (lower-case names; a repeated one keeps its last value), body.

    Attributes
    ----------
    status : int
        The HTTP status.
    headers : mapping of str to str
        Lower-case names.
    content : bytes
        The body.
    """

    status: int
    headers: Mapping[str, str]
    content: bytes


def lean_url(base_url: str) -> bool:
    """Whether requests to ``base_url`` may take this client: plain ``http://`` and no proxy for its host (the
    proxy environment variables, as httpx and urllib read them).

    Parameters
    ----------
    base_url : str
        The server's base URL.

    Returns
    -------
    bool
        Whether the lean client may take it.
    """
    parts = urlsplit(base_url)
    if parts.scheme != "http" or not parts.hostname or parts.username is not None:  # credentials: httpx's auth
        return False
    proxies = urllib.request.getproxies()
    return not (proxies.get("http") or proxies.get("all")) or bool(urllib.request.proxy_bypass(parts.hostname))


class Http1Pool:
    """Kept-alive connections to one ``http://`` origin, POSTing to ``{base_url}/{path}``; at most as many
    connections as requests in flight (the caller bounds those).

    Parameters
    ----------
    base_url : str
        An ``http://`` base URL.
    headers : mapping of str to str
        Sent with every request.
    """

    def __init__(self, base_url: str, headers: Mapping[str, str]) -> None:
        if not lean_url(base_url):
            raise ValueError(f"Http1Pool takes a plain http:// URL without a proxy, got {base_url!r}")
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "", parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self._headers = _header_lines({"Host": parts.netloc, **headers})  # IPv6 keeps its brackets
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def post(self, path: str, body: bytes, extra_headers: Mapping[str, str] | None = None) -> Response:
        """POST ``body`` to ``path`` (relative to the base URL); raises :class:`ConnectFailed` or :class:`Dropped`.
        A kept-alive connection the server has closed (its end of stream already read by the event loop) is
        not reused; one closed while the request is written is a dropped connection, like any other: every
        request sent counts as an attempt.

        Parameters
        ----------
        path : str
            Relative to the base URL.
        body : bytes
            The request body.
        extra_headers : mapping, optional
            More headers.

        Returns
        -------
        Response
            The server's answer.
        """
        extra = _header_lines(extra_headers or {})
        head = (f"POST {self.prefix}/{path} HTTP/1.1\r\n{self._headers}{extra}"
                f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1")
        while self._idle:
            reader, writer = self._idle.pop()
            if reader.at_eof() or writer.is_closing():
                writer.close()
                continue
            return await self._exchange(reader, writer, head, body)
        try:
            reader, writer = await asyncio.open_connection(self.host, self.port, limit=_HEAD_LIMIT)
        except OSError as exc:
            raise ConnectFailed(f"{self.host}:{self.port}: {exc.strerror or exc}") from None
        return await self._exchange(reader, writer, head, body)

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes,
                        body: bytes) -> Response:
        keep = False
        try:
            writer.write(head)
            writer.write(body)
            await writer.drain()
            raw = await reader.readuntil(b"\r\n\r\n")
            status, headers, version = _parse_head(raw)
            content = await _read_body(reader, headers)
            keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close" and (
                "content-length" in headers or "chunked" in headers.get("transfer-encoding", "").lower())
            return Response(status, headers, content)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError) as exc:
            raise Dropped(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__) from None
        finally:  # a cancelled or failed exchange leaves the connection in an unknown state: closed
            if keep:
                self._idle.append((reader, writer))
            else:
                writer.close()

    async def aclose(self) -> None:
        """Close every kept-alive connection."""
        for _, writer in self._idle:
            writer.close()
        self._idle = []


def _header_lines(headers: Mapping[str, str]) -> str:
    """``headers`` as HTTP lines; a name or value that would break the head (CR, LF, NUL; a value is never quoted
    in the error: it may be a key) raises ValueError."""
    for name, value in headers.items():
        if any(c in f"{name}{value}" for c in "\r\n\0") or not name or ":" in name:
            raise ValueError(f"header {name[:40]!r} has a character a header may not hold (CR, LF, NUL; ':' in "
                             "a name); allowed: one line of text")
    return "".join(f"{name}: {value}\r\n" for name, value in headers.items())


def _parse_head(raw: bytes) -> tuple[int, dict[str, str], str]:
    lines = raw.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    code = rest[:3]
    if version not in ("HTTP/1.1", "HTTP/1.0") or not code.isdigit():
        raise Dropped(f"not an HTTP/1.x reply: {lines[0][:80]!r}")
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return int(code), headers, version


async def _read_body(reader: asyncio.StreamReader, headers: Mapping[str, str]) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        chunks, size = [], 0
        while True:
            line = await reader.readuntil(b"\r\n")
            n = int(line.split(b";", 1)[0].strip() or b"0", 16)
            size += n
            if size > MAX_BODY:
                raise Dropped(f"a reply body over {MAX_BODY} bytes")
            if n == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                    pass
                return b"".join(chunks)
            chunks.append(await reader.readexactly(n))
            await reader.readexactly(2)
    if "content-length" in headers:
        try:
            n = int(headers["content-length"])
        except ValueError:
            raise Dropped(f"a bad Content-Length {headers['content-length'][:40]!r}") from None
        if not 0 <= n <= MAX_BODY:
            raise Dropped(f"a reply body of {n} bytes; allowed: 0-{MAX_BODY}")
        return await reader.readexactly(n)
    data = await reader.read(MAX_BODY + 1)  # until the server closes
    while len(data) <= MAX_BODY and (more := await reader.read(MAX_BODY + 1 - len(data))):
        data += more
    if len(data) > MAX_BODY:
        raise Dropped(f"a reply body over {MAX_BODY} bytes")
    return data


class HttpxLane:
    """An httpx client of ``size`` connections with :class:`Http1Pool`'s ``post`` and ``aclose``.

    Parameters
    ----------
    base_url : str
        The base URL.
    headers : mapping of str to str
        Sent with every request.
    timeout : float
        Seconds per request.
    size : int
        Connections.
    follow_redirects : bool
        Follow 3xx answers.
    """

    def __init__(self, base_url: str, headers: Mapping[str, str], timeout: float, size: int, *,
                 follow_redirects: bool) -> None:
        self.client = httpx.AsyncClient(
            base_url=base_url + "/", headers=dict(headers), timeout=timeout, follow_redirects=follow_redirects,
            limits=httpx.Limits(max_connections=size, max_keepalive_connections=size))

    async def post(self, path: str, body: bytes, extra_headers: Mapping[str, str] | None = None) -> Response:
        """POST ``body`` to ``path`` through the httpx client.

        Parameters
        ----------
        path : str
            Relative to the base URL.
        body : bytes
            The request body.
        extra_headers : mapping, optional
            More headers.

        Returns
        -------
        Response
            The server's answer.
        """
        reply = await self.client.post(path, content=body, headers=extra_headers)
        return Response(reply.status_code, reply.headers, reply.content)

    async def aclose(self) -> None:
        """Close the httpx client."""
        await self.client.aclose()


def make_lanes(base_url: str, headers: Mapping[str, str], timeout: float, concurrency: int, *,
               follow_redirects: bool) -> tuple[list[Any], list[Any], HttpxLane | None]:
    """The transport for ``concurrency`` requests in flight to ``base_url``: (one lane per request slot, the
    clients to close, the client that follows a redirect the lean client got, or None).

    A plain ``http://`` URL without a proxy (`lean_url`) gets one :class:`Http1Pool` behind every slot, and,
    when ``follow_redirects``, an httpx client for the 3xx answers (httpx's redirect rules). Anything else goes
    through httpx, whose pool scans all its connections for every request it places (quadratic; the figure is on
    docs/benchmarks.md), so its slots are spread over clients of at most `LANE_SIZE`
    connections each.

    Parameters
    ----------
    base_url : str
        The base URL.
    headers : mapping of str to str
        Sent with every request.
    timeout : float
        Seconds per request.
    concurrency : int
        Requests in flight.
    follow_redirects : bool
        Follow 3xx answers.

    Returns
    -------
    (list, list, HttpxLane or None)
        Lanes per slot, clients to close, the redirect client.
    """
    if lean_url(base_url):
        pool = Http1Pool(base_url, headers)
        redirects = HttpxLane(base_url, headers, timeout, 1, follow_redirects=True) if follow_redirects else None
        return [pool] * concurrency, [pool, *([redirects] if redirects else [])], redirects
    clients = [HttpxLane(base_url, headers, timeout, min(LANE_SIZE, concurrency - first),
                         follow_redirects=follow_redirects) for first in range(0, concurrency, LANE_SIZE)]
    return [clients[i // LANE_SIZE] for i in range(concurrency)], clients, None
