"""Batched vs one-at-a-time throughput of the Hugging Face backend on the tiny random LLaVA (tests/support/tiny_vlm.py).

Report batched against one-at-a-time generation. The model is built offline in a temporary
folder (never the hub); each query carries one plate-like image (sRGB 0-255) and asks for up to
``--max-tokens`` new tokens, greedily. Also checks that the batched answers equal the one-at-a-time ones.

    python3 bench/bench_hf.py [--queries 64] [--batch-sizes 1,8,32] [--max-tokens 16] [--device auto]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=64)
    parser.add_argument("--batch-sizes", default="1,8,32", help="comma-separated; the first is the baseline")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--repeats", type=int, default=1, help="timed passes per batch size (best is kept)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.batch_sizes.split(",")]

    import numpy as np
    import torch
    from PIL import Image

    from plates.models import Query, Turn
    from plates.models.hf import HFBackend
    from tests.support.tiny_vlm import build_tiny_vlm

    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    rng = np.random.default_rng(0)
    queries = []
    for i in range(args.queries):
        side = int(rng.integers(48, 96))
        image = Image.fromarray(rng.integers(0, 256, (side, side, 3), dtype=np.uint8), "RGB")
        text = "What number do you see in the image?" + " Answer with the number only." * int(rng.integers(0, 3))
        queries.append(Query((Turn("user", f"{text} ({i})", (image,)),), max_tokens=args.max_tokens))

    with tempfile.TemporaryDirectory() as folder:
        backend = HFBackend(str(build_tiny_vlm(folder, seed=0)), device=args.device)
        print(f"tiny LLaVA on {backend.device} ({backend.dtype}), {torch.get_num_threads()} threads, "
              f"{args.queries} queries, up to {args.max_tokens} new tokens, greedy")
        backend.batch_size = max(sizes)
        list(backend.ask(queries[:4]))  # warm-up
        results = {}
        for size in sizes:
            backend.batch_size = size
            best, answers = float("inf"), {}
            for _ in range(args.repeats):
                started = time.perf_counter()
                answers = {i: r.text for i, r in backend.ask(queries)}
                best = min(best, time.perf_counter() - started)
            results[size] = (best, answers)
            print(f"batch {size:>3}: {best:6.2f} s  {args.queries / best:7.1f} queries/s")
    base_time, base_answers = results[sizes[0]]
    for size in sizes[1:]:
        elapsed, answers = results[size]
        same = answers == base_answers
        print(f"batch {size} vs {sizes[0]}: speed-up {base_time / elapsed:.2f}x  answers identical: {same}")
    return 0 if all(results[s][1] == base_answers for s in sizes) else 1


if __name__ == "__main__":
    sys.exit(main())
