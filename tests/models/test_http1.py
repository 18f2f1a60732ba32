"""The lean HTTP/1.1 client (plates.models.http1) against raw asyncio servers on 127.0.0.1: each framing a server
may use (Content-Length, chunked, close-delimited), kept-alive connections reused, bounds and broken replies."""

from __future__ import annotations

import asyncio

import pytest

from plates.models import http1
from plates.models.http1 import ConnectFailed, Dropped, Http1Pool, lean_url

REPLIES = {
    "length": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\": \"bc\"}",
    "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"a\"\r\n7\r\n: \"bc\"}\r\n0\r\nX-T: 1\r\n\r\n",
    "close": b"HTTP/1.0 200 OK\r\nRetry-After: 3\r\n\r\n{\"a\": \"bc\"}",
    "garbage": b"SPDY/9 what\r\n\r\n",
    "huge": b"HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n",
    "cut": b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"a\"",
}


async def _exchange(kind: str, requests: int = 3) -> tuple[list, int, list[bytes]]:
    """``requests`` POSTs in a row to a server answering each with REPLIES[kind]; (results, connections, heads)."""
    connections, heads = [], []

    async def handle(reader, writer):
        connections.append(1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                heads.append(head)
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                await reader.readexactly(length)
                writer.write(REPLIES[kind])
                await writer.drain()
                if kind in ("close", "cut", "garbage"):
                    break
        except asyncio.IncompleteReadError:
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    pool = Http1Pool(f"http://127.0.0.1:{port}/v1", {"Authorization": "Bearer k"})
    results = []
    for _ in range(requests):
        try:
            results.append(await pool.post("chat/completions", b'{"x": 1}', {"X-Extra": "y"}))
        except Exception as exc:  # noqa: BLE001 - the test looks at what was raised
            results.append(exc)
    await pool.aclose()
    server.close()
    await server.wait_closed()
    return results, len(connections), heads


@pytest.mark.parametrize("kind", ["length", "chunked", "close"])
def test_each_framing_is_read_and_kept_alive_connections_are_reused(kind):
    results, connections, heads = asyncio.run(_exchange(kind))
    assert all(r.status == 200 and r.content == b'{"a": "bc"}' for r in results), results
    assert connections == (3 if kind == "close" else 1)  # HTTP/1.0 without keep-alive: one per request
    assert heads[0].startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert b"Authorization: Bearer k\r\n" in heads[0] and b"X-Extra: y\r\n" in heads[0]
    assert b"Content-Length: 8\r\n" in heads[0] and b"Host: 127.0.0.1:" in heads[0]
    if kind == "close":
        assert results[0].headers["retry-after"] == "3"


@pytest.mark.parametrize("kind", ["garbage", "huge", "cut"])
def test_broken_replies_are_dropped_connections(kind, monkeypatch):
    monkeypatch.setattr(http1, "MAX_BODY", 1000)
    results, _, _ = asyncio.run(_exchange(kind, requests=1))
    assert isinstance(results[0], Dropped), results


def test_nothing_listening_is_a_connect_failure():
    async def go():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        return await Http1Pool(f"http://127.0.0.1:{port}/v1", {}).post("x", b"")

    with pytest.raises(ConnectFailed, match="127.0.0.1"):
        asyncio.run(go())


def test_only_plain_http_without_a_proxy_takes_the_lean_client(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert lean_url("http://127.0.0.1:8000/v1") and not lean_url("https://api.openai.com/v1")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    assert not lean_url("http://gpu-node:8000/v1")
    monkeypatch.setenv("NO_PROXY", "gpu-node")
    assert lean_url("http://gpu-node:8000/v1")
    with pytest.raises(ValueError, match="plain http"):
        Http1Pool("https://api.openai.com/v1", {})


def test_a_header_that_would_break_the_head_is_refused_without_quoting_it():
    with pytest.raises(ValueError, match="Authorization") as info:
        Http1Pool("http://127.0.0.1:1/v1", {"Authorization": "Bearer sk-SECRET\r\nX-Injected: 1"})
    assert "SECRET" not in str(info.value)


def test_the_host_header_keeps_an_ipv6_address_and_credentials_go_to_httpx():
    assert Http1Pool("http://[::1]:8000/v1", {})._headers == "Host: [::1]:8000\r\n"
    assert not lean_url("http://user:secret@127.0.0.1:8000/v1")
