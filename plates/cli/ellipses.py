"""``plates ellipses``: a model's thresholds along N chromatic directions around centre colours (one QUEST+ per
direction, trials interleaved) and its discrimination ellipse at each centre, beside MacAdam's (1942).

    plates ellipses --backend baseline --centres macadam --directions 8 --trials 30 --seed 0 --out DIR
    plates ellipses --backend python --model plates.models.simulated:ideal --centres "0.305,0.323" --out DIR
    plates ellipses --backend python --model plates.models.simulated:macadam_x3 --mode lab \\
        --centres "0.385,0.393" --out DIR

Writes every trial as a results row (columns centre_x, centre_y, direction, level, level_shown, level_unit,
code_steps), DIR/thresholds.parquet (per centre and direction) and, in mode uv, DIR/ellipses.parquet (per
centre: a >= b in CIE 1931 xy units, theta_deg, 95% intervals, status, MacAdam's ellipse scaled by
--macadam-factor with the area ratio, axis ratio and orientation difference). A stopped run resumes: rerun
the same command and only the trials not yet answered are asked. See docs/ellipses.md.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates ellipses`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("ellipses", help="thresholds along colour directions and discrimination ellipses",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", default="baseline",
                   help="openai | hf | baseline | python (a callable: --model package.module:function)")
    p.add_argument("--model", help="model name (default: baseline-cnn for the baseline backend)")
    p.add_argument("--base-url", help="OpenAI-compatible server URL")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY",
                   help="environment variable holding the API key (default OPENAI_API_KEY)")
    p.add_argument("--no-api-key", action="store_true", help="the server needs no key (vLLM, Ollama)")
    p.add_argument("--centres", default="macadam",
                   help="'macadam' (MacAdam's 1942 centres inside sRGB) or 'x,y;x,y' in CIE 1931 xy")
    p.add_argument("--luminance", type=float, default=None,
                   help="relative luminance Y 0-1 of every centre (default: half the largest sRGB shows there)")
    p.add_argument("--mode", default="uv", help="uv: N directions in CIE 1976 u'v' and an ellipse (default); "
                                                 "lab: CIELAB lightness, chroma and hue thresholds")
    p.add_argument("--directions", type=int, default=8, help="directions in mode uv: 3 or 5-72 (default 8)")
    p.add_argument("--trials", type=int, default=30, help="answers per direction, at least 10 (default 30)")
    p.add_argument("--prompt", default="huemanity-numeric", help="a plate prompt with a label space")
    p.add_argument("--size", type=int, default=512, help="plate size in px (default 512)")
    p.add_argument("--style", default="dense", help="plate style: dense | cbe | huemanity (default dense)")
    p.add_argument("--font", default="dejavu-sans-bold-oblique", help="plate font (default: HueManity's)")
    p.add_argument("--dither", action="store_true",
                   help="draw figure colours between 8-bit codes as a mix of dots (sub-step levels)")
    p.add_argument("--macadam-factor", type=float, default=None,
                   help="MacAdam's ellipses are scaled by this beside ours (default 3: docs/ellipses.md)")
    p.add_argument("--seed", type=int, default=0, help="seed of the trials' labels and plates (default 0)")
    p.add_argument("--out", default="results/runs/ellipses", help="folder (default results/runs/ellipses)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    """Run ``plates ellipses``: thresholds along colour directions and discrimination ellipses.

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
    from plates.analysis.ellipses import MACADAM_FACTOR
    from plates.models import DEFAULT_MODELS
    from plates.runs.ellipse_plan import EllipseRun, parse_centres
    from plates.runs.ellipses import run_ellipses
    from plates.runs.experiment import parse_model

    model: dict = {"backend": args.backend, "model": args.model or DEFAULT_MODELS.get(args.backend, "")}
    if args.backend == "python" and not args.model:
        raise ValueError("--backend python needs --model package.module:function (e.g. "
                         "plates.models.simulated:ideal)")
    if args.base_url:
        model["base_url"] = args.base_url
    if args.backend == "openai":
        model["api_key_env"] = False if args.no_api_key else args.api_key_env
    centres, skipped = parse_centres(args.centres, args.luminance)
    run = EllipseRun(centres=tuple(centres), model=parse_model("--backend/--model", model), prompt=args.prompt,
                     mode=args.mode, directions=args.directions, trials=args.trials, seed=args.seed,
                     size=args.size, style=args.style, font=args.font, dither=args.dither, out=args.out,
                     skipped=tuple(skipped),
                     macadam_factor=MACADAM_FACTOR if args.macadam_factor is None else args.macadam_factor)
    if skipped:
        print(f"skipped (outside sRGB): {', '.join(skipped)}", file=sys.stderr)
    print(f"{len(centres)} centre(s) x {len(run.direction_names)} directions x {run.trials} trials", file=sys.stderr)

    def progress(centre: str, direction: str, r: int, shown: float, row: dict) -> None:
        verdict = "error" if row["parse_status"] == "error" else ("correct" if row["correct"] else "wrong")
        print(f"{centre} {direction} round {r:3d}: level {shown:7.3f} -> {verdict}", file=sys.stderr)

    result = run_ellipses(run, on_trial=progress)
    for t in result.thresholds:
        print(f"{t['centre']:>14} {t['direction']:>9}: threshold {t['threshold']:.3f} {t['unit']} (95% "
              f"{t['ci_low']:.3f}-{t['ci_high']:.3f}), {t['code_steps']:.2f} code steps, status {t['status']}"
              f"{', ' + t['limits'] if t['limits'] else ''}")
    for e in result.ellipses:
        print(f"{e['centre']:>14}: a {e['a']:.5f} b {e['b']:.5f} xy, theta {e['theta_deg']:.1f} deg, status "
              f"{e['status']}" + (f", area ratio to MacAdam x{e['macadam_factor']:g} {e['area_ratio']:.2f}"
                                  if e["area_ratio"] == e["area_ratio"] else ""))
    print(f"{result.run_id}: {result.queries} queries this time ({result.errors} failed), {result.seconds:.1f} s; rows, "
          f"thresholds.parquet{' and ellipses.parquet' if result.ellipses else ''} in {result.out}")
    return 0
