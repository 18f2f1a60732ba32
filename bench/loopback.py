"""A fast loopback chat-completions server for the throughput benches (not for tests).

tests/support/chat_server.py is a stdlib ThreadingHTTPServer: right for injecting faults, but at 16 concurrent
requests on 2 cores its per-request thread and parsing overhead (~45 ms) is what a bench would measure, not
our client (a bare httpx client against it only reached 1.24x of the ideal). This one is a minimal ASGI app
under uvicorn (installed with gradio), run in its own process, that answers every POST after `delay` seconds
with a fixed chat completion, and counts requests and the most in flight.

    with LoopbackServer(delay=0.2) as server:      # server.base_url -> "http://127.0.0.1:PORT/v1"
        ...
    server.count, server.max_in_flight, server.pid  # pid: to read the server's own CPU time
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import socket
import time


def _app_factory(delay: float, answer: str, stats):
    body = json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()), "model": "bench",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }).encode()
    state = {"in_flight": 0}

    async def app(scope, receive, send):
        if scope["type"] != "http":  # lifespan events
            while (await receive())["type"] != "lifespan.shutdown":
                pass
            return
        more = True
        while more:
            more = (await receive()).get("more_body", False)
        state["in_flight"] += 1
        stats[0] += 1
        stats[1] = max(stats[1], state["in_flight"])
        try:
            await asyncio.sleep(delay)
        finally:
            state["in_flight"] -= 1
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    return app


def _serve(port: int, delay: float, answer: str, stats) -> None:
    import uvicorn

    uvicorn.run(_app_factory(delay, answer, stats), host="127.0.0.1", port=port, log_level="warning",
                lifespan="off")


class LoopbackServer:
    """Runs the ASGI app in a spawned process on a free 127.0.0.1 port; `count`/`max_in_flight` after exit."""

    def __init__(self, delay: float = 0.2, answer: str = "12") -> None:
        self.delay, self.answer = delay, answer
        self.count = self.max_in_flight = 0

    def __enter__(self) -> LoopbackServer:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        ctx = multiprocessing.get_context("spawn")
        self._stats = ctx.Array("q", 2, lock=False)
        self._process = ctx.Process(target=_serve, args=(self.port, self.delay, self.answer, self._stats),
                                    daemon=True)
        self._process.start()
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or not self._process.is_alive():
                    raise RuntimeError("the loopback bench server did not start") from None
                time.sleep(0.05)
        return self

    @property
    def pid(self) -> int:
        """The server process's id (to read its CPU time)."""
        return self._process.pid

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc) -> None:
        self.count, self.max_in_flight = int(self._stats[0]), int(self._stats[1])
        self._process.terminate()
        self._process.join(timeout=5)
