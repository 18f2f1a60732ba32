"""Throughput of the OpenAI-compatible backend against a loopback server that answers after 200 ms.

Target: 512 requests at concurrency 16 finish within 1.15x of the ideal 512 / 16 * 0.2 s
= 6.4 s. The server (bench/loopback.py: a minimal ASGI app under uvicorn) runs in its own process, so it
measures our client rather than a slow server: tests/support/chat_server.py, the stdlib fault-injecting server, costs
~45 ms per request at this concurrency (`--server stdlib` to see it). Each request carries one small PNG
plate-like image (sRGB 0-255).

    python3 bench/bench_openai.py [--requests 512] [--concurrency 16] [--delay 0.2] [--image-size 64]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

TARGET_RATIO = 1.15


def _serve(delay: float, port_pipe, stop_event) -> None:
    from tests.support.chat_server import ChatServer

    with ChatServer(answer=lambda body: "12", delay=delay) as server:
        port_pipe.send(server.port)
        stop_event.wait()
        port_pipe.send((server.count, server.max_in_flight))


async def _floor(url: str, bodies: list[dict], concurrency: int) -> float:
    """Seconds for the same requests sent by a bare httpx client (no SDK, no retries): the machine's floor."""
    import asyncio

    import httpx

    semaphore = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(timeout=30) as client:
        async def one(body: dict) -> None:
            async with semaphore:
                response = await client.post(f"{url}/chat/completions", json=body)
                response.json()["choices"][0]["message"]["content"]

        await one(bodies[0])
        started = time.perf_counter()
        await asyncio.gather(*(one(body) for body in bodies))
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=512)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.2, help="server answer delay in seconds")
    parser.add_argument("--image-size", type=int, default=64, help="side of the image sent; 0 = text only")
    parser.add_argument("--no-floor", action="store_true", help="skip the bare-httpx comparison run")
    parser.add_argument("--server", choices=("uvicorn", "stdlib"), default="uvicorn",
                        help="loopback server: bench/loopback.py (default) or tests/support/chat_server.py")
    args = parser.parse_args()

    import numpy as np
    from PIL import Image

    from plates.models import Query, Turn
    from plates.models.openai_compat import OpenAIBackend

    if args.server == "uvicorn":
        from loopback import LoopbackServer

        fast = LoopbackServer(delay=args.delay).__enter__()
        port = fast.port
    else:
        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe()
        stop = ctx.Event()
        server = ctx.Process(target=_serve, args=(args.delay, theirs, stop), daemon=True)
        server.start()
        port = ours.recv()

    rng = np.random.default_rng(0)
    queries = []
    for i in range(args.requests):
        images = ()
        if args.image_size:
            pixels = rng.integers(0, 256, (args.image_size, args.image_size, 3), dtype=np.uint8)
            images = (Image.fromarray(pixels, "RGB"),)
        queries.append(Query((Turn("user", f"What number do you see? ({i})", images),), max_tokens=8))

    backend = OpenAIBackend("test-model", base_url=f"http://127.0.0.1:{port}/v1", api_key_env=None,
                            concurrency=args.concurrency, timeout=30)
    list(backend.ask(queries[:2]))  # warm-up: SDK imports, first connections

    started = time.perf_counter()
    replies = dict(backend.ask(queries))
    elapsed = time.perf_counter() - started
    floor = None
    if not args.no_floor:
        import asyncio

        from plates.images import image_to_data_url

        bodies = []
        for query in queries:
            content = [{"type": "image_url", "image_url": {"url": image_to_data_url(image)}}
                       for image in query.images] + [{"type": "text", "text": query.turns[-1].text}]
            bodies.append({"model": "test-model", "messages": [{"role": "user", "content": content}],
                           "max_tokens": 8, "temperature": 0.0})
        floor = asyncio.run(_floor(f"http://127.0.0.1:{port}/v1", bodies, args.concurrency))
    if args.server == "uvicorn":
        fast.__exit__(None, None, None)
        served, max_in_flight = fast.count, fast.max_in_flight
    else:
        stop.set()
        served, max_in_flight = ours.recv()
        server.join(timeout=5)

    ideal = args.requests / args.concurrency * args.delay
    ratio = elapsed / ideal
    ok = sum(r.ok for r in replies.values())
    latencies = [r.latency_s for r in replies.values()]
    print(f"requests {args.requests}  concurrency {args.concurrency}  server delay {args.delay * 1000:.0f} ms  "
          f"image {args.image_size}px  server {args.server}")
    extra = 0 if floor is None else args.requests + 1
    print(f"answered {ok}/{args.requests}  server saw {served - 2 - extra} (+2 warm-up"
          f"{', + the bare-httpx run' if extra else ''})  max in flight {max_in_flight}")
    print(f"elapsed {elapsed:.2f} s  ideal {ideal:.2f} s  throughput {args.requests / elapsed:.1f} req/s")
    print(f"latency median {statistics.median(latencies) * 1000:.0f} ms  "
          f"max {max(latencies) * 1000:.0f} ms")
    if floor is not None:
        print(f"bare httpx on this machine now: {floor:.2f} s = ratio {floor / ideal:.3f} "
              "(the floor: what load on the machine costs without the SDK, retries and bookkeeping)")
    verdict = "PASS" if ratio <= TARGET_RATIO else "MISS"
    print(f"ratio to ideal {ratio:.3f} (target <= {TARGET_RATIO})  {verdict}")
    return 0 if ok == args.requests else 1


if __name__ == "__main__":
    sys.exit(main())
