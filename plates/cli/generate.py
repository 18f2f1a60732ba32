"""``plates generate``: write a benchmark preset as PNGs plus ``manifest.parquet`` (resumable).

Presets: colorblindnesseval (1,000 images) and colorblindnesseval-dejavu, huemanity-numeric (2,250),
huemanity-alnum (84,100), huemanity (HueManity's 83,850), each in its paper's plate style, and the same in this
project's dense style as <preset>-dense. A killed run leaves no half-written file; rerun the same command to
finish the rest. --sample N draws a seeded random subset of N plates balanced across colour sets (HueManity §4
evaluated random 1,000-image subsets) instead of the first N.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("generate", help="write a benchmark preset (PNGs + manifest.parquet)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", required=True, help="a preset, e.g. colorblindnesseval, huemanity-numeric or "
                   "huemanity-numeric-dense (a wrong name lists them all)")
    p.add_argument("--out", required=True, help="output folder (created; existing images are kept and skipped)")
    p.add_argument("--limit", type=int, default=None, help="only the first N plates of the preset's fixed order "
                   "(with --sample: of the sample)")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="a seeded random subset of N plates, balanced across colour sets (recorded in the manifest)")
    p.add_argument("--sample-seed", type=int, default=0, help="seed of --sample's draw (default 0)")
    p.add_argument("--size", type=int, default=900, help="image size in px (64-4096; default 900)")
    p.add_argument("--seed", type=int, default=0, help="preset seed; each plate's seed derives from it (default 0)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    p.add_argument("--compress-level", type=int, default=2, help="PNG zlib level 0-9 (default 2: fast)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from plates.datasets import generate
    from plates.datasets.sample import Sample

    sample = None if args.sample is None else Sample(args.sample, args.sample_seed)
    summary = generate(
        args.preset, args.out, limit=args.limit, size=args.size, seed=args.seed, workers=args.workers,
        compress_level=args.compress_level, progress=not args.no_progress, sample=sample,
    )
    print(json.dumps(summary), file=sys.stdout)
    return 0
