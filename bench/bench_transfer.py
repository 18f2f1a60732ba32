"""Benchmark the sRGB transfer function of `plates.colour.transfer` against colour-science's.

Run: python3 bench/bench_transfer.py [--repeats 2000]

Both directions (sRGB 0-255 -> linear and back) at the sizes the hot paths use: 300 values (an ellipse
plate's figure dots, `plates.runs.ellipse_trials.shown_level`), 30,000 (a 224-pixel simulated-observer plate's
figure pixels, `plates.models.simulated.read_plate`) and 3 (one mean colour). Prints the median time per call
of each and the ratio plates / colour-science (target <= 1: the numpy function must not be slower than the
library it stands in for), and the cost of ``import colour`` in a fresh interpreter (what the numpy function
spares a path that needs nothing else from colour-science). Quote ``uptime`` beside the figures.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from plates.colour.transfer import linear_to_srgb255, srgb255_to_linear


def _median_s(fn, arg, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore")
        import colour
    rng = np.random.default_rng(0)
    print(f"{'size':>7} {'direction':>10} {'plates µs':>10} {'colour µs':>10} {'ratio':>6}  (target <= 1)")
    for n in (3, 300, 30_000):
        codes = rng.integers(0, 256, size=(n // 3, 3)).astype(float)
        linear = srgb255_to_linear(codes)
        pairs = (
            ("decode", srgb255_to_linear, lambda x: colour.models.eotf_sRGB(x / 255.0), codes),
            ("encode", linear_to_srgb255, lambda x: colour.models.eotf_inverse_sRGB(x) * 255.0, linear),
        )
        for name, ours, theirs, arg in pairs:
            a, b = _median_s(ours, arg, args.repeats), _median_s(theirs, arg, args.repeats)
            print(f"{n:>7} {name:>10} {a * 1e6:>10.1f} {b * 1e6:>10.1f} {a / b:>6.2f}")
    cmd = "import time, warnings; warnings.simplefilter('ignore'); t = time.perf_counter(); import colour; " \
          "print(time.perf_counter() - t)"
    cost = float(subprocess.run([sys.executable, "-c", cmd], capture_output=True, text=True, check=True).stdout)
    print(f"import colour in a fresh interpreter: {cost:.2f} s")


if __name__ == "__main__":
    main()
