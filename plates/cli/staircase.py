"""``plates staircase``: measure one model's ΔE2000 threshold adaptively (QUEST+), in tens of queries.

    plates staircase examples/staircase-baseline.toml
    plates staircase --prompt huemanity-numeric --backend baseline --palette huemanity-01 --trials 40 \\
        --out results/runs/staircase

Every trial is written as a results row as it is answered; rerun the same command to continue a stopped run.
Prints the threshold (posterior mean, ΔE2000) with its 95% credible interval, the answers used and the time.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("staircase", help="a model's ΔE2000 threshold by an adaptive procedure (QUEST+)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", help="a staircase TOML file (or give the flags below)")
    p.add_argument("--prompt", help="a plate prompt with a label space, e.g. huemanity-numeric, cbe-open, cbe-yn-correct")
    p.add_argument("--backend", default="baseline", help="openai | hf | baseline (default baseline)")
    p.add_argument("--model", help="model name (default: baseline-cnn for the baseline backend)")
    p.add_argument("--base-url", help="OpenAI-compatible server URL")
    p.add_argument("--no-api-key", action="store_true", help="the server needs no key (vLLM, Ollama)")
    p.add_argument("--palette", default="huemanity-01", help="colour set of the plates (default huemanity-01)")
    p.add_argument("--font", default="dejavu-sans-bold-oblique", help="font name (default: HueManity's)")
    p.add_argument("--size", type=int, default=512, help="plate size in px (default 512)")
    p.add_argument("--trials", type=int, default=40, help="most answers (default 40)")
    p.add_argument("--ci-width", type=float, default=None, help="stop once the 95%% interval is narrower (ΔE2000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the trials' labels and plates (default 0)")
    p.add_argument("--out", default="results/runs/staircase", help="results folder (default results/runs/staircase)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from plates.runs.staircase import load_staircase, parse_staircase, run_staircase

    if args.file:
        stair = load_staircase(args.file)
    else:
        if not args.prompt:
            raise ValueError("give a staircase TOML file, or --prompt (and --backend, --model)")
        model: dict = {"backend": args.backend, "model": args.model or ("baseline-cnn" if args.backend == "baseline"
                                                                        else "")}
        if args.base_url:
            model["base_url"] = args.base_url
        if args.backend == "openai":
            model["api_key_env"] = False if args.no_api_key else "OPENAI_API_KEY"
        stair = parse_staircase({"prompt": args.prompt, "trials": args.trials, "ci_width": args.ci_width,
                                 "seed": args.seed, "out": args.out, "models": [model],
                                 "stimulus": {"palette": args.palette, "font": args.font, "size": args.size}})

    def progress(n: int, level: float, row: dict) -> None:
        verdict = "error" if row["parse_status"] == "error" else ("correct" if row["correct"] else "wrong")
        print(f"trial {n:3d}: ΔE2000 {level:6.2f} -> {verdict}", file=sys.stderr)

    result = run_staircase(stair, on_trial=progress)
    e = result.estimate
    print(f"{stair.run_id}: threshold ΔE2000 {e.threshold:.2f} (95% credible interval {e.ci_low:.2f}-{e.ci_high:.2f}) "
          f"after {result.answered} answers, {result.queries} queries ({result.errors} failed), "
          f"{result.seconds:.1f} s; stopped: {e.stop_reason}; rows in {result.out}")
    return 0
