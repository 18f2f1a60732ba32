"""``plates generate``: write a benchmark set as PNGs plus ``manifest.parquet`` (resumable).

Presets (--preset): colorblindnesseval (1,000 images) and colorblindnesseval-dejavu, huemanity-numeric (2,250),
huemanity-alnum (84,100), huemanity (HueManity's 83,850), each in its paper's plate style, the same in this
project's dense style as <preset>-dense, and the illusion and scene families' presets
(plates.datasets.family_presets.FAMILY_PRESETS: rcid-contrast, illusions-classic, colorbench-..., ...).
--family illusion (or scene) writes every preset of that family, each into OUT/<preset>, in one process.
Your own set (--grid FILE): a TOML grid of labels x colour sets x fonts x ΔE2000 x sizes (see
plates.datasets.grid; example: examples/grid.toml). Exact plates (--spec, repeatable): a spec JSON file or the
JSON itself, each plate drawn as it says (plates.datasets.specs). A killed run leaves no half-written file; rerun the same
command to finish the rest. `plates run --dataset OUT` asks models about the result. --sample N draws a seeded
random subset of N plates of a plate preset, balanced across its colour sets (HueManity §4 evaluated random
1,000-image subsets), instead of its first N.

    plates generate --preset colorblindnesseval --out data/cbe
    plates generate --preset huemanity-numeric --sample 1000 --out data/hm-1000
    plates generate --family illusion --out data/illusions   # data/illusions/rcid-contrast, ...
    plates generate --grid examples/grid.toml --out data/my-grid
    plates generate --spec plate-spec.json --out data/my-plate    # one exact plate, from the explorer
"""

from __future__ import annotations

import argparse
import json
import sys

from plates.cli import PresetsHelpFormatter, positive
from plates.shards import Shard

#: Image size of a preset when --size is not given (px).
DEFAULT_SIZE = 900


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates generate`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("generate",
                              help="write a benchmark set, a preset or your own grid (PNGs + manifest)",
                              description=__doc__, formatter_class=PresetsHelpFormatter)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--preset", help="a preset of any family ({presets})")
    which.add_argument("--family", help="illusion or scene: every preset of the family, each into OUT/<preset> as "
                       "--preset writes it (one process for the family: its imports are paid once)")
    which.add_argument("--grid", metavar="TOML", help="a grid file: labels, colour sets, fonts, ΔE2000 "
                       "values, sizes, variants (plates.datasets.grid)")
    which.add_argument("--spec", metavar="JSON", action="append",
                       help="an exact plate: a spec JSON file (the explorer's 'Download spec JSON') or the JSON "
                            "itself; repeatable (plates.datasets.specs; the explorer's Reproduce box writes it)")
    p.add_argument("--out", required=True, help="output folder (created; existing images are kept and skipped), "
                   "or with --format parquet an object-store URL, s3://BUCKET/PREFIX (credentials from the "
                   "environment: see plates.storage)")
    p.add_argument("--format", choices=("png", "parquet"), default="png", help="png: one PNG file per image plus "
                   "manifest.parquet (the default); parquet: Parquet shards holding the PNG bytes (a few large "
                   "files, readable by `plates run` and Hugging Face datasets; needed for an s3:// --out)")
    p.add_argument("--limit", type=int, default=None,
                   help="only the first N plates of the set's fixed order (N >= 1; with --sample: of the sample)")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="a seeded random subset of N plates of a plate preset, balanced across colour sets "
                        "(recorded in the manifest)")
    p.add_argument("--sample-seed", type=int, default=None, help="seed of --sample's draw (default 0)")
    p.add_argument("--size", type=int, default=None,
                   help=f"preset image size in px (plate presets 64-4096, default {DEFAULT_SIZE}; illusion presets "
                        "64-2048 (illusions-classic and illusion-magnitude 80-2048) and scene presets 64-4096, default 512); a "
                        "grid has its own")
    p.add_argument("--seed", type=int, default=None,
                   help="preset seed; each plate's seed derives from it (default 0); a grid has its own")
    p.add_argument("--workers", type=int, default=None,
                   help="processes, for plate and family presets and grids (default: every core)")
    p.add_argument("--compress-level", type=int, default=2, help="PNG deflate level 0-9 (default 2; 1-3 ISA-L, fast; 0 and 4-9 zlib, 4-9 smaller and slower)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--take-over-lock", action="store_true",
                   help="with an s3:// --out: take over the lease a crashed `plates generate` left (expired; a live "
                        "writer's lease is never taken)")
    p.add_argument("--shard", metavar="I/N", help="write only shard I of N of the set (any preset or grid: a "
                   "deterministic slice; N shards into one --out equal the unsharded set, e.g. a Slurm job "
                   "array: see docs/runs-and-results.md)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    """Run ``plates generate``: write a benchmark set, a preset or a grid of the user's own (PNGs and a manifest).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        The exit status: 0 on success (see `plates.cli.EXIT_CODES`; bad input raises ValueError, which
        `plates.cli.main` reports).
    """
    from plates.datasets.workers import keep_freed_memory

    limit = positive("--limit", args.limit)  # as `plates run --limit`: 0 plates is not a set
    if args.sample is None and args.sample_seed is not None:
        raise ValueError("--sample-seed needs --sample N; allowed: --sample N [--sample-seed S]")
    shard = None if args.shard is None else Shard.parse(args.shard)
    if args.take_over_lock and args.preset is None and args.family is None:
        raise ValueError("--take-over-lock cannot be combined with --spec or --grid, which write local folders (no "
                         "lease); allowed: it with --preset or --family and an s3:// --out")
    # this process renders too when it is the only writer (--workers 1, --spec): it keeps freed memory as the
    # workers do (their forked copies inherit it), or each 900 px plate faults its arrays' pages in again
    keep_freed_memory()
    if args.spec is not None:
        # lazy: loads only when this subcommand runs (plates.cli)
        from plates.datasets.specs import generate_specs, read_spec_argument

        given = [flag for flag, value in (("--size", args.size), ("--seed", args.seed), ("--sample", args.sample),
                                          ("--limit", args.limit), ("--shard", args.shard)) if value is not None]
        given += ["--format parquet"] if args.format != "png" else []
        if given:
            raise ValueError(f"{', '.join(given)} cannot be combined with --spec: a spec is one exact plate "
                             "(its size and seed are in it)")
        summary = generate_specs([read_spec_argument(v) for v in args.spec], args.out,
                                 compress_level=args.compress_level)
    elif args.grid is not None:
        # lazy: loads only when this subcommand runs (plates.cli)
        from plates.datasets.grid import generate_grid, load_grid

        if args.format != "png":
            raise ValueError("--format parquet cannot be combined with --grid; allowed: it with --preset")

        given = [flag for flag, value in (("--size", args.size), ("--seed", args.seed), ("--sample", args.sample))
                 if value is not None]
        if given:
            raise ValueError(f"{', '.join(given)} cannot be combined with --grid; put sizes and seed in the "
                             "grid file (--sample draws from a plate preset)")
        summary = generate_grid(load_grid(args.grid), args.out, limit=limit, workers=args.workers,
                                compress_level=args.compress_level, progress=not args.no_progress, shard=shard)
    elif args.family is not None:
        # lazy: loads only when this subcommand runs (plates.cli)
        from plates.datasets.generate import generate_family

        if args.sample is not None:
            raise ValueError("--sample cannot be combined with --family (a sample draws plates of a plate preset, "
                             "balanced across its colour sets); allowed: --sample with --preset")
        summary = generate_family(
            args.family, args.out, limit=limit, size=args.size, seed=0 if args.seed is None else args.seed,
            workers=args.workers, compress_level=args.compress_level, progress=not args.no_progress, shard=shard,
            fmt=args.format, take_over_lock=args.take_over_lock)
    else:
        # lazy: loads only when this subcommand runs (plates.cli)
        from plates.datasets import generate
        from plates.datasets.sample import Sample

        sample = None if args.sample is None else Sample(args.sample, args.sample_seed or 0)
        summary = generate(
            args.preset, args.out, limit=limit, size=args.size,
            seed=0 if args.seed is None else args.seed, workers=args.workers,
            compress_level=args.compress_level, progress=not args.no_progress, sample=sample, shard=shard,
            fmt=args.format, take_over_lock=args.take_over_lock,
        )
    print(json.dumps(summary), file=sys.stdout)
    return 0
