"""``plates staircase``: measure one model's ΔE2000 threshold on plates, or its point of subjective equality on
an illusion, by an adaptive procedure (QUEST+ / Psi-marginal), in tens of queries.

    plates staircase examples/staircase-baseline.toml
    plates staircase --prompt huemanity-numeric --backend baseline --palette huemanity-01 --trials 40 \\
        --out results/runs/staircase
    plates staircase --prompt rcid-compare-human --kind simultaneous-contrast --backend openai \\
        --model gpt-4o --trials 40 --low -15 --high 15

A plate prompt (open label, yes/no, multiple choice) measures the threshold; an RCID comparison prompt
(rcid-compare-pixel / rcid-compare-human) measures the signed physical difference (ΔE2000, + = A lighter) at
which targets A and B look equal. Every trial is written as a results row as it is answered; rerun the same
command to continue a stopped run. Prints the estimate (posterior mean) with its 95% credible interval, the
answers used, the queries made and the time.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``plates staircase`` and its flags to ``subparsers``.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The ``plates`` parser's subcommands.
    """
    p = subparsers.add_parser("staircase", help="a model's ΔE2000 threshold (plates) or PSE (illusions), adaptively",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", help="a staircase TOML file (or give the flags below)")
    p.add_argument("--prompt", help="a plate prompt with a label space (huemanity-numeric, cbe-open, cbe-yn-correct) "
                                    "or an RCID comparison (rcid-compare-pixel, rcid-compare-human)")
    p.add_argument("--backend", default="baseline", help="openai | hf | baseline | reference-pixels | python "
                                                            "(--model package.module:function) (default baseline)")
    p.add_argument("--model", help="model name (default: baseline-cnn for the baseline backend)")
    p.add_argument("--base-url", help="OpenAI-compatible server URL")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY",
                   help="environment variable holding the API key (default OPENAI_API_KEY)")
    p.add_argument("--no-api-key", action="store_true", help="the server needs no key (vLLM, Ollama)")
    p.add_argument("--palette", default="huemanity-01", help="plates: colour set (default huemanity-01)")
    p.add_argument("--font", default="dejavu-sans-bold-oblique", help="plates: font name (default: HueManity's)")
    p.add_argument("--jitter", type=float, default=0.0,
                   help="plates: per-dot colour jitter, 0-1 of HueManity §3's (default 0: every dot of a class one "
                        "colour, which a pixel-exact reader separates from a fraction of one ΔE2000)")
    p.add_argument("--kind", default="simultaneous-contrast", help="illusions: the kind (default simultaneous-contrast)")
    p.add_argument("--strength", type=float, default=1.0, help="illusions: inducer strength 0-1 (default 1)")
    p.add_argument("--size", type=int, default=512, help="image size in px (default 512)")
    p.add_argument("--trials", type=int, default=40, help="most answers (default 40)")
    p.add_argument("--low", type=float, default=None, help="lowest level, ΔE2000 (default 0.5 plates, -15 illusions)")
    p.add_argument("--high", type=float, default=None, help="highest level, ΔE2000 (default 40 plates, 15 illusions)")
    p.add_argument("--ci-width", type=float, default=None, help="stop once the 95%% interval is narrower (ΔE2000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the trials' labels and images (default 0)")
    p.add_argument("--out", default="results/runs/staircase", help="results folder (default results/runs/staircase)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    # lazy: loads only when this subcommand runs (plates.cli)
    """Run ``plates staircase``: a model's ΔE2000 threshold (plates) or PSE (illusions), adaptively.

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
    from plates.models import DEFAULT_MODELS
    from plates.runs.staircase import load_staircase, parse_staircase, run_staircase, staircase_prompts
    from plates.stimuli.ishihara.jitter import huemanity_jitter

    if args.file:
        stair = load_staircase(args.file)
    else:
        if not args.prompt:
            raise ValueError("give a staircase TOML file, or --prompt (and --backend, --model)")
        model: dict = {"backend": args.backend, "model": args.model or DEFAULT_MODELS.get(args.backend, "")}
        if args.base_url:
            model["base_url"] = args.base_url
        if args.backend == "openai":
            model["api_key_env"] = False if args.no_api_key else args.api_key_env
        if staircase_prompts().get(args.prompt) == "illusion":
            stimulus = {"kind": args.kind, "strength": args.strength, "size": args.size}
        else:
            stimulus = {"palette": args.palette, "font": args.font, "size": args.size,
                        **(huemanity_jitter(args.jitter) if args.jitter else {})}
        stair = parse_staircase({"prompt": args.prompt, "trials": args.trials, "ci_width": args.ci_width,
                                 "seed": args.seed, "out": args.out, "models": [model], "stimulus": stimulus,
                                 "low": args.low, "high": args.high})
    pse = stair.measure == "pse"

    def progress(n: int, level: float, row: dict) -> None:
        if row["parse_status"] == "error":
            verdict = "error"
        elif pse:
            code = stair.outcome(row)
            verdict = {-1: "A darker", 0: "same", 1: "B darker", None: f"no answer ({row['parse_status']})"}[code]
        else:
            verdict = "correct" if row["correct"] else "wrong"
        print(f"trial {n:3d}: ΔE2000 {level:6.2f} -> {verdict}", file=sys.stderr)

    result = run_staircase(stair, on_trial=progress)
    e = result.estimate
    what = "PSE (signed ΔE2000, + = A lighter)" if pse else "threshold ΔE2000"
    print(f"{stair.run_id}: {what} {e.threshold:.2f} (95% credible interval {e.ci_low:.2f}-{e.ci_high:.2f}) "
          f"after {result.answered} answers, {result.queries} queries ({result.errors} failed), "
          f"{result.seconds:.1f} s; stopped: {e.stop_reason}; rows in {result.out}")
    if e.status not in ("fit", "unchecked"):
        print(f"{stair.run_id}: status {e.status}, not a threshold: {e.message}")
    return 0
